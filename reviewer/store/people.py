"""Reviewers, human scores, safety decisions and the item view (the store's human side)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import select, update

from reviewer.domain import revision_of
from reviewer.domain.safety import WAITING
from reviewer.errors import UserError
from reviewer.store.base import StoreBase, records
from reviewer.store.tables import HumanScore, Item, JudgeScore, Reviewer, SafetyDecision, SafetyFlag
from reviewer.store.views import FlagRecord, HumanRecord, ItemView, JudgeRecord

ROLES = ("reviewer", "safety", "lead")
KINDS = ("score", "agree", "revision", "undo", "adjudication", "import")
DECISIONS = {"clear": "cleared", "escalate": "escalated", "confirm": "confirmed"}


class PeopleMixin(StoreBase):
    """The human side of the store."""

    def add_reviewer(self, name: str, role: str = "reviewer") -> set[str]:
        """Give ``name`` a role (a person may hold several); returns their roles."""
        if role not in ROLES:
            raise UserError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
        with self.write() as conn:
            row = conn.execute(select(Reviewer.roles).where(Reviewer.name == name)).first()
            if row is None:
                conn.execute(Reviewer.__table__.insert().values(name=name, roles=role))  # type: ignore[attr-defined]
                return {role}
            roles = set(row[0].split(",")) | {role}
            conn.execute(update(Reviewer).where(Reviewer.name == name).values(roles=",".join(sorted(roles))))
            return roles

    def reviewer_roles(self, name: str) -> set[str]:
        """The roles ``name`` holds (empty if unknown)."""
        with self.read() as conn:
            row = conn.execute(select(Reviewer.roles).where(Reviewer.name == name)).first()
        return set(row[0].split(",")) if row else set()

    def add_human_score(
        self, item_pk: int, dimension: str, reviewer: str, score: float | None,
        reason: str | None = None, tags: Iterable[str] = (), blind: bool = False,
        judge_score_id: int | None = None, kind: str = "score", sample: str | None = None,
    ) -> int:
        """Append one human score; it is durable when this returns. Undo is ``score=None``."""
        if kind not in KINDS:
            raise UserError(f"unknown score kind {kind!r}")
        if score is None and kind != "undo":
            raise UserError("only an undo may carry no score")
        with self.write() as conn:
            item = conn.execute(select(Item.rubric_ref).where(Item.pk == item_pk)).first()
            if item is None:
                raise UserError(f"no item with key {item_pk}")
            if score is not None:
                dim = self.get_rubric(item[0]).dimension(dimension)
                if not dim.scale.contains(score):
                    raise UserError(f"{score:g} is off {dimension}'s scale {dim.scale.min:g}–{dim.scale.max:g}")
            result = conn.execute(HumanScore.__table__.insert().values(  # type: ignore[attr-defined]
                item_pk=item_pk, dimension=dimension, reviewer=reviewer, score=score, reason=reason,
                tags=list(tags), blind=blind, kind=kind, judge_score_pk=judge_score_id, sample=sample))
            return int(result.inserted_primary_key[0])

    def human_rows(self, item_pk: int) -> list[HumanRecord]:
        """Every human row of an item, oldest first."""
        with self.read() as conn:
            rows = records(conn, select(HumanScore).where(HumanScore.item_pk == item_pk)
                           .order_by(HumanScore.pk))
        return [_human(r) for r in rows]

    def item_view(self, item_pk: int, viewer: str | None = None) -> ItemView:
        """The item with its judge records, current human scores, safety flags and its fold (the
        state every view reads, from every row whoever the viewer is).

        Peers' scores on a dimension stay hidden from ``viewer`` until the viewer has scored it.
        """
        from reviewer.domain import fold_item
        from reviewer.store.fold import item_rows

        with self.read() as conn:
            found = records(conn, select(Item).where(Item.pk == item_pk))
            if not found:
                raise UserError(f"no item with key {item_pk}")
            it = found[0]
            jrows = records(conn, select(JudgeScore).where(JudgeScore.item_pk == item_pk)
                            .order_by(JudgeScore.pk))
            hrows = records(conn, select(HumanScore).where(HumanScore.item_pk == item_pk)
                            .order_by(HumanScore.pk))
            rows = item_rows(conn, [(it.pk, it.revision)])[it.pk]
        rubric = self.get_rubric(it.rubric_ref)
        fold = fold_item(rubric, rows)
        judge: dict[str, dict[Any, JudgeRecord]] = {}
        for j in jrows:  # later rows win: the latest run per (dimension, model, turn)
            if revision_of(j) == it.revision:
                judge.setdefault(j.dimension, {})[(j.model, j.turn)] = _judge(j)
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
            history=[_human(h) for h in hrows if h.reviewer == viewer and revision_of(h) == it.revision],
            flags=flags, fold=fold,
        )

    def group_items(self, item_pk: int) -> list[int]:
        """Keys of the items sharing this item's group (itself included), by variant."""
        with self.read() as conn:
            it = conn.execute(select(Item.grp, Item.rubric_ref).where(Item.pk == item_pk)).first()
            if it is None or it[0] is None:
                return [item_pk]
            rows = conn.execute(select(Item.pk).where(Item.grp == it[0], Item.rubric_ref == it[1])
                                .order_by(Item.variant, Item.pk)).scalars().all()
        return list(rows)

    # --- safety -----------------------------------------------------------------------------
    def _flags(self, conn: Any, item_pks: list[int] | None, only_pending: bool = False) -> list[FlagRecord]:
        """Flags with their decisions and their status derived from them (:mod:`reviewer.domain.safety`);
        flags of an item's earlier content revisions are left out."""
        from reviewer.domain import DecisionRow, FlagRow, flag_status

        q = select(SafetyFlag, Item.item_id.label("item_id"), Item.output.label("output"),  # type: ignore[attr-defined]
                   Item.rubric_ref.label("rubric_ref"), Item.revision.label("item_revision")).join(  # type: ignore[attr-defined]
            Item, Item.pk == SafetyFlag.item_pk)
        if item_pks is not None:
            q = q.where(SafetyFlag.item_pk.in_(item_pks))  # type: ignore[attr-defined]
        if only_pending:
            q = q.where(Item.safety.in_(WAITING))  # type: ignore[attr-defined]
        rows = [f for f in records(conn, q.order_by(SafetyFlag.pk)) if revision_of(f) == f.item_revision]
        pks = [f.pk for f in rows]
        decisions: dict[int, list[Any]] = {}
        if pks:
            for d in records(conn, select(SafetyDecision).where(SafetyDecision.flag_pk.in_(pks))  # type: ignore[attr-defined]
                             .order_by(SafetyDecision.pk)):
                decisions.setdefault(d.flag_pk, []).append(d)
        out = []
        for f in rows:
            ds = decisions.get(f.pk, [])
            state = flag_status(FlagRow(f.pk, f.gate, f.detector),
                                [DecisionRow(d.pk, d.flag_pk, d.reviewer, d.decision) for d in ds],
                                self.get_rubric(f.rubric_ref).review.safety_signoffs)
            if only_pending and state.status not in WAITING:
                continue
            out.append(FlagRecord(f.pk, f.item_pk, f.item_id, f.gate, f.detector, f.start, f.end, f.matched,
                                  f.context, state.status, f.output, [(d.reviewer, d.decision, d.reason) for d in ds],
                                  f.rubric_ref, state.signoffs))
        return out

    def open_flags(self, rubric_ref: str | None = None) -> list[FlagRecord]:
        """Flags still waiting for a safety decision (open or escalated)."""
        with self.read() as conn:
            flags = self._flags(conn, None, only_pending=True)
            if rubric_ref:
                keep = set(conn.execute(select(Item.pk).where(Item.rubric_ref == rubric_ref)).scalars())
                flags = [f for f in flags if f.item_pk in keep]
        return flags

    def flag_item(self, item_pk: int, reviewer: str, reason: str = "flagged by a reviewer") -> int:
        """A reviewer sends an item to the safety queue (a flag with detector ``human``). One
        waiting reviewer flag per item and person: a second is refused."""
        with self.write() as conn:
            rev = conn.execute(select(Item.revision).where(Item.pk == item_pk)).scalar()
            if rev is None:
                raise UserError(f"no item with key {item_pk}")
            mine = next((f.pk for f in self._flags(conn, [item_pk], only_pending=True)
                         if f.detector == f"human:{reviewer}"), None)
            if mine is not None:
                raise UserError(f"you have already flagged this item (flag {mine}); "
                                "undo it or wait for the safety decision")
            values: dict[str, Any] = dict(item_pk=item_pk, gate="reviewer_flag", detector=f"human:{reviewer}",
                                          matched="", context=reason)
            if hasattr(SafetyFlag, "revision"):
                values["revision"] = rev
            res = conn.execute(SafetyFlag.__table__.insert().values(**values))  # type: ignore[attr-defined]
            self._refresh_safety(conn, [item_pk])  # type: ignore[attr-defined]
            return int(res.inserted_primary_key[0])

    def withdraw_flag(self, flag_id: int, reviewer: str) -> str:
        """The reviewer who raised a reviewer flag takes it back (an undo) before any safety
        decision: recorded as a ``withdraw`` decision, never deleted."""
        with self.write() as conn:
            row = conn.execute(select(SafetyFlag.item_pk, SafetyFlag.detector).where(SafetyFlag.pk == flag_id)).first()
            if row is None or row[1] != f"human:{reviewer}":
                raise UserError(f"flag {flag_id} is not a flag you raised")
            if conn.execute(select(SafetyDecision.pk).where(SafetyDecision.flag_pk == flag_id)).first():
                raise UserError(f"flag {flag_id} already has a safety decision; it can no longer be withdrawn")
            conn.execute(SafetyDecision.__table__.insert().values(  # type: ignore[attr-defined]
                flag_pk=flag_id, reviewer=reviewer, decision="withdraw", reason="withdrawn by the flagger"))
            return self._settle_flag(conn, flag_id, row[0])

    def add_safety_decision(self, flag_id: int, reviewer: str, decision: str, reason: str) -> str:
        """Record a decision (role ``safety`` and a reason required); returns the flag's status.

        The status follows :func:`reviewer.domain.safety.safety_status`: sign-offs are distinct
        people, whoever escalated cannot be the only one who clears, escalated never reverts to open.
        """
        if decision not in DECISIONS:
            raise UserError(f"unknown decision {decision!r}; use clear, escalate or confirm")
        if not reason or not reason.strip():
            raise UserError("a safety decision needs a reason")
        if "safety" not in self.reviewer_roles(reviewer):
            raise UserError(f"{reviewer} does not hold the safety role; "
                            f"`rubricate reviewer add {reviewer} --role safety` grants it")
        with self.write() as conn:
            row = conn.execute(select(SafetyFlag.item_pk).where(SafetyFlag.pk == flag_id)).first()
            if row is None:
                raise UserError(f"no safety flag {flag_id}")
            conn.execute(SafetyDecision.__table__.insert().values(  # type: ignore[attr-defined]
                flag_pk=flag_id, reviewer=reviewer, decision=decision, reason=reason.strip()))
            return self._settle_flag(conn, flag_id, row[0])

    def _settle_flag(self, conn: Any, flag_id: int, item_pk: int) -> str:
        """The item's derived safety status onto its row (``safety_flag.status`` is never
        updated); returns the flag's status as :mod:`reviewer.domain.safety` derives it."""
        self._refresh_safety(conn, [item_pk])  # type: ignore[attr-defined]
        return next(f.status for f in self._flags(conn, [item_pk]) if f.pk == flag_id)


def _human(h: Any) -> HumanRecord:
    return HumanRecord(h.pk, h.dimension, h.reviewer, h.score, h.reason, list(h.tags or []),
                       bool(h.blind), h.kind, h.sample, h.created_at)


def _judge(j: Any) -> JudgeRecord:
    return JudgeRecord(j.pk, j.run_pk, j.dimension, j.model, j.method, j.score, list(j.samples or []),
                       j.std, j.rationale or "", list(j.evidence or []), j.confidence, j.error,
                       j.raw_reply, j.turn, bool(j.not_applicable))
