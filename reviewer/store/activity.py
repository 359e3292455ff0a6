"""Who has worked the queues, and when: each person's queue assignments with their times (the
team view and ``rubricate queue progress`` make done, pace and last active of them,
:mod:`reviewer.services.team`)."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from sqlalchemy import select
from sqlmodel import col

from reviewer.domain.provenance import as_utc
from reviewer.store.db import Db
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.tables import Assignment, Item


class Stint(NamedTuple):
    """One assignment: who was served an item in which queue, how it ended (``active``, ``done``,
    ``skipped``, ``released``), when it was served and when it ended (naive UTC; None while open)."""

    reviewer: str
    queue: str
    state: str
    served: datetime
    ended: datetime | None


def _utc(t: datetime | str | None) -> datetime | None:
    """A stored time as naive UTC (PostgreSQL gives it with a zone, SQLite without one)."""
    if t is None:
        return None
    if isinstance(t, str):  # a plain SQLite read gives the text
        t = datetime.fromisoformat(t)
    return as_utc(t).replace(tzinfo=None)


class Activity:
    """Reading the queues' assignment history, person by person."""

    def __init__(self, db: Db, rubrics: Rubrics) -> None:
        self.db = db
        self.rubrics = rubrics

    def stints(self, rubric_ref: str | None = None) -> list[Stint]:
        """Every assignment (of the rubric's items, or of all), ordered by person, queue and the
        time it was served."""
        query = select(col(Assignment.reviewer), col(Assignment.queue), col(Assignment.state),
                       col(Assignment.created_at), col(Assignment.ended_at))
        if rubric_ref:
            query = query.join(Item, col(Item.pk) == col(Assignment.item_pk)).where(
                col(Item.rubric_ref) == self.rubrics.get_rubric(rubric_ref).ref)
        query = query.order_by(col(Assignment.reviewer), col(Assignment.queue), col(Assignment.created_at),
                               col(Assignment.pk))
        with self.db.read() as conn:
            rows = conn.execute(query).all()
        out = []
        for reviewer, queue, state, served, ended in rows:
            at = _utc(served)
            if at is None:  # (the column is filled on every insert; a row without it is not read as "now")
                raise ValueError(f"assignment of {reviewer!r} in {queue!r} has no time it was served")
            out.append(Stint(reviewer, queue, state, at, _utc(ended)))
        return out
