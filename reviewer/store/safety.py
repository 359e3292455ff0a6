"""Safety flags and decisions. Both are history: a flag row is never changed; its status is the
outcome its latest decision recorded (:mod:`reviewer.store.flagsql`), as
:func:`reviewer.domain.safety.safety_status` folds the decisions — where a person is the login
that wrote a decision, not the reviewer name it was signed with (one person under two names is
one sign-off)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, literal_column, select, text, update

from reviewer.domain.safety import safety_status
from reviewer.errors import UserError
from reviewer.store.base import records
from reviewer.store.flagsql import UNSETTLED, WAITING, flag_status, status_in
from reviewer.store.queue import refresh_triage_keys
from reviewer.store.roles import RolesMixin
from reviewer.store.tables import Item, Reviewer, SafetyDecision, SafetyFlag
from reviewer.store.views import FlagRecord

DECISIONS = {"clear": "cleared", "escalate": "escalated", "confirm": "confirmed"}


class SafetyMixin(RolesMixin):
    """The safety queue's flags and the decisions on them."""

    def _flags(self, conn: Any, item_pks: list[int] | None, only_open: bool = False) -> list[FlagRecord]:
        q = select(SafetyFlag, Item.item_id.label("item_id"), Item.output.label("output"),  # type: ignore[attr-defined]
                   Item.rubric_ref.label("rubric_ref"), literal_column(flag_status()).label("current")).join(
            Item, Item.pk == SafetyFlag.item_pk)
        if item_pks is not None:
            q = q.where(SafetyFlag.item_pk.in_(item_pks))  # type: ignore[attr-defined]
        if only_open:
            q = q.where(text(status_in(WAITING)))
        rows = records(conn, q.order_by(SafetyFlag.pk))
        pks = [f.pk for f in rows]
        decisions: dict[int, list[tuple[str, str, str]]] = {}
        if pks:
            for d in records(conn, select(SafetyDecision).where(SafetyDecision.flag_pk.in_(pks))  # type: ignore[attr-defined]
                             .order_by(SafetyDecision.pk)):
                decisions.setdefault(d.flag_pk, []).append((d.reviewer, d.decision, d.reason))
        return [FlagRecord(f.pk, f.item_pk, f.item_id, f.gate, f.detector, f.start, f.end, f.matched,
                           f.context, f.current, f.output, decisions.get(f.pk, []), f.rubric_ref) for f in rows]

    def open_flags(self, rubric_ref: str | None = None) -> list[FlagRecord]:
        """Flags still waiting for a safety decision (open or escalated)."""
        with self.read() as conn:
            flags = self._flags(conn, None, only_open=True)
            if rubric_ref:
                keep = set(conn.execute(select(Item.pk).where(Item.rubric_ref == rubric_ref)).scalars())
                flags = [f for f in flags if f.item_pk in keep]
        return flags

    def flag_item(self, item_pk: int, reviewer: str, reason: str = "flagged by a reviewer") -> int:
        """A reviewer sends an item to the safety queue (a flag with detector ``human``). One
        waiting reviewer flag per item and person: a second is refused."""
        with self.write() as conn:
            self._sign(conn, reviewer)
            mine = conn.execute(select(SafetyFlag.pk).where(
                SafetyFlag.item_pk == item_pk, SafetyFlag.detector == f"human:{reviewer}",
                text(status_in(WAITING)))).first()
            if mine is not None:
                raise UserError(f"you have already flagged this item (flag {mine[0]}); "
                                "undo it or wait for the safety decision")
            res = conn.execute(SafetyFlag.__table__.insert().values(  # type: ignore[attr-defined]
                item_pk=item_pk, gate="reviewer_flag", detector=f"human:{reviewer}", matched="",
                context=reason))
            conn.execute(update(Item).where(Item.pk == item_pk).values(flagged=True))
            refresh_triage_keys(conn, "pk = :pk", {"pk": item_pk})
            return int(res.inserted_primary_key[0])

    def withdraw_flag(self, flag_id: int, reviewer: str) -> str:
        """The reviewer who raised a reviewer flag takes it back (an undo) before any safety
        decision: recorded as a ``withdraw`` decision, never deleted."""
        with self.write() as conn:
            signed = self._sign(conn, reviewer)
            row = conn.execute(select(SafetyFlag.item_pk, SafetyFlag.detector).where(SafetyFlag.pk == flag_id)).first()
            if row is None or row[1] != f"human:{reviewer}":
                raise UserError(f"flag {flag_id} is not a flag you raised")
            if conn.execute(select(SafetyDecision.pk).where(SafetyDecision.flag_pk == flag_id)).first():
                raise UserError(f"flag {flag_id} already has a safety decision; it can no longer be withdrawn")
            return self._decide(conn, flag_id, row[0], 1, reviewer, "withdraw", "withdrawn by the flagger", signed)

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
            row = conn.execute(select(SafetyFlag.item_pk, Item.rubric_ref).join(Item, Item.pk == SafetyFlag.item_pk)
                               .where(SafetyFlag.pk == flag_id)).first()
            if row is None:
                raise UserError(f"no safety flag {flag_id}")
            needed = self.get_rubric(row[1]).review.safety_signoffs
            return self._decide(conn, flag_id, row[0], needed, reviewer, decision, reason.strip(), signed)

    def _decide(self, conn: Any, flag_id: int, item_pk: int, needed: int, reviewer: str, decision: str,
                reason: str, signed: dict[str, Any]) -> str:
        """Append the decision with the flag's status after it (the domain's fold of every
        decision, people being logins), and refresh the item's flagged mark."""
        status = safety_status([*_people(conn, flag_id), (signed["actor"], decision)], needed).state
        conn.execute(SafetyDecision.__table__.insert().values(  # type: ignore[attr-defined]
            flag_pk=flag_id, reviewer=reviewer, decision=decision, reason=reason, outcome=status, **signed))
        still_open = conn.execute(select(SafetyFlag.pk).where(
            SafetyFlag.item_pk == item_pk, text(status_in(UNSETTLED)))).first()
        conn.execute(update(Item).where(Item.pk == item_pk).values(flagged=still_open is not None))
        refresh_triage_keys(conn, "pk = :pk", {"pk": item_pk})
        return status


def _people(conn: Any, flag_id: int) -> list[tuple[str, str]]:
    """The flag's decisions, oldest first, as (person, decision): the person is the row's actor
    (the login that wrote it), else the login the name is bound to, else the name (rows from
    before actors were recorded)."""
    who = func.coalesce(SafetyDecision.actor, Reviewer.login, SafetyDecision.reviewer)
    q = (select(who, SafetyDecision.decision).select_from(SafetyDecision)
         .join(Reviewer, Reviewer.name == SafetyDecision.reviewer, isouter=True)
         .where(SafetyDecision.flag_pk == flag_id).order_by(SafetyDecision.pk))
    return [(str(p), str(d)) for p, d in conn.execute(q)]
