"""The tidy table's read (:mod:`reviewer.services.tidy`): a rubric's items in batches, paged by
key, each batch with every human and judge row of its items as plain columns — numpy arrays for numbers and
times, lists for text — so that a million scores are never a million row objects. Which rows
stand is decided from these columns by :func:`reviewer.domain.standing.standing`; the provenance
the tidy rows carry (reason, tags, time; a judge score's run, its source and rationale) comes in
the same read. Each table is read with one aggregate query per batch
(:func:`reviewer.store.aggregate_read.aggregated`); rows come in the order read (the fold orders
them by key).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import ColumnElement, Connection, Integer, Select, String, cast, func, select
from sqlmodel import col

from reviewer.store.aggregate_read import aggregated, parsed
from reviewer.store.db import Db
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.tables import HumanScore, Item, JudgeRun, JudgeScore, table_of

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]
Bools = NDArray[np.bool_]
Times = NDArray[np.datetime64]


@dataclass(frozen=True)
class TidyItems:
    """A batch of items, in key order."""

    pk: Ints
    item_id: list[str]
    dataset: list[str]
    rubric_ref: list[str]
    #: each item's current content revision
    revision: Ints
    #: each item's metadata (parsed JSON), or None
    meta: list[object]


@dataclass(frozen=True)
class HumanColumns:
    """Every human score row of a batch's items, in the order read (``pk`` orders them)."""

    item_pk: Ints
    pk: Ints
    revision: Ints
    dimension: list[str]
    reviewer: list[str]
    #: NaN where the row has no score (an undo)
    score: Floats
    kind: list[str]
    blind: Bools
    reason: list[str | None]
    #: the row's quick tags as stored JSON text (``"[]"`` mostly), or None
    tags: list[str | None]
    #: when the row was written, UTC
    created_at: Times


@dataclass(frozen=True)
class JudgeColumns:
    """Every item-level judge score row of a batch's items (conversation turns left out), in
    the order read (``pk`` orders them)."""

    item_pk: Ints
    pk: Ints
    revision: Ints
    dimension: list[str]
    model: list[str | None]
    #: NaN where None
    score: Floats
    normalised: Floats
    error: list[str | None]
    not_applicable: Bools
    #: the run's key, -1 where the score has no run row
    run: Ints
    #: the run's source (judge or import), None where the score has no run row
    source: list[str | None]
    rationale: list[str | None]
    #: when the score was written, UTC
    created_at: Times


@dataclass(frozen=True)
class TidyBatch:
    """One batch of items with their human and judge rows."""

    items: TidyItems
    human: HumanColumns
    judge: JudgeColumns


class Tidy:
    """The tidy table's read, batch by batch."""

    def __init__(self, db: Db, rubrics: Rubrics) -> None:
        self.db = db
        self.rubrics = rubrics

    def tidy_batches(self, rubric_ref: str | None = None, dataset: str | None = None,
                size: int = 20_000) -> Iterator[TidyBatch]:
        """The items of a rubric version (every rubric's without one; ``dataset``: only its
        items) in key order, ``size`` items per batch, each batch with its rows: the items are
        paged by key too, so no more than two batches' items (this one and the next) are held.
        The next batch is read on a thread of its own while the caller works on this one (the
        database does its part without the GIL); only that thread uses the connection until the
        last batch is read, and the read transaction ends after it."""
        if size < 1:
            raise ValueError(f"a batch of {size} items reads nothing; give 1 or more")
        scope: list[ColumnElement[bool]] = []
        if rubric_ref:
            scope.append(col(Item.rubric_ref) == self.rubrics.get_rubric(rubric_ref).ref)
        if dataset:
            scope.append(col(Item.dataset) == dataset)
        page = (select(col(Item.pk), col(Item.item_id), col(Item.dataset), col(Item.rubric_ref), col(Item.revision),
                       cast(col(Item.meta), String)).where(*scope).order_by(col(Item.pk)).limit(size))
        with self.db.read() as conn:

            def read(after: int | None) -> TidyBatch | None:
                """The batch of the first ``size`` items with a key above ``after`` (None: from the first)."""
                part = conn.execute(page if after is None else page.where(col(Item.pk) > after)).all()
                if not part:
                    return None
                pk, item_id, ds, ref, rev, meta = (list(c) for c in zip(*part, strict=True))
                batch = TidyItems(np.array(pk, dtype=np.int64), item_id, ds, ref, np.array(rev, dtype=np.int64),
                                  [None if m is None else parsed(m) for m in meta])
                keys = select(col(Item.pk)).where(*scope, col(Item.pk) >= pk[0], col(Item.pk) <= pk[-1])
                return TidyBatch(batch, self._human(conn, pk[0], pk[-1], keys), self._judge(conn, pk[0], pk[-1], keys))

            # (leaving the pool waits for a read under way: the connection outlives every use)
            with ThreadPoolExecutor(1) as pool:
                ahead = pool.submit(read, None)
                while (done := ahead.result()) is not None:
                    if done.items.pk.size < size:  # a short page is the last
                        yield done
                        return
                    ahead = pool.submit(read, int(done.items.pk[-1]))
                    yield done

    @staticmethod
    def _human(conn: Connection, lo: int, hi: int, keys: Select[int]) -> HumanColumns:
        h = HumanScore
        where = [col(h.item_pk) >= lo, col(h.item_pk) <= hi, col(h.item_pk).in_(keys.scalar_subquery())]
        c = aggregated(conn, h, col(h.pk), where,
                       {"item_pk": col(h.item_pk), "revision": col(h.revision),
                        "blind": cast(col(h.blind), Integer)},
                       {"score": col(h.score)},
                       # tags as their stored JSON text: the caller parses each distinct text once
                       {"dimension": col(h.dimension), "reviewer": col(h.reviewer), "kind": col(h.kind),
                        "reason": col(h.reason), "tags": cast(col(h.tags), String)},
                       {"created_at": col(h.created_at)})
        return HumanColumns(c["item_pk"], c["pk"], c["revision"], c["dimension"], c["reviewer"], c["score"],
                            c["kind"], c["blind"] != 0, c["reason"], c["tags"], c["created_at"])

    @staticmethod
    def _judge(conn: Connection, lo: int, hi: int, keys: Select[int]) -> JudgeColumns:
        j, run = JudgeScore, JudgeRun
        where = [col(j.item_pk) >= lo, col(j.item_pk) <= hi, col(j.item_pk).in_(keys.scalar_subquery()),
                 col(j.turn).is_(None)]
        table = table_of(j).outerjoin(table_of(run), col(run.pk) == col(j.run_pk))
        c = aggregated(conn, table, col(j.pk), where,
                       {"item_pk": col(j.item_pk), "revision": col(j.revision),
                        "not_applicable": cast(col(j.not_applicable), Integer),
                        "run": func.coalesce(col(run.pk), -1)},
                       {"score": col(j.score), "normalised": col(j.normalised)},
                       {"dimension": col(j.dimension), "model": col(j.model), "error": col(j.error),
                        "source": col(run.source), "rationale": col(j.rationale)},
                       {"created_at": col(j.created_at)})
        return JudgeColumns(c["item_pk"], c["pk"], c["revision"], c["dimension"], c["model"], c["score"],
                            c["normalised"], c["error"], c["not_applicable"] != 0, c["run"], c["source"],
                            c["rationale"], c["created_at"])
