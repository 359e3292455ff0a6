"""Human scores and the item view (the store's human side); reviewers and roles are in
:mod:`reviewer.store.roles`, safety flags and decisions in :mod:`reviewer.store.safety`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import select
from sqlmodel import col

from reviewer.domain import revision_of
from reviewer.errors import UserError
from reviewer.store.base import inserted_pk, records
from reviewer.store.coverage import refresh_coverage
from reviewer.store.judging import JudgeMixin
from reviewer.store.queue import claimed_since
from reviewer.store.reveals import revealed_to
from reviewer.store.safety import SafetyMixin
from reviewer.store.tables import HumanScore, Item, JudgeScore, table_of
from reviewer.store.views import Claim, HumanRecord, ItemView, JudgeRecord

KINDS = ("score", "agree", "revision", "undo", "adjudication", "import")


class PeopleMixin(SafetyMixin, JudgeMixin):
    """The human side of the store."""

    def add_human_score(
        self, item_pk: int, dimension: str, reviewer: str, score: float | None,
        reason: str | None = None, tags: Iterable[str] = (), blind: bool = False,
        judge_score_id: int | None = None, kind: str = "score", sample: str | None = None,
        claim: Claim | None = None,
    ) -> int:
        """Append one human score; it is durable when this returns. Undo is ``score=None``.
        ``sample``: the queue it was given in; ``claim``: the lease it was given under — refused
        (UserError) when another person has claimed the item since (:func:`claimed_since`)."""
        if kind not in KINDS:
            raise UserError(f"unknown score kind {kind!r}")
        if score is None and kind != "undo":
            raise UserError("only an undo may carry no score")
        with self.write() as conn:
            signed = self._sign(conn, reviewer, "lead" if kind == "adjudication" else None)
            item = conn.execute(select(col(Item.rubric_ref), col(Item.revision)).where(col(Item.pk) == item_pk)).first()
            if item is None:
                raise UserError(f"no item with key {item_pk}")
            if claim is not None:
                other = claimed_since(conn, claim)
                if other is not None:
                    raise UserError(f"{claim.item_id}: your lease ran out and {other} has claimed the item since, "
                                    "so this score was not stored; open the item from the queue again to score it")
            if score is not None:
                dim = self.get_rubric(item[0]).dimension(dimension)
                if not dim.scale.contains(score):
                    raise UserError(f"{score:g} is off {dimension}'s scale {dim.scale.min:g}–{dim.scale.max:g}")
            result = conn.execute(table_of(HumanScore).insert().values(
                item_pk=item_pk, revision=item[1], dimension=dimension, reviewer=reviewer, score=score,
                reason=reason, tags=list(tags), blind=blind, kind=kind, judge_score_pk=judge_score_id,
                sample=sample, **signed))
            # an undo may un-complete a review; people's score moved, so may the judge–people gap
            refresh_coverage(conn, self.get_rubric(item[0]), item_pk, item[1])
            rubric = self.get_rubric(item[0])
            if any(d.id == dimension and d.method == "human" for d in rubric.dimensions):
                # only people score it: the judge's overall in the queue counts their score too
                self._refresh_summaries(conn, rubric.ref, {item_pk})
            return inserted_pk(result)

    def human_rows(self, item_pk: int) -> list[HumanRecord]:
        """Every human row of an item, oldest first."""
        with self.read() as conn:
            rows = records(conn, select(HumanScore).where(col(HumanScore.item_pk) == item_pk)
                           .order_by(col(HumanScore.pk)))
        return [_human(r) for r in rows]

    def item_view(self, item_pk: int, viewer: str | None = None) -> ItemView:
        """The item with its judge records, current human scores, safety flags and its fold (the
        state every view reads, from every row whoever the viewer is).

        Peers' scores on a dimension stay hidden from ``viewer`` until the viewer has scored it.
        """
        from reviewer.domain import fold_item
        from reviewer.store.fold import item_rows

        with self.read() as conn:
            found = records(conn, select(Item).where(col(Item.pk) == item_pk))
            if not found:
                raise UserError(f"no item with key {item_pk}")
            it = found[0]
            jrows = records(conn, select(JudgeScore).where(col(JudgeScore.item_pk) == item_pk)
                            .order_by(col(JudgeScore.pk)))
            hrows = records(conn, select(HumanScore).where(col(HumanScore.item_pk) == item_pk)
                            .order_by(col(HumanScore.pk)))
            rows = item_rows(conn, [(it.pk, it.revision)])[it.pk]
            revealed = viewer is not None and revealed_to(conn, it.pk, it.revision, viewer)
        rubric = self.get_rubric(it.rubric_ref)
        fold = fold_item(rubric, rows)
        judge = _latest_judges(jrows, it.revision)
        by_pk = {h.pk: _human(h) for h in hrows}
        current: dict[str, dict[str, HumanRecord]] = {
            dim: {who: by_pk[v.pk] for who, v in f.human.votes.items()} for dim, f in fold.dims.items()}
        if viewer is not None:
            for dim, by in current.items():
                if viewer not in by:
                    current[dim] = {}
        states = {fs.flag.pk: fs for fs in fold.safety.flags}
        with self.read() as conn:
            flags = [f for f in self._flags(conn, [item_pk]) if f.pk in states]
        return ItemView(
            pk=it.pk, item_id=it.item_id, dataset=it.dataset, rubric_ref=it.rubric_ref,
            input=it.input, output=it.output, context=it.context, reference=it.reference,
            conversation=it.conversation, group=it.grp, variant=it.variant, metadata=it.meta or {},
            judge={d: list(v.values()) for d, v in judge.items()}, human=current,
            history=[_human(h) for h in hrows if h.reviewer == viewer and revision_of(h, it.revision) == it.revision],
            flags=flags, fold=fold, revealed=revealed,
        )

    def current_judges(self, item_pks: Iterable[int]) -> dict[int, dict[str, list[JudgeRecord]]]:
        """Each item's judge records per dimension, as :meth:`item_view` shows them (on the item's
        current content, the latest run per model and turn), for many items in one read per
        :data:`reviewer.store.fold.CHUNK` keys; an item with no judge record maps to ``{}``."""
        from reviewer.store.fold import CHUNK

        keys = sorted(set(item_pks))
        out: dict[int, dict[str, list[JudgeRecord]]] = {}
        with self.read() as conn:
            for i in range(0, len(keys), CHUNK):
                chunk = keys[i:i + CHUNK]
                revisions = {pk: rev for pk, rev in conn.execute(
                    select(col(Item.pk), col(Item.revision)).where(col(Item.pk).in_(chunk)))}
                jrows: dict[int, list[Any]] = {pk: [] for pk in revisions}
                for j in records(conn, select(JudgeScore).where(col(JudgeScore.item_pk).in_(chunk))
                                 .order_by(col(JudgeScore.pk))):
                    jrows[j.item_pk].append(j)
                for pk, rows in jrows.items():
                    out[pk] = {d: list(v.values()) for d, v in _latest_judges(rows, revisions[pk]).items()}
        return out

    def group_items(self, item_pk: int) -> list[int]:
        """Keys of the items sharing this item's group (itself included), by variant."""
        with self.read() as conn:
            it = conn.execute(select(col(Item.grp), col(Item.rubric_ref)).where(col(Item.pk) == item_pk)).first()
            if it is None or it[0] is None:
                return [item_pk]
            rows = conn.execute(select(col(Item.pk)).where(col(Item.grp) == it[0], col(Item.rubric_ref) == it[1])
                                .order_by(col(Item.variant), col(Item.pk))).scalars().all()
        return list(rows)


def _human(h: Any) -> HumanRecord:
    return HumanRecord(h.pk, h.dimension, h.reviewer, h.score, h.reason, list(h.tags or []),
                       bool(h.blind), h.kind, h.sample, h.created_at)


def _latest_judges(jrows: Iterable[Any], revision: int) -> dict[str, dict[Any, JudgeRecord]]:
    """The judge rows on content ``revision``, per dimension and (model, turn): rows oldest first,
    so a later row wins and each (model, turn) keeps its latest run."""
    judge: dict[str, dict[Any, JudgeRecord]] = {}
    for j in jrows:
        if revision_of(j, revision) == revision:
            judge.setdefault(j.dimension, {})[(j.model, j.turn)] = _judge(j)
    return judge


def _judge(j: Any) -> JudgeRecord:
    return JudgeRecord(j.pk, j.run_pk, j.dimension, j.model, j.method, j.score, list(j.samples or []),
                       j.std, j.rationale or "", list(j.evidence or []), j.confidence, j.error,
                       j.raw_reply, j.turn, bool(j.not_applicable))
