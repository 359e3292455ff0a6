"""How each queue serves a rubric's items, and what the known-answer (gold) items say of reviewers.

A setting names a rubric (or ``*`` for every rubric without its own) and a queue: how many
distinct reviewers each item needs, the share of claims that serve a gold item instead, and
whether the queue is blind. Gold items carry expected scores; the store hands out each
reviewer's current score beside the expected one, and the services compute accuracy and drift
from those rows (the store computes no statistics).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlmodel import col

from reviewer.errors import UserError
from reviewer.store.fold import FoldMixin
from reviewer.store.tables import Item, QueueSetting, now, table_of

ANY_RUBRIC = "*"


@dataclass(frozen=True)
class QueueSettings:
    """One queue's rules for one rubric."""

    rubric_ref: str
    queue: str
    reviewers_per_item: int = 1
    gold_rate: float = 0.0
    blind: bool = False


class QueueSettingsMixin(FoldMixin):
    """Queue settings and the scores given on gold items."""

    def set_queue_settings(self, queue: str, rubric_ref: str | None = None, reviewers_per_item: int | None = None,
                           gold_rate: float | None = None, blind: bool | None = None) -> QueueSettings:
        """Change what is given; the rest keeps its value. Returns the settings now in force."""
        from reviewer.store.queue import QUEUES

        if queue not in QUEUES:
            raise UserError(f"unknown queue {queue!r}; use {', '.join(QUEUES)}")
        if reviewers_per_item is not None and not 1 <= reviewers_per_item <= 20:
            raise UserError(f"--reviewers {reviewers_per_item}: give 1 to 20 distinct reviewers per item")
        if gold_rate is not None and not (math.isfinite(gold_rate) and 0 <= gold_rate <= 0.5):
            raise UserError(f"--gold-rate {gold_rate}: give a share from 0 to 0.5 of claims")
        ref = self.get_rubric(rubric_ref).ref if rubric_ref else ANY_RUBRIC
        current = self.queue_settings(queue, rubric_ref, exact=True)
        values = dict(reviewers_per_item=current.reviewers_per_item if reviewers_per_item is None else reviewers_per_item,
                      gold_rate=current.gold_rate if gold_rate is None else gold_rate,
                      blind=current.blind if blind is None else blind, updated_at=now())
        with self.write() as conn:
            done = conn.execute(update(QueueSetting).where(col(QueueSetting.rubric_ref) == ref, col(QueueSetting.queue) == queue)
                                .values(**values)).rowcount
            if not done:
                conn.execute(table_of(QueueSetting).insert().values(rubric_ref=ref, queue=queue, **values))
        return self.queue_settings(queue, rubric_ref, exact=True)

    def queue_settings(self, queue: str, rubric_ref: str | None = None, exact: bool = False) -> QueueSettings:
        """The settings for a rubric's items in a queue: its own, else the ``*`` row, else defaults
        (with ``exact``, only its own row counts)."""
        ref = self.get_rubric(rubric_ref).ref if rubric_ref else ANY_RUBRIC
        refs = [ref] if exact or ref == ANY_RUBRIC else [ref, ANY_RUBRIC]
        with self.read() as conn:
            rows = {r[0]: r for r in conn.execute(
                select(col(QueueSetting.rubric_ref), col(QueueSetting.reviewers_per_item), col(QueueSetting.gold_rate),
                       col(QueueSetting.blind)).where(col(QueueSetting.queue) == queue, col(QueueSetting.rubric_ref).in_(refs)))}
        for r in refs:
            if r in rows:
                _, n, rate, blind = rows[r]
                return QueueSettings(ref, queue, int(n), float(rate), bool(blind))
        return QueueSettings(ref, queue)

    def gold_scores(self, rubric_ref: str | None = None) -> list[tuple[str, float, float, datetime]]:
        """Every reviewer's current score on every gold item and dimension that has an expected
        score, as ``(reviewer, score, expected, scored_at)`` rows (undone scores are not current);
        the gold-accuracy service turns them into accuracy and drift."""
        with self.read() as conn:
            q = select(col(Item.pk)).where(col(Item.is_gold).is_(True))
            if rubric_ref:
                q = q.where(col(Item.rubric_ref) == self.get_rubric(rubric_ref).ref)
            pks = list(conn.execute(q).scalars())
        # each reviewer's current score per gold item and dimension, from the item's fold
        seen: list[tuple[str, float, float, datetime]] = []
        for it, fold in self.item_folds(item_pks=pks) if pks else ():
            if not isinstance(it.gold, dict):
                continue
            for dim, f in fold.dims.items():
                expected = it.gold.get(dim)
                if isinstance(expected, (int, float)):
                    # a vote read from a stored row always has its time (the column is NOT NULL)
                    seen.extend((who, v.score, float(expected), v.created_at) for who, v in f.human.votes.items()
                                if v.created_at is not None)
        return seen
