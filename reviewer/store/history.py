"""A reviewer's own recent decisions on a queue, newest first (the history panel, ``h``).

A decision is a row the reviewer wrote in the queue's sample (a score, an agreement, a revision or
an undo: ``human_score.sample`` is the queue the item was served in, or the session's). One line
per item: when the reviewer last decided on it, and their current score on each dimension they
touched (None where the latest is an undo). Read a page at a time (OFFSET over the reviewer's
items, by an index on reviewer, sample and row), never the whole history.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlmodel import col

from reviewer.store.db import Db
from reviewer.store.tables import HumanScore, Item


@dataclass(frozen=True)
class Decision:
    """One item in a reviewer's history: their current scores on it and when they last decided."""

    item_pk: int
    item_id: str
    dataset: str
    at: datetime
    #: (dimension, score) in the order the reviewer first scored them; None: undone
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
            # the reviewer's rows on those items, in any sample: their latest per dimension is current
            rows = conn.execute(select(col(HumanScore.item_pk), col(HumanScore.dimension), col(HumanScore.score))
                                .where(col(HumanScore.reviewer) == reviewer, col(HumanScore.item_pk).in_(pks))
                                .order_by(col(HumanScore.pk))).all()
        scores: dict[int, dict[str, float | None]] = {pk: {} for pk in pks}
        for pk, dim, score in rows:
            scores[pk][dim] = None if score is None else float(score)
        return [Decision(pk, *names[pk], at, tuple(scores[pk].items())) for pk, _, at in items if pk in names]


__all__ = ["Decision", "History"]
