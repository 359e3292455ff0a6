"""Calibration reads: judge and human scores side by side, per item and dimension."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlmodel import col

from reviewer.store.fold import FoldMixin
from reviewer.store.judging import EXAMPLE_PREFIX
from reviewer.store.tables import AuditSample, HumanScore, Item, JudgeScore


class RatingsMixin(FoldMixin):
    """What the calibration report is computed from."""

    def rubrics_with_items(self) -> list[str]:
        """The rubric versions that have items, in order."""
        with self.read() as conn:
            return sorted(conn.execute(select(col(Item.rubric_ref)).distinct()).scalars())

    def has_audit_sample(self, rubric_ref: str) -> bool:
        """Whether an audit sample was drawn for this rubric."""
        ref = self.get_rubric(rubric_ref).ref
        with self.read() as conn:
            return conn.execute(select(col(AuditSample.pk)).where(col(AuditSample.rubric_ref) == ref).limit(1)).first() is not None

    def rating_rows(self, rubric_ref: str, dataset: str | None = None, sample: str = "all",
                    human_aggregate: str = "mean", all_revisions: bool = False) -> list[dict[str, Any]]:
        """Per item, read from its fold (:func:`rating_row`): ``judge[dim][model]`` (latest score,
        errors left out), ``panel[dim]`` (the fold's panel score) and ``judge_std``, ``human[dim][reviewer]`` (current score; with sample
        ``blind`` only the first score given before the judge was shown, and ``revised[dim][reviewer]``
        = (blind score, its revision after the reveal)), ``adjudicated[dim]``, the item's
        ``effective`` scores, ``overall`` and ``safety``, and its group and metadata. Only rows of
        the item's current content revision count, unless ``all_revisions`` (``calibrate
        --all-revisions``: the history too); on the ``audit`` sample only people's labels
        (:func:`reviewer.store.fold.label_rows`)."""
        from reviewer.domain.rating import rating_row

        ref = self.get_rubric(rubric_ref).ref
        pks = None
        if sample == "audit":
            with self.read() as conn:
                pks = list(conn.execute(select(col(AuditSample.item_pk)).where(col(AuditSample.rubric_ref) == ref)).scalars())
        return [rating_row(it.pk, it.item_id, it.grp, it.meta, fold, sample)
                for it, fold in self.item_folds(ref, dataset, pks, human_aggregate, all_revisions,
                                                labels=sample == "audit")]

    def judge_cost_by_dimension(self, rubric_ref: str) -> dict[str, dict[str, float]]:
        """Judge cost, calls and errors per dimension over every run of a rubric."""
        from sqlalchemy import func

        from reviewer.store.tables import JudgeRun

        ref = self.get_rubric(rubric_ref).ref
        with self.read() as conn:
            rows = conn.execute(
                select(col(JudgeScore.dimension), func.sum(col(JudgeScore.cost_usd)), func.count(),
                       func.count(col(JudgeScore.error)))
                .join(JudgeRun, col(JudgeRun.pk) == col(JudgeScore.run_pk)).where(col(JudgeRun.rubric_ref) == ref)
                .group_by(col(JudgeScore.dimension))).all()
        return {d: {"cost_usd": float(c or 0), "calls": int(n), "errors": int(e)} for d, c, n, e in rows}

    def correction_scores(self, rubric_ref: str) -> tuple[dict[str, dict[int, tuple[float | None, float | None]]], set[int]]:
        """Learning from corrections, before and after: per dimension and item, the judge's
        latest score made with no human example in its prompt and the latest made with some
        (any model); and the items whose human scores served as examples (the judge saw their
        answer, so a comparison leaves them out)."""
        ref = self.get_rubric(rubric_ref).ref
        out: dict[str, dict[int, tuple[float | None, float | None]]] = {}
        example_pks: set[int] = set()
        with self.read() as conn:
            q = (select(col(JudgeScore.item_pk), col(JudgeScore.dimension), col(JudgeScore.score), col(JudgeScore.examples_used))
                 .join(Item, (col(Item.pk) == col(JudgeScore.item_pk)) & (col(Item.revision) == col(JudgeScore.revision)))
                 .where(col(Item.rubric_ref) == ref, col(JudgeScore.turn).is_(None), col(JudgeScore.score).is_not(None))
                 .order_by(col(JudgeScore.pk)))
            for pk, dim, score, used in conn.execute(q):
                before, after = out.setdefault(dim, {}).get(pk, (None, None))
                ids = [str(u) for u in used or ()]
                out[dim][pk] = (before, score) if ids else (score, after)
                example_pks.update(int(u.removeprefix(EXAMPLE_PREFIX)) for u in ids if u.startswith(EXAMPLE_PREFIX))
            seen_items = set(conn.execute(select(col(HumanScore.item_pk)).where(
                col(HumanScore.pk).in_(sorted(example_pks)))).scalars()) if example_pks else set()
        return out, seen_items
