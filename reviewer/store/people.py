"""The scores door: people's scores, pair choices and reveals of the judge (the store's human
side); reviewers and roles are in :mod:`reviewer.store.roles`, safety flags and decisions in
:mod:`reviewer.store.safety`, the item view in :mod:`reviewer.store.items`."""

from __future__ import annotations

from collections.abc import Iterable
from types import SimpleNamespace

from sqlalchemy import Connection, select
from sqlmodel import col

from reviewer.domain import revision_of
from reviewer.domain.provenance import iso
from reviewer.errors import UserError
from reviewer.store.base import current_revision, inserted_pk, records
from reviewer.store.coverage import refresh_coverage
from reviewer.store.db import Db
from reviewer.store.judging import EXAMPLE_PREFIX, Runs
from reviewer.store.pairs import _group_revision, _members, item_ids
from reviewer.store.queue import claimed_since
from reviewer.store.reveals import revealed_to
from reviewer.store.roles import Roles
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.tables import HumanScore, Item, ItemReveal, JudgeScore, PairChoice, table_of
from reviewer.store.views import Claim, HumanRecord, JudgeRecord, PairChoiceExport, PairChoiceRecord

KINDS = ("score", "agree", "revision", "undo", "adjudication", "import")


class Scores:
    """People's scores, pair choices and reveals: each appended, signed, durable when written."""

    def __init__(self, db: Db, rubrics: Rubrics, roles: Roles, runs: Runs) -> None:
        self.db = db
        self.rubrics = rubrics
        self.roles = roles
        self.runs = runs

    def add_human_score(
        self, item_pk: int, dimension: str, reviewer: str, score: float | None,
        reason: str | None = None, tags: Iterable[str] = (), blind: bool = False,
        judge_score_id: int | None = None, kind: str = "score", sample: str | None = None,
        claim: Claim | None = None,
    ) -> int:
        """Append one human score; it is durable when this returns. Undo is ``score=None``.
        ``sample``: the queue it was given in; ``claim``: the lease it was given under — refused
        (UserError) when another person has claimed the item since (:func:`claimed_since`)."""
        with self.db.write() as conn:
            return self.score_in(conn, item_pk, dimension, reviewer, score, reason, tags, blind, judge_score_id,
                                 kind, sample, claim)

    def score_in(
        self, conn: Connection, item_pk: int, dimension: str, reviewer: str, score: float | None,
        reason: str | None = None, tags: Iterable[str] = (), blind: bool = False,
        judge_score_id: int | None = None, kind: str = "score", sample: str | None = None,
        claim: Claim | None = None,
    ) -> int:
        """:meth:`add_human_score` inside the caller's write transaction (a lead's reject writes
        its adjudication and the review that names it in one)."""
        if kind not in KINDS:
            raise UserError(f"unknown score kind {kind!r}")
        if score is None and kind != "undo":
            raise UserError("only an undo may carry no score")
        signed = self.roles.sign(conn, reviewer, "lead" if kind == "adjudication" else None)
        item = conn.execute(select(col(Item.rubric_ref), col(Item.revision)).where(col(Item.pk) == item_pk)).first()
        if item is None:
            raise UserError(f"no item with key {item_pk}")
        if claim is not None:
            other = claimed_since(conn, claim)
            if other is not None:
                raise UserError(f"{claim.item_id}: your lease ran out and {other} has claimed the item since, "
                                "so this score was not stored; open the item from the queue again to score it")
        if score is not None:
            dim = self.rubrics.get_rubric(item[0]).dimension(dimension)
            if not dim.scale.contains(score):
                raise UserError(f"{score:g} is off {dimension}'s scale {dim.scale.min:g}–{dim.scale.max:g}")
        result = conn.execute(table_of(HumanScore).insert().values(
            item_pk=item_pk, revision=item[1], dimension=dimension, reviewer=reviewer, score=score,
            reason=reason, tags=list(tags), blind=blind, kind=kind, judge_score_pk=judge_score_id,
            sample=sample, **signed))
        # an undo may un-complete a review; people's score moved, so may the judge–people gap
        refresh_coverage(conn, self.rubrics.get_rubric(item[0]), item_pk, item[1])
        rubric = self.rubrics.get_rubric(item[0])
        if any(d.id == dimension and d.method == "human" for d in rubric.dimensions):
            # only people score it: the judge's overall in the queue counts their score too
            self.runs.refresh_summaries(conn, rubric.ref, {item_pk})
        return inserted_pk(result)

    def human_rows(self, item_pk: int) -> list[HumanRecord]:
        """Every human row of an item, oldest first."""
        with self.db.read() as conn:
            rows = records(conn, select(HumanScore).where(col(HumanScore.item_pk) == item_pk)
                           .order_by(col(HumanScore.pk)))
        return [_human(r) for r in rows]

    def add_pair_choice(self, item_pk: int, reviewer: str, winner_item_pk: int | None,
                        reason: str | None = None, tags: Iterable[str] = (),
                        partner_pk: int | None = None) -> int:
        """Record that ``reviewer`` prefers ``winner_item_pk`` (None: a tie) of ``item_pk`` and
        ``partner_pk``, two items of one group (``partner_pk`` may be left out in a group of
        two); ``reason`` and ``tags`` say why."""
        tags = [str(t) for t in tags]
        with self.db.write() as conn:
            signed = self.roles.sign(conn, reviewer)
            row = conn.execute(select(col(Item.grp), col(Item.rubric_ref)).where(col(Item.pk) == item_pk)).first()
            if row is None:
                raise UserError(f"no item with key {item_pk}")
            grp, ref = row
            if grp is None:
                raise UserError(f"item {item_pk} has no group: there is no pair to choose from")
            members = _members(conn, ref, [grp])[grp]
            if winner_item_pk is not None and winner_item_pk not in members:
                raise UserError(f"item {winner_item_pk} is not in group {grp!r}")
            if partner_pk is None:
                others = [pk for pk in members if pk != item_pk]
                if len(others) != 1:
                    raise UserError(f"group {grp!r} has {len(members)} items: name the partner the choice was made on")
                partner_pk = others[0]
            if partner_pk == item_pk or partner_pk not in members:
                raise UserError(f"item {partner_pk} is not another item of group {grp!r}")
            if winner_item_pk is not None and winner_item_pk not in (item_pk, partner_pk):
                raise UserError(f"item {winner_item_pk} is not one of the pair compared ({item_pk}, {partner_pk})")
            a, b = sorted((item_pk, partner_pk))
            result = conn.execute(table_of(PairChoice).insert().values(
                grp=grp, rubric_ref=ref, reviewer=reviewer, winner_item_pk=winner_item_pk, reason=reason or None,
                tags=tags, item_a_pk=a, item_b_pk=b, revision=_group_revision(conn, ref, grp), **signed))
            return inserted_pk(result)

    def pair_choice_rows(self, rubric_ref: str, group: str | None = None,
                         all_revisions: bool = False) -> list[PairChoiceRecord]:
        """Each reviewer's current choice on each pair (their latest row for it), oldest first.
        Choices made before any item of the group changed are left out unless ``all_revisions``."""
        q = select(PairChoice).where(col(PairChoice.rubric_ref) == rubric_ref)
        if group is not None:
            q = q.where(col(PairChoice.grp) == group)
        latest: dict[tuple[str, int, int, str], PairChoiceRecord] = {}
        with self.db.read() as conn:
            rows = records(conn, q.order_by(col(PairChoice.pk)))
            groups = sorted({r.grp for r in rows})
            current = {} if all_revisions else {g: _group_revision(conn, rubric_ref, g) for g in groups}
            first = {g: m[:2] for g, m in _members(conn, rubric_ref, groups).items()}
            for r in rows:
                if not all_revisions and r.revision != current[r.grp]:
                    continue
                if r.item_a_pk is not None and r.item_b_pk is not None:
                    a, b = r.item_a_pk, r.item_b_pk
                elif len(first.get(r.grp, [])) == 2:  # from before pairs were named: the first pair
                    a, b = sorted(first[r.grp])
                else:
                    continue
                latest[(r.grp, a, b, r.reviewer)] = PairChoiceRecord(
                    r.pk, r.grp, r.reviewer, a, b, r.winner_item_pk, r.reason, tuple(r.tags or ()), r.created_at,
                    r.kind)
        return sorted(latest.values(), key=lambda c: c.pk)

    def pair_choices(self, rubric_ref: str, group: str | None = None,
                     all_revisions: bool = False) -> dict[str, dict[str, int | None]]:
        """Per group, each reviewer's latest choice on any of its pairs: the winner's item key, or
        None for a tie (in a group of two, their choice on the pair)."""
        out: dict[str, dict[str, int | None]] = {}
        for c in self.pair_choice_rows(rubric_ref, group, all_revisions):  # oldest first: later rows win
            out.setdefault(c.group, {})[c.reviewer] = c.winner_item_pk
        return out

    def pair_choices_by_item(self, rubric_refs: Iterable[str]) -> dict[int, list[PairChoiceExport]]:
        """For the export: per item key, the current choices on the pairs it is in, as
        ``{reviewer, partner, winner, reason, tags, created_at, kind}`` (``partner`` and ``winner``
        are item ids, ``winner`` null for a tie; ``created_at`` ISO 8601, UTC; ``kind``
        ``choice`` when made in the review screen, ``import`` when an item file carried it)."""
        choices = [c for ref in sorted(set(rubric_refs)) for c in self.pair_choice_rows(ref)]
        pks = sorted({pk for c in choices for pk in (c.item_a_pk, c.item_b_pk)})
        with self.db.read() as conn:
            ids = item_ids(conn, pks)
        out: dict[int, list[PairChoiceExport]] = {}
        for c in choices:
            for me, other in ((c.item_a_pk, c.item_b_pk), (c.item_b_pk, c.item_a_pk)):
                out.setdefault(me, []).append({
                    "reviewer": c.reviewer, "partner": ids.get(other),
                    "winner": None if c.winner_item_pk is None else ids.get(c.winner_item_pk),
                    "reason": c.reason, "tags": list(c.tags),
                    "created_at": iso(c.created_at), "kind": c.kind})
        return out

    def group_overalls(self, rubric_ref: str) -> dict[str, list[tuple[int, str | None, float | None]]]:
        """Per group of the rubric, its items as (key, variant, judge overall), by variant."""
        out: dict[str, list[tuple[int, str | None, float | None]]] = {}
        with self.db.read() as conn:
            rows = conn.execute(
                select(col(Item.grp), col(Item.pk), col(Item.variant), col(Item.judge_overall))
                .where(col(Item.rubric_ref) == rubric_ref, col(Item.grp).is_not(None))
                .order_by(col(Item.grp), col(Item.variant), col(Item.pk)))
            for grp, pk, variant, overall in rows:
                if grp is None:  # the query leaves ungrouped items out
                    continue
                out.setdefault(grp, []).append((pk, variant, overall))
        return out

    def add_reveal(self, item_pk: int, reviewer: str) -> int:
        """Append ``reviewer``'s reveal of the judge on the item's current revision (durable when
        this returns); its key."""
        with self.db.write() as conn:
            signed = self.roles.sign(conn, reviewer)
            result = conn.execute(table_of(ItemReveal).insert().values(
                item_pk=item_pk, revision=current_revision(conn, item_pk), reviewer=reviewer, **signed))
            return inserted_pk(result)

    def revealed(self, item_pk: int, reviewer: str) -> bool:
        """Whether ``reviewer`` has revealed the judge on the item's current revision (False for
        an item that is not there)."""
        with self.db.read() as conn:
            try:
                revision = current_revision(conn, item_pk)
            except UserError:
                return False
            return revealed_to(conn, item_pk, revision, reviewer)

    def correction_scores(self, rubric_ref: str) -> tuple[dict[str, dict[int, tuple[float | None, float | None]]], set[int]]:
        """Learning from corrections, before and after: per dimension and item, the judge's
        latest score made with no human example in its prompt and the latest made with some
        (any model); and the items whose human scores served as examples (the judge saw their
        answer, so a comparison leaves them out)."""
        ref = self.rubrics.get_rubric(rubric_ref).ref
        out: dict[str, dict[int, tuple[float | None, float | None]]] = {}
        example_pks: set[int] = set()
        with self.db.read() as conn:
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


def _human(h: SimpleNamespace) -> HumanRecord:
    return HumanRecord(h.pk, h.dimension, h.reviewer, h.score, h.reason, list(h.tags or []),
                       bool(h.blind), h.kind, h.sample, h.created_at)


def _latest_judges(jrows: Iterable[SimpleNamespace], revision: int) -> dict[str, dict[tuple[str | None, int | None], JudgeRecord]]:
    """The judge rows on content ``revision``, per dimension and (model, turn): rows oldest first,
    so a later row wins and each (model, turn) keeps its latest run."""
    judge: dict[str, dict[tuple[str | None, int | None], JudgeRecord]] = {}
    for j in jrows:
        if revision_of(j, revision) == revision:
            judge.setdefault(j.dimension, {})[(j.model, j.turn)] = _judge(j)
    return judge


def _judge(j: SimpleNamespace) -> JudgeRecord:
    return JudgeRecord(j.pk, j.run_pk, j.dimension, j.model, j.method, j.score, list(j.samples or []),
                       j.std, j.rationale or "", list(j.evidence or []), j.confidence, j.error,
                       j.raw_reply, j.turn, bool(j.not_applicable))
