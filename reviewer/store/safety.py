"""Safety flags and decisions. Both are history: a flag row is never changed; its status is
derived from its decisions by :mod:`reviewer.domain.safety`, where a person is the login that
wrote a decision (its ``actor``), not the reviewer name it was signed with — one person under two
names is one sign-off."""

from __future__ import annotations

from collections.abc import Iterable
from types import SimpleNamespace
from typing import TypeVarTuple

from sqlalchemy import ColumnElement, Connection, Select, func, select
from sqlmodel import col

from reviewer.domain import revision_of
from reviewer.domain.safety import WAITING
from reviewer.errors import StaleFlag, UserError
from reviewer.store.base import inserted_pk, records
from reviewer.store.db import Db
from reviewer.store.roles import Roles
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.tables import Item, Reviewer, SafetyDecision, SafetyFlag, table_of
from reviewer.store.views import FlagRecord

Ts = TypeVarTuple("Ts")

DECISIONS = {"clear": "cleared", "escalate": "escalated", "confirm": "confirmed"}


def decision_person() -> ColumnElement[str]:
    """The person behind a ``safety_decision`` row (select it with :func:`with_reviewer`): the
    login that wrote it, else the login its name is bound to, else the name (older rows)."""
    return func.coalesce(col(SafetyDecision.actor), col(Reviewer.login), col(SafetyDecision.reviewer))


def with_reviewer(q: Select[*Ts]) -> Select[*Ts]:
    """``q`` (selecting from ``safety_decision``) joined to the reviewer its name names."""
    return q.join(Reviewer, col(Reviewer.name) == col(SafetyDecision.reviewer), isouter=True)


