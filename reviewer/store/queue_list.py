"""The queue list's reads: a page of a queue (filtered, sorted, found by cursor), its counts, the
values a filter offers and a reviewer's progress."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy import ColumnElement, and_, case, exists, false, func, select
from sqlmodel import col

from reviewer.store.db import Db
from reviewer.store.queue_filter import filter_conditions
from reviewer.store.queue_order import page_rows
from reviewer.store.queue_sort_index import use_key_index
from reviewer.store.queue_sql import queue_row, row_columns
from reviewer.store.queue_where import needed, queue_conditions, reviews_of
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.sorting import QueueCursor, QueueOrder
from reviewer.store.tables import Assignment, Item, now, table_of
from reviewer.store.views import QueueFilter, QueueRow


class QueueList:
    """Reads of a queue as its list shows it (part of the store's ``queue`` door)."""

    db: Db
    rubrics: Rubrics
    reviewers_per_item: int

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


__all__ = ["QueueList"]
