"""A reviewer's own recent decisions on a queue, newest first (the history panel, ``h``).

A decision is a row the reviewer wrote in the queue's sample (a score, an agreement, a revision or
an undo: ``human_score.sample`` is the queue the item was served in, or the session's). One line
per item: when the reviewer last decided on it, and their current score on each dimension they
touched on the item's current content — their standing vote in the fold
(:func:`reviewer.domain.human.fold_human`: a lead's adjudication is not a vote, a score on earlier
content is not current), None where none stands (an undo). Read a page at a time (OFFSET over the
reviewer's items, by an index on reviewer, sample and row), never the whole history.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlmodel import col

from reviewer.domain.human import HumanDim, fold_human
from reviewer.domain.rows import HumanRow
from reviewer.store.db import Db
from reviewer.store.tables import HumanScore, Item


@dataclass(frozen=True)
class Decision:
    """One item in a reviewer's history: their current scores on it and when they last decided."""

    item_pk: int
    item_id: str
    dataset: str
    at: datetime
    #: (dimension, their standing vote) in the order they first touched them on the current
    #: content; None: none stands (undone)
    scores: tuple[tuple[str, float | None], ...]


class History:
    """Reads a reviewer's recent decisions."""

    def __init__(self, db: Db) -> None:
        self.db = db

    def recent_decisions(self, reviewer: str, queue: str, limit: int = 50, offset: int = 0) -> list[Decision]:
        """The items ``reviewer`` decided on last in ``queue``, newest first: ``limit`` of them
        after the first ``offset``."""
        mine = (col(HumanScore.reviewer) == reviewer, col(HumanScore.sample) == queue)
        last = func.max(col(HumanScore.pk))
        page = (select(col(HumanScore.item_pk), last, func.max(col(HumanScore.created_at)))
                .where(*mine).group_by(col(HumanScore.item_pk))
                .order_by(last.desc()).limit(limit).offset(offset))
        with self.db.read() as conn:
            items = conn.execute(page).all()
            pks = [r[0] for r in items]
            if not pks:
                return []
            names = {r[0]: (r[1], r[2]) for r in conn.execute(
                select(col(Item.pk), col(Item.item_id), col(Item.dataset)).where(col(Item.pk).in_(pks)))}
            # the reviewer's rows on those items' current content, in any sample, oldest first
            rows = conn.execute(select(col(HumanScore.item_pk), col(HumanScore.pk), col(HumanScore.dimension),
                                       col(HumanScore.score), col(HumanScore.kind))
                                .join(Item, col(Item.pk) == col(HumanScore.item_pk))
                                .where(col(HumanScore.reviewer) == reviewer, col(HumanScore.item_pk).in_(pks),
                                       col(HumanScore.revision) == col(Item.revision))
                                .order_by(col(HumanScore.pk))).all()
        theirs: dict[int, list[HumanRow]] = {pk: [] for pk in pks}
        for pk, hpk, dim, score, kind in rows:
            theirs[pk].append(HumanRow(hpk, dim, reviewer, score, kind))
        return [Decision(pk, *names[pk], at, _standing_votes(theirs[pk], reviewer)) for pk, _, at in items
                if pk in names]


def _standing_votes(rows: list[HumanRow], reviewer: str) -> tuple[tuple[str, float | None], ...]:
    """(dimension, the reviewer's standing vote or None) per dimension they voted or undid on, in
    the order first touched (``rows``: theirs on one item's current content, oldest first)."""
    folded = fold_human(rows)
    touched = dict.fromkeys(r.dimension for r in rows if r.kind != "adjudication")
    return tuple((dim, vote.score if (vote := folded.get(dim, HumanDim()).votes.get(reviewer)) else None) for dim in touched)


__all__ = ["Decision", "History"]
