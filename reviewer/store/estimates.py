"""Reads for corrected estimates: the audit sample and the judge's verdict on every item, as columns.

The labelled side (a few thousand audit items) is read through the items' folds; the unlabelled
side can be a million items, so the database counts it (``judge_passed`` is the judge-only verdict
the store keeps on each item from its fold).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import case, func, select
from sqlmodel import col

from reviewer.store.base import StoreBase, any_item_revised
from reviewer.store.numeric_read import read_numeric
from reviewer.store.tables import AuditSample, Item


class EstimatesMixin(StoreBase):
    """What a corrected pass rate is computed from."""

    def audit_pks(self, rubric_ref: str) -> set[int]:
        """The item keys of the rubric's audit sample (drawn here or imported as ``"audit": true``)."""
        ref = self.get_rubric(rubric_ref).ref
        with self.read() as conn:
            return set(conn.execute(select(col(AuditSample.item_pk)).where(col(AuditSample.rubric_ref) == ref)).scalars())

    def flagged_items(self, rubric_ref: str) -> set[int]:
        """Keys of the rubric's items that have a safety flag (of any revision, whatever its status)."""
        from reviewer.store.tables import SafetyFlag

        ref = self.get_rubric(rubric_ref).ref
        q = (select(col(SafetyFlag.item_pk)).distinct().join(Item, col(Item.pk) == col(SafetyFlag.item_pk))
             .where(col(Item.rubric_ref) == ref))
        with self.read() as conn:
            return {int(pk) for pk in conn.execute(q).scalars()}

    def audit_judge_verdicts(self, rubric_ref: str) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """The judge's verdict on each item of the rubric's audit sample that has a complete one,
        as two columns, item keys ascending (50,000 audit items without a Python object each)."""
        ref = self.get_rubric(rubric_ref).ref
        audit = select(col(AuditSample.item_pk)).where(col(AuditSample.rubric_ref) == ref)
        passed = case((col(Item.judge_passed).is_(True), 1), else_=0)
        with self.read() as conn:
            got = read_numeric(conn, col(Item.pk), [col(Item.pk).in_(audit), col(Item.judge_passed).is_not(None)],
                               {"passed": passed}, {})
        return got["pk"], got["passed"] > 0

    def judge_pass_totals(self, rubric_ref: str, dataset: str | None = None) -> tuple[int, int]:
        """(items with a complete judge verdict, how many of them pass) over the rubric (and
        dataset), counted by the database: a million items never leave it."""
        ref = self.get_rubric(rubric_ref).ref
        passed = func.sum(case((col(Item.judge_passed).is_(True), 1), else_=0))
        q = select(func.count(col(Item.judge_passed)), passed).where(col(Item.rubric_ref) == ref)
        if dataset:
            q = q.where(col(Item.dataset) == dataset)
        with self.read() as conn:
            n, k = conn.execute(q).one()
        return int(n or 0), int(k or 0)

    def judge_passed_of(self, item_pks: list[int]) -> dict[int, bool]:
        """The judge's verdict on each of these items that has a complete one."""
        out: dict[int, bool] = {}
        with self.read() as conn:
            for i in range(0, len(item_pks), 5000):
                q = select(col(Item.pk), col(Item.judge_passed)).where(col(Item.pk).in_(item_pks[i:i + 5000]),
                                                             col(Item.judge_passed).is_not(None))
                out.update((int(pk), bool(v)) for pk, v in conn.execute(q))
        return out

    def judge_score_totals(self, rubric_ref: str, dataset: str | None = None,
                           ) -> dict[str, tuple[int, float, float]] | None:
        """Per dimension (count, sum, sum of squares) of the judge's current top-level score over
        every item, counted by the database — or None where that count could differ from the
        items' folds, and the caller must fold columns instead.

        The count is exact when the rubric's scores come from one run (an import or one judge
        model: one top-level row per item and dimension, so the latest row is the only row and the
        panel is that model) and no item has a later content revision."""
        from reviewer.store.tables import JudgeRun, JudgeScore

        ref = self.get_rubric(rubric_ref).ref
        with self.read() as conn:
            runs = conn.execute(select(col(JudgeRun.pk), col(JudgeRun.dataset)).where(col(JudgeRun.rubric_ref) == ref)).all()
            if len(runs) != 1 or (dataset and (runs[0][1] or "") != dataset):
                return None
            if any_item_revised(conn, ref):
                return None
            score = col(JudgeScore.score)
            q = (select(col(JudgeScore.dimension), func.count(score), func.sum(score), func.sum(score * score))
                 .where(col(JudgeScore.run_pk) == runs[0][0], col(JudgeScore.turn).is_(None), score.is_not(None))
                 .group_by(col(JudgeScore.dimension)))
            return {d: (int(n), float(s or 0.0), float(ss or 0.0)) for d, n, s, ss in conn.execute(q)}
