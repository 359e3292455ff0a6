"""The queue list's filters as SQL: dataset, judge band, status, disagreement and text.

Applied in the database beside the queue's own conditions, so the list stays paged by key and a
filter never loads the queue into memory. Statuses, as the queue serves items:

- ``new``: nobody has completed a review, nobody holds a lease on it, no review is half done;
- ``in progress``: not done, and someone holds it, has half-scored it, or has completed a review
  while it needs more reviewers;
- ``done``: as many complete reviews as the queue asks for (``rubricate queue set``; the audit
  queue counts only reviews made of labels, ``views.REVIEW_COUNTS``);
- ``flagged``: the safety cap applies (a flag open, escalated or confirmed).

Disagreement is of two kinds, each at least a quarter of the scale apart on some dimension: the
judge against the people (``people_disagree``: the panel's score and people's — a lead's
adjudication, else the consensus — at least ``PEOPLE_APART``, the item's stored ``human_gap``,
:mod:`reviewer.domain.gap`), and the judge panel's models among themselves (``disagreement``: at
least ``PANEL_APART``, the item's stored spread, :mod:`reviewer.domain.judge`). Text is matched
literally, case-insensitively, against the item id, input and output: ``%``, ``_`` and ``\\`` in
it are plain characters.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, false, or_
from sqlmodel import col

from reviewer.domain import PANEL_APART, PEOPLE_APART
from reviewer.errors import UserError
from reviewer.store.tables import Assignment, Item
from reviewer.store.views import STATUSES, QueueFilter

#: The LIKE escape character.
ESCAPE = "\\"


def like_pattern(text: str) -> str:
    """``text`` as a LIKE pattern that matches it literally anywhere in a value."""
    quoted = text.replace(ESCAPE, ESCAPE * 2).replace("%", ESCAPE + "%").replace("_", ESCAPE + "_")
    return f"%{quoted}%"


def filter_conditions(filt: QueueFilter | None, needed: Any, t: datetime, dialect: str,
                      reviewed: Any = None) -> list[ColumnElement[bool]]:
    """The conditions ``filt`` adds to a queue's (``needed``: reviewers an item needs, as SQL;
    ``reviewed``: the item's complete reviews as the queue counts them, default ``n_reviewed``)."""
    if filt is None:
        return []
    conds: list[ColumnElement[bool]] = []
    if filt.dataset:
        conds.append(col(Item.dataset) == filt.dataset)
    if filt.band:
        conds.append(col(Item.judge_band) == filt.band)
    if filt.people_disagree:
        conds.append(col(Item.human_gap) >= PEOPLE_APART)
    if filt.disagreement:
        conds.append(col(Item.judge_spread) >= PANEL_APART)
    if filt.status:
        conds.append(status_condition(filt.status, needed, t, reviewed))
    if filt.text and not _storable(filt.text):
        # a lone UTF-16 surrogate (pasted from a broken source) cannot be sent to the database,
        # and no stored text holds one (imports refuse them): nothing matches
        conds.append(false())
    elif filt.text:
        pattern = like_pattern(filt.text)
        # case-insensitive on both: SQLite's LIKE already is (ASCII), PostgreSQL's is not
        cols = (col(Item.item_id), col(Item.output), col(Item.input))
        if dialect == "postgresql":
            conds.append(or_(*(c.ilike(pattern, escape=ESCAPE) for c in cols)))
        else:
            conds.append(or_(*(c.like(pattern, escape=ESCAPE) for c in cols)))
    return conds


def status_condition(status: str, needed: Any, t: datetime, reviewed: Any = None) -> ColumnElement[bool]:
    """The condition for one of :data:`STATUSES` (``reviewed``: as :func:`filter_conditions`)."""
    if status not in STATUSES:
        raise UserError(f"unknown status {status!r}; use {', '.join(STATUSES)}")
    if status == "flagged":
        return col(Item.flagged).is_(True)
    reviewed = col(Item.n_reviewed) if reviewed is None else reviewed
    done: ColumnElement[bool] = reviewed >= needed
    if status == "done":
        return done
    held = and_(col(Item.lease_until).is_not(None), col(Item.lease_until) > t)
    half = exists().where(col(Assignment.item_pk) == col(Item.pk), col(Assignment.state) == "active",
                          col(Assignment.revision) == col(Item.revision))
    if status == "new":
        return and_(reviewed == 0, ~done, ~held, ~half)
    return and_(~done, or_(reviewed > 0, held, half))


def _storable(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (a lone surrogate cannot)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
