"""A query's rows as columns from one aggregate query (the tidy table's read,
:mod:`reviewer.store.tidy_read`): every column aggregated by the database into one JSON array
(SQLite ``json_group_array``, PostgreSQL ``json_agg``) and parsed in one call — integers by
numpy, text by orjson — so the driver builds no tuple per row. All the aggregates of one query
see the same rows in the same order, so the columns stay aligned; the row keys travel with them.

Exactness: integers are written exactly; on SQLite (whose JSON gives a real 15 digits) a real
travels as two exact integers (:func:`_real_parts`), the rows holding one they cannot carry read
again as numbers; PostgreSQL writes a double's shortest exact text. A time comes as
datetime64[us] in UTC (a time stored without a zone is UTC, the store's rule:
:func:`reviewer.domain.provenance.as_utc`).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import orjson
from numpy.typing import NDArray
from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    String,
    and_,
    case,
    cast,
    func,
    literal,
    or_,
    select,
)

from reviewer.store.numeric_read import NULL_CODE

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]


def _micros(conn: Connection, at: Any) -> ColumnElement[Any]:
    """A stored time as whole microseconds since the epoch, UTC."""
    if conn.dialect.name == "sqlite":  # stored as 'YYYY-MM-DD HH:MM:SS.ffffff', UTC (read below)
        return cast(at, String)
    return cast(func.extract("epoch", at) * 1_000_000, BigInteger)


def parsed(text: str) -> object:
    """Stored JSON text parsed (orjson; the standard module where orjson refuses the text)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # (e.g. a lone surrogate escape, which json reads)
        return json.loads(text)


def _loads(text: str | None, n: int) -> list[Any]:
    """An aggregated JSON array (None: no row) of ``n`` values, parsed."""
    out = [] if text is None else parsed(text)
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
