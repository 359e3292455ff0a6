"""Safety flags and decisions. Both are history: a flag row is never changed; its status is
derived from its decisions by :mod:`reviewer.domain.safety`, where a person is the login that
wrote a decision (its ``actor``), not the reviewer name it was signed with — one person under two
names is one sign-off."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from sqlalchemy import Select, func, select
from sqlmodel import col

from reviewer.domain import revision_of
from reviewer.domain.safety import WAITING
from reviewer.errors import StaleFlag, UserError
from reviewer.store.base import inserted_pk, records
from reviewer.store.roles import RolesMixin
from reviewer.store.tables import Item, Reviewer, SafetyDecision, SafetyFlag, table_of
from reviewer.store.views import FlagRecord

DECISIONS = {"clear": "cleared", "escalate": "escalated", "confirm": "confirmed"}


def decision_person() -> Any:
    """The person behind a ``safety_decision`` row (select it with :func:`with_reviewer`): the
    login that wrote it, else the login its name is bound to, else the name (older rows)."""
    return func.coalesce(col(SafetyDecision.actor), col(Reviewer.login), col(SafetyDecision.reviewer))


def with_reviewer(q: Any) -> Any:
    """``q`` (selecting from ``safety_decision``) joined to the reviewer its name names."""
    return q.join(Reviewer, col(Reviewer.name) == col(SafetyDecision.reviewer), isouter=True)


class SafetyMixin(RolesMixin):
    """The safety queue's flags and the decisions on them."""

    if TYPE_CHECKING:
        # FoldMixin's (reviewer.store.fold imports this module, so it cannot be a base here);
        # Store has both, and mypy checks there that the two signatures agree.
        def _refresh_safety(self, conn: Any, item_pks: Iterable[int]) -> None: ...

    def _flags(self, conn: Any, item_pks: list[int] | None, only_pending: bool = False) -> list[FlagRecord]:
        """Flags with their decisions and their status derived from them (:mod:`reviewer.domain.safety`);
        flags of an item's earlier content revisions are left out."""
        from reviewer.domain import DecisionRow, FlagRow, flag_status

        q: Select[SafetyFlag, str, str, str, int, Any] = select(
            SafetyFlag, col(Item.item_id).label("item_id"), col(Item.output).label("output"),
            col(Item.rubric_ref).label("rubric_ref"), col(Item.revision).label("item_revision"),
            col(Item.conversation).label("conversation"),
        ).join(Item, col(Item.pk) == col(SafetyFlag.item_pk))
        if item_pks is not None:
            q = q.where(col(SafetyFlag.item_pk).in_(item_pks))
        if only_pending:
            q = q.where(col(Item.safety).in_(WAITING))
        rows = [f for f in records(conn, q.order_by(col(SafetyFlag.pk))) if revision_of(f, f.item_revision) == f.item_revision]
        pks = [f.pk for f in rows]
        decisions: dict[int, list[Any]] = {}
        if pks:
            dq = with_reviewer(select(SafetyDecision, decision_person().label("person")).select_from(SafetyDecision))
            for d in records(conn, dq.where(col(SafetyDecision.flag_pk).in_(pks)).order_by(col(SafetyDecision.pk))):
                decisions.setdefault(d.flag_pk, []).append(d)
        out = []
        for f in rows:
            ds = decisions.get(f.pk, [])
            state = flag_status(FlagRow(f.pk, f.gate, f.detector),
                                [DecisionRow(d.pk, d.flag_pk, d.person, d.decision) for d in ds],
                                self.get_rubric(f.rubric_ref).review.safety_signoffs)
            if only_pending and state.status not in WAITING:
                continue
            out.append(FlagRecord(f.pk, f.item_pk, f.item_id, f.gate, f.detector, f.start, f.end, f.matched,
                                  f.context, state.status, f.output, [(d.reviewer, d.decision, d.reason) for d in ds],
                                  f.rubric_ref, state.signoffs, f.conversation))
        return out

    def open_flags(self, rubric_ref: str | None = None) -> list[FlagRecord]:
        """Flags still waiting for a safety decision (open or escalated)."""
        with self.read() as conn:
            flags = self._flags(conn, None, only_pending=True)
            if rubric_ref:
                keep = set(conn.execute(select(col(Item.pk)).where(col(Item.rubric_ref) == rubric_ref)).scalars())
                flags = [f for f in flags if f.item_pk in keep]
        return flags

    def flag_item(self, item_pk: int, reviewer: str, reason: str = "flagged by a reviewer") -> int:
        """A reviewer sends an item to the safety queue (a flag with detector ``human``). One
        waiting reviewer flag per item and person: a second is refused."""
        with self.write() as conn:
            signed = self._sign(conn, reviewer)
            rev = conn.execute(select(col(Item.revision)).where(col(Item.pk) == item_pk)).scalar()
            if rev is None:
                raise UserError(f"no item with key {item_pk}")
            mine = next((f.pk for f in self._flags(conn, [item_pk], only_pending=True)
                         if f.detector == f"human:{reviewer}"), None)
            if mine is not None:
                raise UserError(f"you have already flagged this item (flag {mine}); "
                                "undo it or wait for the safety decision")
            values: dict[str, Any] = dict(item_pk=item_pk, gate="reviewer_flag", detector=f"human:{reviewer}",
                                          matched="", context=reason, via=signed["via"])
            if hasattr(SafetyFlag, "revision"):
                values["revision"] = rev
            res = conn.execute(table_of(SafetyFlag).insert().values(**values))
            self._refresh_safety(conn, [item_pk])
            return inserted_pk(res)

    def withdraw_flag(self, flag_id: int, reviewer: str) -> str:
        """The reviewer who raised a reviewer flag takes it back (an undo) before any safety
        decision: recorded as a ``withdraw`` decision, never deleted."""
        with self.write() as conn:
            signed = self._sign(conn, reviewer)
            row = conn.execute(select(col(SafetyFlag.item_pk), col(SafetyFlag.detector))
                               .where(col(SafetyFlag.pk) == flag_id)).first()
            if row is None or row[1] != f"human:{reviewer}":
                raise UserError(f"flag {flag_id} is not a flag you raised")
            if conn.execute(select(col(SafetyDecision.pk)).where(col(SafetyDecision.flag_pk) == flag_id)).first():
                raise UserError(f"flag {flag_id} already has a safety decision; it can no longer be withdrawn")
            self._refuse_stale(conn, flag_id, row[0])
            conn.execute(table_of(SafetyDecision).insert().values(
                flag_pk=flag_id, reviewer=reviewer, decision="withdraw", reason="withdrawn by the flagger", **signed))
            return self._settle_flag(conn, flag_id, row[0])

    def add_safety_decision(self, flag_id: int, reviewer: str, decision: str, reason: str) -> str:
        """Record a decision (role ``safety`` and a reason required); returns the flag's status.

        The status follows :func:`reviewer.domain.safety.safety_status`: sign-offs are distinct
        people (logins), whoever escalated cannot be the only one who clears, escalated never
        reverts to open.
        """
        if decision not in DECISIONS:
            raise UserError(f"unknown decision {decision!r}; use clear, escalate or confirm")
        if not reason or not reason.strip():
            raise UserError("a safety decision needs a reason")
        with self.write() as conn:
            signed = self._sign(conn, reviewer, "safety")
            row = conn.execute(select(col(SafetyFlag.item_pk)).where(col(SafetyFlag.pk) == flag_id)).first()
            if row is None:
                raise UserError(f"no safety flag {flag_id}")
            self._refuse_stale(conn, flag_id, row[0])
            conn.execute(table_of(SafetyDecision).insert().values(
                flag_pk=flag_id, reviewer=reviewer, decision=decision, reason=reason.strip(), **signed))
            return self._settle_flag(conn, flag_id, row[0])

    def _refuse_stale(self, conn: Any, flag_id: int, item_pk: int) -> None:
        """A flag raised on an earlier content revision no longer applies: deciding it is refused."""
        if not any(f.pk == flag_id for f in self._flags(conn, [item_pk])):
            raise StaleFlag(flag_id)

    def _settle_flag(self, conn: Any, flag_id: int, item_pk: int) -> str:
        """The item's derived safety status onto its row (``safety_flag.status`` is never
        updated); returns the flag's status as :mod:`reviewer.domain.safety` derives it."""
        self._refresh_safety(conn, [item_pk])
        return next(f.status for f in self._flags(conn, [item_pk]) if f.pk == flag_id)
