"""The tidy table's read (:mod:`reviewer.services.tidy`): a rubric's items in batches, each batch
with every human and judge row of its items as plain columns — numpy arrays for numbers and
times, lists for text — so that a million scores are never a million row objects. Which rows
stand is decided from these columns by :func:`reviewer.domain.standing.standing`; the provenance
the tidy rows carry (reason, tags, time; a judge score's run, its source and rationale) comes in
the same read.

Each table is read with one aggregate query per batch: every column aggregated by the database
into one JSON array (SQLite ``json_group_array``, PostgreSQL ``json_agg``), parsed by orjson in
one call — the driver builds no tuple per row. All the aggregates of one query see the same rows
in the same order, so the columns stay aligned; the row keys travel with them (the fold orders
rows by key, so they are never sorted here). Exactness: integers are written exactly; on
SQLite (whose JSON gives a real 15 digits) a real travels as two exact integers
(:func:`_real_parts`), the rows holding one they cannot carry read again as numbers; PostgreSQL
writes a double's shortest exact text. A time comes as datetime64[us] in UTC (a time stored
without a zone is UTC, the store's rule: :func:`reviewer.domain.provenance.as_utc`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
from numpy.typing import NDArray
from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    Integer,
    String,
    and_,
    case,
    cast,
    func,
    literal,
    or_,
    select,
)
from sqlmodel import col

from reviewer.store.db import Db
from reviewer.store.numeric_read import NULL_CODE
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


def _micros(conn: Connection, at: Any) -> ColumnElement[Any]:
    """A stored time as whole microseconds since the epoch, UTC."""
    if conn.dialect.name == "sqlite":  # stored as 'YYYY-MM-DD HH:MM:SS.ffffff', UTC (read below)
        return cast(at, String)
    return cast(func.extract("epoch", at) * 1_000_000, BigInteger)


def _parsed(text: str) -> object:
    """Stored JSON text parsed (orjson; the standard module where orjson refuses the text)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # (e.g. a lone surrogate escape, which json reads)
        return json.loads(text)


def _loads(text: str | None, n: int) -> list[Any]:
    """An aggregated JSON array (None: no row) of ``n`` values, parsed."""
    out = [] if text is None else _parsed(text)
    if not isinstance(out, list) or len(out) != n:
        raise RuntimeError(f"read {len(out) if isinstance(out, list) else 'no list of'} values for {n} rows")
    return out


def _int_array(text: str | None, n: int) -> Ints:
    """An aggregated JSON array of ``n`` integers (never NULL), parsed by numpy in one call: the
    text between the brackets is the numbers and commas (and PostgreSQL's spaces)."""
    out = np.fromstring(text[1:-1], dtype=np.int64, sep=",") if n and text else np.zeros(0, dtype=np.int64)
    if out.size != n:
        raise RuntimeError(f"read {out.size} integers for {n} rows")
    return out


_SHIFT = float(1 << 20)
_FRACTION = float(1 << 52)
#: Below this (and not 0), or at and above :data:`_HUGE`, a real may have no exact parts.
_TINY, _HUGE = 2.0 ** -20, 2.0 ** 42


def _real_parts(x: Any) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
    """A real as two integers (SQLite): ``whole``, the value times 2**20 cut toward zero, and
    ``part``, what is left (a fraction, exact in floating point) times 2**52, cut too. Both are
    exact for every value from 2**-20 up to 2**42 (its lowest bit lies at or above 2**-72) and
    for 0; :func:`_odd` says whether a row holds another (read again as numbers). NULL: ``whole``
    is :data:`NULL_CODE`."""
    scaled = x * _SHIFT
    whole = cast(scaled, BigInteger)
    return (func.coalesce(whole, literal(NULL_CODE)),
            func.coalesce(cast((scaled - whole) * _FRACTION, BigInteger), literal(0)))


def _odd(reals: list[Any]) -> ColumnElement[Any]:
    """1 where a row holds a real :func:`_real_parts` cannot carry exactly, else 0."""
    far = [or_(and_(x != 0, func.abs(x) < _TINY), func.abs(x) >= _HUGE) for x in reals]
    return case((or_(*far), 1), else_=0)


def _joined(whole: Ints, part: Ints) -> Floats:
    """The reals of :func:`_real_parts` (NaN for NULL): whole + part / 2**52 is the value times
    2**20, a double, so the sum is exact, as is the division by a power of two."""
    out = (whole.astype(np.float64) + part / _FRACTION) / _SHIFT
    out[whole == NULL_CODE] = np.nan
    return out


