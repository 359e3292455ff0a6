"""Queues: one lease per item at a time, several reviewers drawing from one queue.

The lease lives on the item row. PostgreSQL claims with ``FOR UPDATE SKIP LOCKED`` inside an
``UPDATE … RETURNING``, so a concurrent claimer skips the row and, once the lease is written,
re-checks it; SQLite claims inside ``BEGIN IMMEDIATE`` with ``UPDATE … RETURNING``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import (
    ColumnElement,
    Connection,
    Row,
    and_,
    case,
    exists,
    false,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Mapped
from sqlmodel import col

from reviewer.errors import UserError
from reviewer.store.db import Db
from reviewer.store.queue_filter import filter_conditions
from reviewer.store.queue_order import page_rows
from reviewer.store.queue_settings import ANY_RUBRIC, QueueSettings
from reviewer.store.queue_sort_index import use_key_index
from reviewer.store.queue_sql import queue_row, row_columns
from reviewer.store.queue_where import needed, queue_conditions, reviews_of
from reviewer.store.roles import Roles
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.sorting import QueueCursor, QueueOrder
from reviewer.store.tables import (
    Assignment,
    AuditSample,
    HumanScore,
    Item,
    QueueSetting,
    now,
    table_of,
)
from reviewer.store.views import Claim, QueueFilter, QueueRow

if TYPE_CHECKING:
    from reviewer.store.items import Items

#: Each reviewer an item already has moves it this far back in triage: past any urgency and priority.
REVIEWED_STEP = 1_000_000
#: A judge error or an open safety flag moves an item this far forward: past any routing priority.
URGENT_STEP = 100_000
#: Routing priorities lie in 0..PRIORITY_CAP (calibration's come to about a hundred at most):
#: ``set_priorities`` refuses any other, and the key clamps a value written by other means, so
#: no priority reaches into the steps above.
PRIORITY_CAP = 99_999
if not (PRIORITY_CAP < URGENT_STEP and URGENT_STEP + PRIORITY_CAP < REVIEWED_STEP):
    raise ValueError("the triage key's parts overlap: PRIORITY_CAP < URGENT_STEP < REVIEWED_STEP - PRIORITY_CAP")
#: Lower is served first: items already reviewed go last, judge errors and open safety flags
#: first, then higher routing priority. Plain CASE, for both dialects; computed as a double (an
#: integer product overflows PostgreSQL's 32-bit ``n_reviewed`` past 2,147 reviews; a double is
#: exact to 2**53).
TRIAGE_KEY_SQL = (
    f"n_reviewed * {REVIEWED_STEP}.0"
    f" - CASE WHEN n_errors > 0 OR flagged THEN {URGENT_STEP} ELSE 0 END"
    f" - CASE WHEN priority IS NULL THEN 0 WHEN priority > {PRIORITY_CAP} THEN {PRIORITY_CAP}"
    " WHEN priority < 0 THEN 0 ELSE priority END"
)


#: The longest lease, in seconds (a day): a longer one would hide an item from everyone.
MAX_LEASE_SECONDS = 86_400


def refresh_triage_keys(conn: Connection, where_sql: str, params: dict[str, object]) -> None:
    """Recompute the triage key of the items ``where_sql`` selects."""
    from sqlalchemy import text

    conn.execute(text(f"UPDATE item SET triage_key = {TRIAGE_KEY_SQL} WHERE {where_sql}"), params)


class Queue:
    """The store's ``queue`` door: claim, renew, release, skip, complete; routing priorities;
    the list's reads (a page, found by cursor, its counts, the values a filter offers, a
    reviewer's progress); the queues' settings, audit samples and gold items. A lease and its
    assignment are taken and ended with a name the acting login may sign with
    (:meth:`Roles.sign`). (A door is one plain class; the SQL it shares with the list's order
    and conditions is in ``queue_order``, ``queue_where`` and ``queue_sql``.)"""

    def __init__(self, db: Db, rubrics: Rubrics, roles: Roles, items: Items) -> None:
        self.db = db
        self.rubrics = rubrics
        self.roles = roles
        self.items = items

    #: Distinct reviewers each item needs when no queue setting says (``rubricate queue set``).
    reviewers_per_item: int = 1

    def claim_next(self, queue: str, reviewer: str, rubric_ref: str | None = None,
                   dataset: str | None = None, lease_seconds: int = 900,
                   exclude: Collection[int] = ()) -> Claim | None:
        """Lease the next item of ``queue`` to ``reviewer``; None when nothing is left for them.
        ``exclude``: item keys not to serve now (the one the reviewer has open, when the next is
        claimed ahead of time).

        At the queue's gold rate a known-answer item the reviewer has not seen comes instead
        (decided by a draw seeded with the reviewer and their claim count: reproducible, and not
        a pattern a reviewer can see). Gold items are never served otherwise.
        """
        conds = queue_conditions(self.rubrics, queue, rubric_ref, dataset)
        t = now()
        free = or_(col(Item.lease_until).is_(None), col(Item.lease_until) < t, col(Item.lease_reviewer) == reviewer)
        if exclude:
            conds.append(col(Item.pk).not_in(list(exclude)))
        with self.db.write(durable=False) as conn:
            self.roles.sign(conn, reviewer)
            row = None
            if queue != "safety" and self._gold_due(conn, queue, reviewer, rubric_ref):
                seen = exists().where(col(Assignment.item_pk) == col(Item.pk), col(Assignment.reviewer) == reviewer)
                base = queue_conditions(self.rubrics, "triage", rubric_ref, dataset)
                row = self._lease(conn, base + [free, col(Item.is_gold).is_(True), ~seen], [col(Item.pk)],
                                  queue, reviewer, t, lease_seconds)
            if row is None:
                # what this reviewer finished, skipped or left half-scored (in progress: they open
                # it from the queue list to finish) on the item's current content, or reviewed in
                # an import, is not served to them again
                mine = exists().where(col(Assignment.item_pk) == col(Item.pk), col(Assignment.reviewer) == reviewer,
                                      col(Assignment.queue) == queue, col(Assignment.revision) == col(Item.revision),
                                      or_(col(Assignment.state).in_(("done", "skipped")),
                                          (col(Assignment.state) == "active") & (col(Item.lease_reviewer).is_(None)
                                                                            | (col(Item.lease_reviewer) != reviewer))))
                imported = exists().where(col(HumanScore.item_pk) == col(Item.pk), col(HumanScore.reviewer) == reviewer,
                                          col(HumanScore.kind) == "import", col(HumanScore.revision) == col(Item.revision))
                conds += [free, ~mine, ~imported]
                if queue != "safety":
                    conds += [col(Item.is_gold).is_(False), reviews_of(queue) < needed(queue, self.reviewers_per_item)]
                order = [col(Item.triage_key), col(Item.pk)] if queue == "triage" else [col(Item.pk)]
                row = self._lease(conn, conds, order, queue, reviewer, t, lease_seconds)
            if row is None:
                return None
            conn.execute(table_of(Assignment).insert().values(
                item_pk=row[0], queue=queue, reviewer=reviewer, revision=row[3]))
        return Claim(row[0], row[1], queue, reviewer, t + timedelta(seconds=lease_seconds), gold=bool(row[2]))

    def claim_item(self, item_pk: int, queue: str, reviewer: str, lease_seconds: int = 900) -> Claim | None:
        """Lease one given item (the other item of a pair the reviewer has open); None when
        another reviewer holds it."""
        t = now()
        free = or_(col(Item.lease_until).is_(None), col(Item.lease_until) < t, col(Item.lease_reviewer) == reviewer)
        with self.db.write(durable=False) as conn:
            self.roles.sign(conn, reviewer)
            row = self._lease(conn, [col(Item.pk) == item_pk, free], [col(Item.pk)], queue, reviewer, t, lease_seconds)
            if row is None:
                return None
            conn.execute(table_of(Assignment).insert().values(
                item_pk=row[0], queue=queue, reviewer=reviewer, revision=row[3]))
        return Claim(row[0], row[1], queue, reviewer, t + timedelta(seconds=lease_seconds), gold=bool(row[2]))

    def _lease(self, conn: Connection, conds: Sequence[ColumnElement[bool]], order: Sequence[Mapped[float] | Mapped[int]],
               queue: str, reviewer: str, t: datetime, lease_seconds: int) -> Row[int, str, bool, int] | None:
        _check_lease(lease_seconds)
        pick = select(col(Item.pk)).where(and_(*conds)).order_by(*order).limit(1)
        if self.db.dialect == "postgresql":
            pick = pick.with_for_update(skip_locked=True)
        return conn.execute(
            update(Item).where(col(Item.pk) == pick.scalar_subquery())
            .values(lease_reviewer=reviewer, lease_queue=queue, lease_until=t + timedelta(seconds=lease_seconds))
            .returning(col(Item.pk), col(Item.item_id), col(Item.is_gold), col(Item.revision))
        ).first()

    def _gold_due(self, conn: Connection, queue: str, reviewer: str, rubric_ref: str | None) -> bool:
        refs = [self.rubrics.get_rubric(rubric_ref).ref, "*"] if rubric_ref else ["*"]
        rates = dict(conn.execute(select(col(QueueSetting.rubric_ref), col(QueueSetting.gold_rate)).where(
            col(QueueSetting.queue) == queue, col(QueueSetting.rubric_ref).in_(refs))).all())
        rate = next((float(rates[r]) for r in refs if r in rates), 0.0)
        if rate <= 0:
            return False
        k = conn.execute(select(func.count()).select_from(Assignment).where(
            col(Assignment.reviewer) == reviewer, col(Assignment.queue) == queue)).scalar_one()
        return random.Random(f"{reviewer}|{queue}|{k}").random() < rate

    def renew(self, claim: Claim, lease_seconds: int = 900) -> Claim:
        """Extend a lease the reviewer still holds; UserError if it was lost."""
        _check_lease(lease_seconds)
        until = now() + timedelta(seconds=lease_seconds)
        with self.db.write() as conn:
            self.roles.signing_check(conn, claim.reviewer, None)
            n = conn.execute(update(Item).where(col(Item.pk) == claim.item_pk, col(Item.lease_reviewer) == claim.reviewer)
                             .values(lease_until=until)).rowcount
        if not n:
            raise UserError(f"the lease on {claim.item_id} expired and was taken by someone else")
        return Claim(claim.item_pk, claim.item_id, claim.queue, claim.reviewer, until, claim.gold)

    def _end(self, claim: Claim, state: str) -> bool:
        from reviewer.store.coverage import refresh_coverage

        with self.db.write(durable=False) as conn:
            self.roles.signing_check(conn, claim.reviewer, None)
            conn.execute(update(Item).where(col(Item.pk) == claim.item_pk, col(Item.lease_reviewer) == claim.reviewer)
                         .values(lease_reviewer=None, lease_queue=None, lease_until=None))
            if state == "done":
                ref, revision = conn.execute(select(col(Item.rubric_ref), col(Item.revision))
                                             .where(col(Item.pk) == claim.item_pk)).one()
                rubric = self.rubrics.get_rubric(ref)
                scored = refresh_coverage(conn, rubric, claim.item_pk, revision)
                if not rubric.review_complete(scored.get(claim.reviewer, set())):
                    return False  # half scored: the assignment stays active (in progress)
            conn.execute(update(Assignment).where(
                col(Assignment.item_pk) == claim.item_pk, col(Assignment.reviewer) == claim.reviewer,
                col(Assignment.queue) == claim.queue, col(Assignment.state) == "active").values(state=state, ended_at=now()))
        return True

    def complete(self, claim: Claim) -> bool:
        """The reviewer is done with the item: the assignment is marked done when their review is
        complete (every dimension a person scores has their score, or any one with ``review:
        partial``). Otherwise the lease is given up but the assignment stays in progress: the
        item stays in the queue for others, the queue does not hand it to this reviewer again
        (they reopen it from the queue list to finish), and False is returned."""
        return self._end(claim, "done")

    def skip(self, claim: Claim) -> None:
        """Back to the queue for others; not served to this reviewer again."""
        self._end(claim, "skipped")

    def release(self, claim: Claim) -> None:
        """Back to the queue, this reviewer included."""
        self._end(claim, "released")

    def set_priorities(self, rubric_ref: str, priorities: dict[int, float]) -> None:
        """Routing priorities from calibration; the triage queue serves high ones first. Each
        lies in [0, :data:`PRIORITY_CAP`] (the triage key's room for them), or none is written.
        One UPDATE statement, run by the driver for every item at once (executemany)."""
        from sqlalchemy import Float, Integer, bindparam

        bad = next((p for p in priorities.values() if not 0 <= p <= PRIORITY_CAP), None)
        if bad is not None:  # NaN fails the test too
            raise UserError(f"routing priority {bad!r} is outside 0–{PRIORITY_CAP:,}; nothing was written")
        each = update(Item).where(col(Item.pk) == bindparam("item", type_=Integer)).values(
            priority=bindparam("new_priority", type_=Float))
        with self.db.write() as conn:
            if priorities:
                conn.execute(each, [{"item": pk, "new_priority": p} for pk, p in priorities.items()])
            refresh_triage_keys(conn, "rubric_ref = :ref", {"ref": self.rubrics.get_rubric(rubric_ref).ref})


    # -- the list's reads

    def queue_page(self, queue: str, rubric_ref: str | None = None, dataset: str | None = None,
                   after: QueueCursor | None = None, limit: int = 200, search: str | None = None,
                   filt: QueueFilter | None = None, order: QueueOrder | None = None) -> list[QueueRow]:
        """One page of the queue in ``order`` (the queue's own without one;
        :mod:`reviewer.store.queue_order`), from the row after ``after`` (the last row's
        ``cursor``; from the first without one). ``filt`` narrows it
        (:mod:`reviewer.store.queue_filter`); ``search`` is the same as a filter on that text
        alone."""
        order = order or QueueOrder()
        t = now()
        conds = queue_conditions(self.rubrics, queue, rubric_ref, dataset) + self._narrow(queue, filt, search, t)
        item = table_of(Item).c
        if order.by == "metadata":
            use_key_index(self.db, order.key or "")
        with self.db.read() as conn:
            if self.db.dialect == "postgresql":
                # a page reads a few hundred rows, but its estimate (a scan at worst) passes the
                # mark past which PostgreSQL compiles the query, which takes longer than the read
                conn.exec_driver_sql("SET LOCAL jit = off")
            rows = page_rows(conn, order, conds, self.db.dialect, limit, after, [item[c] for c in row_columns(queue)])
        return [replace(queue_row(r, t), cursor=c) for c, r in rows]

    def queue_count(self, queue: str, rubric_ref: str | None = None, dataset: str | None = None,
                    filt: QueueFilter | None = None) -> int:
        """How many items the queue holds (those ``filt`` keeps, given one)."""
        conds = queue_conditions(self.rubrics, queue, rubric_ref, dataset) + self._narrow(queue, filt, None, now())
        with self.db.read() as conn:
            return int(conn.execute(select(func.count()).select_from(Item).where(and_(*conds) if conds else ~false())).scalar_one())

    def _narrow(self, queue: str, filt: QueueFilter | None, search: str | None, t: datetime) -> list[ColumnElement[bool]]:
        if search:
            filt = replace(filt or QueueFilter(), text=search)
        return filter_conditions(filt, needed(queue, self.reviewers_per_item), t, self.db.dialect, reviews_of(queue))

    def queue_values(self, queue: str, rubric_ref: str | None = None,
                     dataset: str | None = None) -> tuple[list[str], list[str]]:
        """The datasets and the judge's bands the queue's items hold, sorted (what a filter offers)."""
        conds = queue_conditions(self.rubrics, queue, rubric_ref, dataset)
        where = and_(*conds) if conds else ~false()
        with self.db.read() as conn:
            datasets = conn.execute(select(col(Item.dataset)).where(where).distinct()).scalars().all()
            bands = conn.execute(select(col(Item.judge_band)).where(where, col(Item.judge_band).is_not(None))
                                 .distinct()).scalars().all()
        return sorted(d for d in datasets if d is not None), sorted(b for b in bands if b is not None)

    def queue_progress(self, queue: str, reviewer: str, rubric_ref: str | None = None,
                       dataset: str | None = None) -> tuple[int, int, int]:
        """``(total, done, left for reviewer)``: the queue's items (gold items left out), those
        with every reviewer they need, and those still open to this reviewer (not done, and not
        done or skipped by them) — the same rules :meth:`Queue.claim_next` serves by."""
        conds = queue_conditions(self.rubrics, queue, rubric_ref, dataset)
        if queue != "safety":
            conds.append(col(Item.is_gold).is_(False))
        done_cond = reviews_of(queue) >= needed(queue, self.reviewers_per_item) if queue != "safety" else false()
        mine = exists().where(col(Assignment.item_pk) == col(Item.pk), col(Assignment.reviewer) == reviewer,
                              col(Assignment.queue) == queue, col(Assignment.state).in_(("done", "skipped")))
        with self.db.read() as conn:
            row = conn.execute(select(
                func.count(),
                func.coalesce(func.sum(case((done_cond, 1), else_=0)), 0),
                func.coalesce(func.sum(case((and_(~done_cond, ~mine), 1), else_=0)), 0),
            ).select_from(Item).where(and_(*conds) if conds else ~false())).one()
        return int(row[0]), int(row[1]), int(row[2])

    # -- settings, audit samples, gold items

    def create_audit_sample(self, rubric_ref: str, n: int, seed: int = 0) -> int:
        """Draw a seeded uniform random sample of the rubric's items for the audit queue."""
        ref = self.rubrics.get_rubric(rubric_ref).ref
        with self.db.write() as conn:
            pks = sorted(conn.execute(select(col(Item.pk)).where(col(Item.rubric_ref) == ref)).scalars())
            have = set(conn.execute(select(col(AuditSample.item_pk)).where(col(AuditSample.rubric_ref) == ref)).scalars())
            chosen = random.Random(seed).sample(pks, min(n, len(pks)))
            rows = [dict(rubric_ref=ref, item_pk=pk, seed=seed) for pk in chosen if pk not in have]
            if rows:
                conn.execute(table_of(AuditSample).insert(), rows)
        return len(rows)

    def set_queue_settings(self, queue: str, rubric_ref: str | None = None, reviewers_per_item: int | None = None,
                           gold_rate: float | None = None, blind: bool | None = None) -> QueueSettings:
        """Change what is given; the rest keeps its value. Returns the settings now in force."""
        from reviewer.store.queue_sql import QUEUES

        if queue not in QUEUES:
            raise UserError(f"unknown queue {queue!r}; use {', '.join(QUEUES)}")
        if reviewers_per_item is not None and not 1 <= reviewers_per_item <= 20:
            raise UserError(f"--reviewers {reviewers_per_item}: give 1 to 20 distinct reviewers per item")
        if gold_rate is not None and not (math.isfinite(gold_rate) and 0 <= gold_rate <= 0.5):
            raise UserError(f"--gold-rate {gold_rate}: give a share from 0 to 0.5 of claims")
        ref = self.rubrics.get_rubric(rubric_ref).ref if rubric_ref else ANY_RUBRIC
        current = self.queue_settings(queue, rubric_ref, exact=True)
        values = dict(reviewers_per_item=current.reviewers_per_item if reviewers_per_item is None else reviewers_per_item,
                      gold_rate=current.gold_rate if gold_rate is None else gold_rate,
                      blind=current.blind if blind is None else blind, updated_at=now())
        with self.db.write() as conn:
            done = conn.execute(update(QueueSetting).where(col(QueueSetting.rubric_ref) == ref, col(QueueSetting.queue) == queue)
                                .values(**values)).rowcount
            if not done:
                conn.execute(table_of(QueueSetting).insert().values(rubric_ref=ref, queue=queue, **values))
        return self.queue_settings(queue, rubric_ref, exact=True)

    def queue_settings(self, queue: str, rubric_ref: str | None = None, exact: bool = False) -> QueueSettings:
        """The settings for a rubric's items in a queue: its own, else the ``*`` row, else defaults
        (with ``exact``, only its own row counts)."""
        ref = self.rubrics.get_rubric(rubric_ref).ref if rubric_ref else ANY_RUBRIC
        refs = [ref] if exact or ref == ANY_RUBRIC else [ref, ANY_RUBRIC]
        with self.db.read() as conn:
            rows = {r[0]: r for r in conn.execute(
                select(col(QueueSetting.rubric_ref), col(QueueSetting.reviewers_per_item), col(QueueSetting.gold_rate),
                       col(QueueSetting.blind)).where(col(QueueSetting.queue) == queue, col(QueueSetting.rubric_ref).in_(refs)))}
        for r in refs:
            if r in rows:
                _, n, rate, blind = rows[r]
                return QueueSettings(ref, queue, int(n), float(rate), bool(blind))
        return QueueSettings(ref, queue)

    def gold_scores(self, rubric_ref: str | None = None) -> list[tuple[str, float, float, datetime]]:
        """Every reviewer's current score on every gold item and dimension that has an expected
        score, as ``(reviewer, score, expected, scored_at)`` rows (undone scores are not current);
        the gold-accuracy service turns them into accuracy and drift."""
        with self.db.read() as conn:
            q = select(col(Item.pk)).where(col(Item.is_gold).is_(True))
            if rubric_ref:
                q = q.where(col(Item.rubric_ref) == self.rubrics.get_rubric(rubric_ref).ref)
            pks = list(conn.execute(q).scalars())
        # each reviewer's current score per gold item and dimension, from the item's fold
        seen: list[tuple[str, float, float, datetime]] = []
        for it, fold in self.items.item_folds(item_pks=pks) if pks else ():
            if not isinstance(it.gold, dict):
                continue
            for dim, f in fold.dims.items():
                expected = it.gold.get(dim)
                if isinstance(expected, (int, float)):
                    # a vote read from a stored row always has its time (the column is NOT NULL)
                    seen.extend((who, v.score, float(expected), v.created_at) for who, v in f.human.votes.items()
                                if v.created_at is not None)
        return seen

    def has_audit_sample(self, rubric_ref: str) -> bool:
        """Whether an audit sample was drawn for this rubric."""
        ref = self.rubrics.get_rubric(rubric_ref).ref
        with self.db.read() as conn:
            return conn.execute(select(col(AuditSample.pk)).where(col(AuditSample.rubric_ref) == ref).limit(1)).first() is not None

    def audit_pks(self, rubric_ref: str) -> set[int]:
        """The item keys of the rubric's audit sample (drawn here or imported as ``"audit": true``)."""
        ref = self.rubrics.get_rubric(rubric_ref).ref
        with self.db.read() as conn:
            return set(conn.execute(select(col(AuditSample.item_pk)).where(col(AuditSample.rubric_ref) == ref)).scalars())


def claimed_since(conn: Connection, claim: Claim) -> str | None:
    """Who has claimed the item since ``claim`` was made, if anyone: the reviewer of its latest
    assignment in any queue when that is not the claim's (a claim is only made once the lease
    before it ran out or was given back). A write made under ``claim`` then comes too late:
    the item is that person's now, and the queue counts their review, not a late one."""
    latest = conn.execute(select(col(Assignment.reviewer)).where(col(Assignment.item_pk) == claim.item_pk)
                          .order_by(col(Assignment.pk).desc()).limit(1)).scalar()
    return None if latest is None or latest == claim.reviewer else str(latest)

def _check_lease(lease_seconds: object) -> None:
    """A lease is a positive whole number of seconds, at most a day (a negative one would hand
    the item to the next reviewer at once; a huge one would hide it for ever)."""
    if isinstance(lease_seconds, bool) or not isinstance(lease_seconds, int) or not 0 < lease_seconds <= MAX_LEASE_SECONDS:
        raise UserError(f"lease of {lease_seconds!r} seconds: give 1 second to 1 day (lease_minutes 1 to 1440)")
