"""Calibration reads: judge and human scores side by side, per item and dimension."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from reviewer.store.base import StoreBase
from reviewer.store.judging import EXAMPLE_PREFIX
from reviewer.store.tables import AuditSample, HumanScore, Item, JudgeScore


class RatingsMixin(StoreBase):
    """What the calibration report is computed from."""

    def rubrics_with_items(self) -> list[str]:
        """The rubric versions that have items, in order."""
        with self.read() as conn:
            return sorted(conn.execute(select(Item.rubric_ref).distinct()).scalars())

    def has_audit_sample(self, rubric_ref: str) -> bool:
        """Whether an audit sample was drawn for this rubric."""
        ref = self.get_rubric(rubric_ref).ref
        with self.read() as conn:
            return conn.execute(select(AuditSample.pk).where(AuditSample.rubric_ref == ref).limit(1)).first() is not None

    def rating_rows(self, rubric_ref: str, dataset: str | None = None, sample: str = "all",
                    all_revisions: bool = False) -> list[dict[str, Any]]:
        """Per item: ``judge[dim][model]`` (latest score, errors left out) and ``judge_std`` (its
        samples' spread), ``human[dim][reviewer]`` (current score; with sample ``blind`` only
        scores given before the judge was shown, and ``revised[dim][reviewer]`` = (blind score,
        its latest revision after the reveal)), ``adjudicated[dim]``, and the item's group and
        metadata for ``--group-by``. Only scores given on the item's current content revision
        count; with ``all_revisions`` (``calibrate --all-revisions``) each earlier revision that
        has scores is one more row (``revision`` says which), judged and reviewed on its own text."""
        ref = self.get_rubric(rubric_ref).ref
        with self.read() as conn:
            q = select(Item.pk, Item.item_id, Item.grp, Item.meta, Item.revision).where(Item.rubric_ref == ref)
            if dataset:
                q = q.where(Item.dataset == dataset)
            if sample == "audit":
                q = q.where(Item.pk.in_(select(AuditSample.item_pk).where(AuditSample.rubric_ref == ref)))  # type: ignore[union-attr]
            rows = conn.execute(q).all()
            current = {pk: rev for pk, _, _, _, rev in rows}
            # one rating row per item and content revision (only the current one by default)
            items: dict[tuple[int, int], dict[str, Any]] = {
                (pk, rev): {"item_pk": pk, "revision": rev, "item_id": iid, "group": grp, "metadata": meta or {},
                            "judge": {}, "judge_std": {}, "human": {}, "adjudicated": {}, "revised": {}}
                for pk, iid, grp, meta, rev in rows}

            def row(pk: int, revision: int) -> dict[str, Any] | None:
                if revision == current[pk]:
                    return items[(pk, revision)]
                if not all_revisions:
                    return None
                if (pk, revision) not in items:
                    base = items[(pk, current[pk])]
                    items[(pk, revision)] = {**base, "revision": revision, "judge": {}, "judge_std": {},
                                             "human": {}, "adjudicated": {}, "revised": {}}
                return items[(pk, revision)]
            pks = list(current)
            first_blind: dict[tuple[int, int, str, str], float] = {}
            for i in range(0, len(pks), 5000):
                chunk = pks[i:i + 5000]
                for pk, dim, model, score, std, revision in conn.execute(
                        select(JudgeScore.item_pk, JudgeScore.dimension, JudgeScore.model, JudgeScore.score,
                               JudgeScore.std, JudgeScore.revision)
                        .where(JudgeScore.item_pk.in_(chunk), JudgeScore.turn.is_(None),  # type: ignore[union-attr]
                               JudgeScore.score.is_not(None)).order_by(JudgeScore.pk)):  # type: ignore[union-attr]
                    if (it := row(pk, revision)) is None:
                        continue
                    it["judge"].setdefault(dim, {})[model or "judge"] = score
                    it["judge_std"].setdefault(dim, {})[model or "judge"] = std
                for pk, dim, who, score, kind, blind, revision in conn.execute(
                        select(HumanScore.item_pk, HumanScore.dimension, HumanScore.reviewer, HumanScore.score,
                               HumanScore.kind, HumanScore.blind, HumanScore.revision)
                        .where(HumanScore.item_pk.in_(chunk)).order_by(HumanScore.pk)):  # type: ignore[attr-defined]
                    if (it := row(pk, revision)) is None:
                        continue
                    human = it["human"].setdefault(dim, {})
                    revised = it["revised"].setdefault(dim, {})
                    key = (pk, revision, dim, who)
                    if kind == "adjudication":
                        it["adjudicated"][dim] = score
                        continue
                    if kind == "undo":
                        human.pop(who, None)
                        revised.pop(who, None)
                        first_blind.pop(key, None)
                        continue
                    if blind and key not in first_blind:
                        first_blind[key] = score
                    if kind == "revision" and key in first_blind:
                        revised[who] = (first_blind[key], score)
                    if sample != "blind" or (blind and who not in human):  # blind: the first blind score
                        human[who] = score
        return [items[k] for k in sorted(items)]

    def judge_cost_by_dimension(self, rubric_ref: str) -> dict[str, dict[str, float]]:
        """Judge cost, calls and errors per dimension over every run of a rubric."""
        from sqlalchemy import func

        from reviewer.store.tables import JudgeRun

        ref = self.get_rubric(rubric_ref).ref
        with self.read() as conn:
            rows = conn.execute(
                select(JudgeScore.dimension, func.sum(JudgeScore.cost_usd), func.count(), func.count(JudgeScore.error))
                .join(JudgeRun, JudgeRun.pk == JudgeScore.run_pk).where(JudgeRun.rubric_ref == ref)
                .group_by(JudgeScore.dimension)).all()
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
            q = (select(JudgeScore.item_pk, JudgeScore.dimension, JudgeScore.score, JudgeScore.examples_used)
                 .join(Item, (Item.pk == JudgeScore.item_pk) & (Item.revision == JudgeScore.revision))
                 .where(Item.rubric_ref == ref, JudgeScore.turn.is_(None), JudgeScore.score.is_not(None))  # type: ignore[union-attr]
                 .order_by(JudgeScore.pk))
            for pk, dim, score, used in conn.execute(q):
                before, after = out.setdefault(dim, {}).get(pk, (None, None))
                ids = [str(u) for u in used or ()]
                out[dim][pk] = (before, score) if ids else (score, after)
                example_pks.update(int(u.removeprefix(EXAMPLE_PREFIX)) for u in ids if u.startswith(EXAMPLE_PREFIX))
            seen_items = set(conn.execute(select(HumanScore.item_pk).where(
                HumanScore.pk.in_(sorted(example_pks)))).scalars()) if example_pks else set()  # type: ignore[union-attr]
        return out, seen_items