def aggregated(conn: Connection, table: Any, pk: Any, where: list[ColumnElement[bool]],
               ints: dict[str, Any], reals: dict[str, Any], texts: dict[str, Any],
               times: dict[str, Any]) -> dict[str, Any]:
    """The rows of ``table`` (``select_from``) meeting ``where`` as aligned columns, in the order
    the database gave them (``pk`` says which row each is): ``pk`` and each of ``ints`` (never
    NULL) as int64 arrays, ``reals`` as float64 (NaN for NULL), ``texts`` as lists (None for
    NULL), ``times`` as datetime64[us] (never NULL)."""
    sqlite = conn.dialect.name == "sqlite"
    agg = func.json_group_array if sqlite else (lambda e: cast(func.json_agg(e), String))
    real_exprs = [p for r in reals.values() for p in _real_parts(r)] if sqlite else list(reals.values())
    exprs = [pk, *ints.values(), *real_exprs, *texts.values(), *(_micros(conn, t) for t in times.values())]
    odd = func.sum(_odd(list(reals.values()))) if sqlite and reals else literal(0)
    n, n_odd, *arrays = conn.execute(select(func.count(), odd, *(agg(e) for e in exprs)).select_from(table)
                                     .where(*where)).one()
    it = iter(arrays)
    cols: dict[str, Any] = {name: _int_array(next(it), n) for name in ("pk", *ints)}
    for name in reals:
        if sqlite:
            cols[name] = _joined(_int_array(next(it), n), _int_array(next(it), n))
        else:
            cols[name] = np.array([np.nan if v is None else v for v in _loads(next(it), n)], dtype=np.float64)
    for name in texts:
        cols[name] = _loads(next(it), n)
    for name in times:
        cols[name] = (np.array(_loads(next(it), n), dtype="datetime64[us]") if sqlite else
                      _int_array(next(it), n).astype("datetime64[us]"))
    if n_odd:
        _exact_again(conn, table, pk, where, reals, cols)
    return cols


def _exact_again(conn: Connection, table: Any, pk: Any, where: list[ColumnElement[bool]], reals: dict[str, Any],
                 out: dict[str, Any]) -> None:
    """The rows holding a real :func:`_real_parts` cannot carry read again, their reals as numbers."""
    rows = conn.execute(select(pk, *reals.values()).select_from(table).where(*where, _odd(list(reals.values())) == 1)).all()
    order = np.argsort(out["pk"])
    at = order[np.searchsorted(out["pk"], np.array([r[0] for r in rows], dtype=np.int64), sorter=order)]
    for i, name in enumerate(reals, start=1):
        out[name][at] = [np.nan if r[i] is None else float(r[i]) for r in rows]


class Tidy:
    """The tidy table's read, batch by batch."""

    def __init__(self, db: Db, rubrics: Rubrics) -> None:
        self.db = db
        self.rubrics = rubrics

    def batches(self, rubric_ref: str | None = None, dataset: str | None = None,
                size: int = 20_000) -> Iterator[TidyBatch]:
        """The items of a rubric version (every rubric's without one; ``dataset``: only its
        items) in key order, ``size`` items per batch, each batch with its rows. The next batch
        is read on a thread of its own while the caller works on this one (the database does
        its part without the GIL); only that thread uses the connection until the last batch is
        read, and the read transaction ends after it."""
        scope: list[ColumnElement[bool]] = []
        if rubric_ref:
            scope.append(col(Item.rubric_ref) == self.rubrics.get_rubric(rubric_ref).ref)
        if dataset:
            scope.append(col(Item.dataset) == dataset)
        with self.db.read() as conn:
            items = conn.execute(select(col(Item.pk), col(Item.item_id), col(Item.dataset), col(Item.rubric_ref),
                                        col(Item.revision), cast(col(Item.meta), String))
                                 .where(*scope).order_by(col(Item.pk))).all()
            parts = [items[start:start + size] for start in range(0, len(items), size)]

            def read(part: Sequence[Any]) -> TidyBatch:
                pk, item_id, ds, ref, rev, meta = (list(c) for c in zip(*part, strict=True))
                batch = TidyItems(np.array(pk, dtype=np.int64), item_id, ds, ref, np.array(rev, dtype=np.int64),
                                  [None if m is None else _parsed(m) for m in meta])
                keys = select(col(Item.pk)).where(*scope, col(Item.pk) >= pk[0], col(Item.pk) <= pk[-1])
                return TidyBatch(batch, self._human(conn, pk[0], pk[-1], keys), self._judge(conn, pk[0], pk[-1], keys))

            # (leaving the pool waits for a read under way: the connection outlives every use)
            if not parts:
                return
            with ThreadPoolExecutor(1) as pool:
                ahead = [pool.submit(read, parts[0])]
                for following in [*parts[1:], None]:
                    done = ahead.pop().result()
                    if following is not None:
                        ahead.append(pool.submit(read, following))
                    yield done

    @staticmethod
    def _human(conn: Connection, lo: int, hi: int, keys: Any) -> HumanColumns:
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
    def _judge(conn: Connection, lo: int, hi: int, keys: Any) -> JudgeColumns:
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