class Safety:
    """The safety queue's flags and the decisions on them."""

    def __init__(self, db: Db, rubrics: Rubrics, roles: Roles) -> None:
        self.db = db
        self.rubrics = rubrics
        self.roles = roles

    def flags(self, conn: Connection, item_pks: list[int] | None, only_pending: bool = False) -> list[FlagRecord]:
        """Flags with their decisions and their status derived from them (:mod:`reviewer.domain.safety`);
        flags of an item's earlier content revisions are left out."""
        from reviewer.domain import DecisionRow, FlagRow, flag_status

        q: Select[SafetyFlag, str, str, str, int, object] = select(
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
        decisions: dict[int, list[SimpleNamespace]] = {}
        if pks:
            dq = with_reviewer(select(SafetyDecision, decision_person().label("person")).select_from(SafetyDecision))
            for d in records(conn, dq.where(col(SafetyDecision.flag_pk).in_(pks)).order_by(col(SafetyDecision.pk))):
                decisions.setdefault(d.flag_pk, []).append(d)
        out = []
        for f in rows:
            ds = decisions.get(f.pk, [])
            state = flag_status(FlagRow(f.pk, f.gate, f.detector),
                                [DecisionRow(d.pk, d.flag_pk, d.person, d.decision) for d in ds],
                                self.rubrics.get_rubric(f.rubric_ref).review.safety_signoffs)
            if only_pending and state.status not in WAITING:
                continue
            out.append(FlagRecord(f.pk, f.item_pk, f.item_id, f.gate, f.detector, f.start, f.end, f.matched,
                                  f.context, state.status, f.output, [(d.reviewer, d.decision, d.reason) for d in ds],
                                  f.rubric_ref, state.signoffs, f.conversation))
        return out

    def open_flags(self, rubric_ref: str | None = None) -> list[FlagRecord]:
        """Flags still waiting for a safety decision (open or escalated)."""
        with self.db.read() as conn:
            flags = self.flags(conn, None, only_pending=True)
            if rubric_ref:
                keep = set(conn.execute(select(col(Item.pk)).where(col(Item.rubric_ref) == rubric_ref)).scalars())
                flags = [f for f in flags if f.item_pk in keep]
        return flags

    def flag_item(self, item_pk: int, reviewer: str, reason: str = "flagged by a reviewer") -> int:
        """A reviewer sends an item to the safety queue (a flag with detector ``human``). One
        waiting reviewer flag per item and person: a second is refused."""
        with self.db.write() as conn:
            signed = self.roles.sign(conn, reviewer)
            rev = conn.execute(select(col(Item.revision)).where(col(Item.pk) == item_pk)).scalar()
            if rev is None:
                raise UserError(f"no item with key {item_pk}")
            mine = next((f.pk for f in self.flags(conn, [item_pk], only_pending=True)
                         if f.detector == f"human:{reviewer}"), None)
            if mine is not None:
                raise UserError(f"you have already flagged this item (flag {mine}); "
                                "undo it or wait for the safety decision")
            values: dict[str, object] = dict(item_pk=item_pk, gate="reviewer_flag", detector=f"human:{reviewer}",
                                          matched="", context=reason, via=signed["via"])
            if hasattr(SafetyFlag, "revision"):
                values["revision"] = rev
            res = conn.execute(table_of(SafetyFlag).insert().values(**values))
            self.refresh_safety(conn, [item_pk])
            return inserted_pk(res)

    def withdraw_flag(self, flag_id: int, reviewer: str) -> str:
        """The reviewer who raised a reviewer flag takes it back (an undo) before any safety
        decision: recorded as a ``withdraw`` decision, never deleted."""
        with self.db.write() as conn:
            signed = self.roles.sign(conn, reviewer)
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
        with self.db.write() as conn:
            signed = self.roles.sign(conn, reviewer, "safety")
            row = conn.execute(select(col(SafetyFlag.item_pk)).where(col(SafetyFlag.pk) == flag_id)).first()
            if row is None:
                raise UserError(f"no safety flag {flag_id}")
            self._refuse_stale(conn, flag_id, row[0])
            conn.execute(table_of(SafetyDecision).insert().values(
                flag_pk=flag_id, reviewer=reviewer, decision=decision, reason=reason.strip(), **signed))
            return self._settle_flag(conn, flag_id, row[0])

    def _refuse_stale(self, conn: Connection, flag_id: int, item_pk: int) -> None:
        """A flag raised on an earlier content revision no longer applies: deciding it is refused."""
        if not any(f.pk == flag_id for f in self.flags(conn, [item_pk])):
            raise StaleFlag(flag_id)

    def _settle_flag(self, conn: Connection, flag_id: int, item_pk: int) -> str:
        """The item's derived safety status onto its row (``safety_flag.status`` is never
        updated); returns the flag's status as :mod:`reviewer.domain.safety` derives it."""
        self.refresh_safety(conn, [item_pk])
        return next(f.status for f in self.flags(conn, [item_pk]) if f.pk == flag_id)

    def refresh_safety(self, conn: Connection, item_pks: Iterable[int]) -> None:
        """Write the items' derived safety status (and ``flagged``: the cap applies) onto their rows."""
        from sqlalchemy import update

        from reviewer.domain import item_safety
        from reviewer.store.fold import item_rows
        from reviewer.store.queue import refresh_triage_keys

        pks = sorted(set(item_pks))
        if not pks:
            return
        items = conn.execute(select(col(Item.pk), col(Item.revision), col(Item.rubric_ref)).where(col(Item.pk).in_(pks))).all()
        rows = item_rows(conn, [(pk, rev) for pk, rev, _ in items])
        for pk, _, ref in items:
            r = rows[pk]
            state = item_safety([f for f in r.flags if f.revision == r.revision], r.decisions,
                                self.rubrics.get_rubric(ref).review.safety_signoffs)
            conn.execute(update(Item).where(col(Item.pk) == pk).values(safety=state.status, flagged=state.capped))
        refresh_triage_keys(conn, "pk IN (" + ",".join(str(int(p)) for p in pks) + ")", {})

    def flagged_items(self, rubric_ref: str) -> set[int]:
        """Keys of the rubric's items that have a safety flag (of any revision, whatever its status)."""
        from reviewer.store.tables import SafetyFlag

        ref = self.rubrics.get_rubric(rubric_ref).ref
        q = (select(col(SafetyFlag.item_pk)).distinct().join(Item, col(Item.pk) == col(SafetyFlag.item_pk))
             .where(col(Item.rubric_ref) == ref))
        with self.db.read() as conn:
            return {int(pk) for pk in conn.execute(q).scalars()}
