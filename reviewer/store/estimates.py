"""Reads for corrected estimates: the audit sample and the judge's verdict on every item, as columns.

The labelled side (a few thousand audit items) is read through the items' folds; the unlabelled
side can be a million items, so it comes out as two numpy columns from one query on ``item``
(``judge_passed`` is the judge-only verdict the store keeps from each item's fold).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import select

from reviewer.store.base import StoreBase
from reviewer.store.tables import AuditSample, Item


class EstimatesMixin(StoreBase):
    """What a corrected pass rate is computed from."""

    def audit_pks(self, rubric_ref: str) -> set[int]:
        """The item keys of the rubric's audit sample (drawn here or imported as ``"audit": true``)."""
        ref = self.get_rubric(rubric_ref).ref
        with self.read() as conn:
            return set(conn.execute(select(AuditSample.item_pk).where(AuditSample.rubric_ref == ref)).scalars())

    def judge_pass_columns(self, rubric_ref: str, dataset: str | None = None,
                           ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """(item keys, the judge's verdict: 1 passed, 0 failed, NaN incomplete) for every item of the
        rubric (and dataset), in key order."""
        ref = self.get_rubric(rubric_ref).ref
        q = select(Item.pk, Item.judge_passed).where(Item.rubric_ref == ref)
        if dataset:
            q = q.where(Item.dataset == dataset)
        with self.read() as conn:
            cursor = conn.execute(q.order_by(Item.pk))
            pks: list[int] = []
            verdicts: list[float] = []
            for part in iter(lambda: cursor.fetchmany(50_000), []):
                for pk, passed in part:
                    pks.append(pk)
                    verdicts.append(np.nan if passed is None else float(passed))
        return np.asarray(pks, dtype=np.int64), np.asarray(verdicts, dtype=np.float64)
