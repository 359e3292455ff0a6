"""A queue's settings, audit samples and gold items (part of the store's ``queue`` door): how
many reviewers an item needs, the gold rate, blind sessions; which items the audit queue holds;
reviewers' scores on known-answer items."""

from __future__ import annotations

import math
import random
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select, update
from sqlmodel import col

from reviewer.errors import UserError
from reviewer.store.db import Db
from reviewer.store.queue_settings import ANY_RUBRIC, QueueSettings
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.tables import AuditSample, Item, QueueSetting, now, table_of

if TYPE_CHECKING:
    from reviewer.store.items import Items


class QueueSetup:
    """A queue's settings, audit samples and gold items."""

    db: Db
    rubrics: Rubrics
    items: Items

    def create_audit_sample(self, rubric_ref: str, n: int, seed: int = 0) -> int:
        """Draw a seeded uniform random sample of the rubric's items for the audit queue."""
        ref = self.rubrics.get_rubric(rubric_ref).ref
        with self.db.write() as conn:
            pks = sorted(conn.execute(select(col(Item.pk)).where(col(Item.rubric_ref) == ref)).scalars())
            have = set(conn.execute(select(col(AuditSample.item_pk)).where(col(AuditSample.rubric_ref) == ref)).scalars())
            chosen = random.Random(seed).sample(pks, min(n, len(pks)))
            rows = [dict(rubric_ref=ref, item_pk=pk, seed=seed) for pk in chosen if pk not in have]
            if rows:
                conn.execute(table_of(AuditSample).insert(), rows)
        return len(rows)

    def set_queue_settings(self, queue: str, rubric_ref: str | None = None, reviewers_per_item: int | None = None,
                           gold_rate: float | None = None, blind: bool | None = None) -> QueueSettings:
        """Change what is given; the rest keeps its value. Returns the settings now in force."""
        from reviewer.store.queue_sql import QUEUES

        if queue not in QUEUES:
            raise UserError(f"unknown queue {queue!r}; use {', '.join(QUEUES)}")
        if reviewers_per_item is not None and not 1 <= reviewers_per_item <= 20:
            raise UserError(f"--reviewers {reviewers_per_item}: give 1 to 20 distinct reviewers per item")
        if gold_rate is not None and not (math.isfinite(gold_rate) and 0 <= gold_rate <= 0.5):
            raise UserError(f"--gold-rate {gold_rate}: give a share from 0 to 0.5 of claims")
        ref = self.rubrics.get_rubric(rubric_ref).ref if rubric_ref else ANY_RUBRIC
        current = self.queue_settings(queue, rubric_ref, exact=True)
        values = dict(reviewers_per_item=current.reviewers_per_item if reviewers_per_item is None else reviewers_per_item,
                      gold_rate=current.gold_rate if gold_rate is None else gold_rate,
                      blind=current.blind if blind is None else blind, updated_at=now())
        with self.db.write() as conn:
            done = conn.execute(update(QueueSetting).where(col(QueueSetting.rubric_ref) == ref, col(QueueSetting.queue) == queue)
                                .values(**values)).rowcount
            if not done:
                conn.execute(table_of(QueueSetting).insert().values(rubric_ref=ref, queue=queue, **values))
        return self.queue_settings(queue, rubric_ref, exact=True)

    def queue_settings(self, queue: str, rubric_ref: str | None = None, exact: bool = False) -> QueueSettings:
        """The settings for a rubric's items in a queue: its own, else the ``*`` row, else defaults
        (with ``exact``, only its own row counts)."""
        ref = self.rubrics.get_rubric(rubric_ref).ref if rubric_ref else ANY_RUBRIC
        refs = [ref] if exact or ref == ANY_RUBRIC else [ref, ANY_RUBRIC]
        with self.db.read() as conn:
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
        with self.db.read() as conn:
            q = select(col(Item.pk)).where(col(Item.is_gold).is_(True))
            if rubric_ref:
                q = q.where(col(Item.rubric_ref) == self.rubrics.get_rubric(rubric_ref).ref)
            pks = list(conn.execute(q).scalars())
        # each reviewer's current score per gold item and dimension, from the item's fold
        seen: list[tuple[str, float, float, datetime]] = []
        for it, fold in self.items.item_folds(item_pks=pks) if pks else ():
            if not isinstance(it.gold, dict):
                continue
            for dim, f in fold.dims.items():
                expected = it.gold.get(dim)
                if isinstance(expected, (int, float)):
                    # a vote read from a stored row always has its time (the column is NOT NULL)
                    seen.extend((who, v.score, float(expected), v.created_at) for who, v in f.human.votes.items()
                                if v.created_at is not None)
        return seen

    def has_audit_sample(self, rubric_ref: str) -> bool:
        """Whether an audit sample was drawn for this rubric."""
        ref = self.rubrics.get_rubric(rubric_ref).ref
        with self.db.read() as conn:
            return conn.execute(select(col(AuditSample.pk)).where(col(AuditSample.rubric_ref) == ref).limit(1)).first() is not None

    def audit_pks(self, rubric_ref: str) -> set[int]:
        """The item keys of the rubric's audit sample (drawn here or imported as ``"audit": true``)."""
        ref = self.rubrics.get_rubric(rubric_ref).ref
        with self.db.read() as conn:
            return set(conn.execute(select(col(AuditSample.item_pk)).where(col(AuditSample.rubric_ref) == ref)).scalars())


__all__ = ["QueueSetup"]
