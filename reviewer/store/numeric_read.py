"""A query's numeric columns straight into numpy, at a million rows.

The sqlite3 driver turns every row into a tuple of Python numbers (most of a million-row read's
time, and all of it holding the GIL). On SQLite each column is instead aggregated by the database
into one long text (``group_concat``) that numpy parses in one call: the work happens inside
SQLite, which lets go of the GIL, so Python can do other work (imports, other folds) meanwhile.

Exactness:

- **order**: the row key (``pk``) travels with the rows and the columns are put in key order
  here (:func:`in_key_order`), so the order in which SQLite feeds the aggregate does not matter;
  every column is one aggregate of the same rows in one pass, so they stay aligned, and no value
  is ever NULL inside the aggregate (``group_concat`` skips NULLs) — the row count read beside
  them is checked against every column;
- **integers** are written and parsed exactly (64-bit);
- **reals** travel as an integer code: the value times 2**20 when that is a whole number below
  2**53 (every level of a rating scale, halves, quarters …: exact both ways, as powers of two
  scale a double exactly), :data:`NULL_CODE` for NULL, and :data:`INEXACT_CODE` otherwise; the
  few rows with such a value (a mean of three samples, a spread) are read again as numbers by
  their key. Nothing passes through decimal text.

Other databases (PostgreSQL) stream the rows through the driver as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Float,
    and_,
    case,
    cast,
    func,
    literal,
    literal_column,
    or_,
    select,
)

_SHIFT = float(1 << 20)
_LIMIT = float(1 << 33)  # |value| below this: value × 2**20 is below 2**53, exact as a double
NULL_CODE = -(1 << 62)
INEXACT_CODE = NULL_CODE - 1
#: Between the values of an aggregated text: written into the statement, not bound (SQLite reads
#: a bound separator again at every row: ~0.05 s of CPU a million rows and column).
_SEPARATOR: ColumnElement[str] = literal_column("' '")
#: Rows per aggregated text: keeps each text far below SQLite's string limit (1e9 bytes).
CHUNK = 1_000_000


def _real_code(x: Any) -> ColumnElement[Any]:
    scaled = x * _SHIFT
    whole = cast(scaled, BigInteger)
    return case((x.is_(None), literal(NULL_CODE)),
                (and_(func.abs(x) < _LIMIT, scaled == whole), whole),
                else_=literal(INEXACT_CODE))


def _decode(codes: NDArray[np.int64]) -> NDArray[np.float64]:
    out = codes.astype(np.float64) / _SHIFT
    out[codes == NULL_CODE] = np.nan
    return out


def in_key_order(cols: dict[str, NDArray[Any]]) -> dict[str, NDArray[Any]]:
    """The columns reordered by their ``pk`` column (stable), unless they already are in order."""
    pk = cols["pk"]
    if pk.size < 2 or bool(np.all(pk[1:] > pk[:-1])):
        return cols
    order = np.argsort(pk, kind="stable")
    return {k: v[order] for k, v in cols.items()}


def key_range(conn: Any, pk: Any) -> tuple[int, int] | None:
    """The first and last key of ``pk``'s table (None when it is empty)."""
    # each alone is one index step; together in one SELECT they would scan
    lo, hi = conn.execute(select(select(func.min(pk)).scalar_subquery(), select(func.max(pk)).scalar_subquery())).one()
    return None if lo is None else (int(lo), int(hi))


def split_range(keys: tuple[int, int] | None, parts: int) -> list[tuple[int, int] | None]:
    """``keys`` (first, last) cut into ``parts`` consecutive ranges of about equal width."""
    if keys is None:
        return [None]
    lo, hi = keys
    cuts = [lo + (hi - lo + 1) * i // parts for i in range(parts + 1)]
    return [(a, b - 1) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def joined(parts: list[dict[str, NDArray[Any]]]) -> dict[str, NDArray[Any]]:
    """Reads of consecutive key ranges (in key order) as one."""
    return parts[0] if len(parts) == 1 else {n: np.concatenate([p[n] for p in parts]) for n in parts[0]}


def read_numeric(conn: Any, pk: Any, where: list[ColumnElement[bool]], ints: dict[str, Any],
                 reals: dict[str, Any], keys: tuple[int, int] | None = None) -> dict[str, NDArray[Any]]:
    """Per row of ``pk``'s table that meets ``where``, in ``pk`` order: ``pk`` itself, each of
    ``ints`` (SQL integer expressions, never NULL) as int64 and each of ``reals`` (SQL real
    expressions) as float64 with NaN for NULL. ``keys`` (first, last): only rows with keys in
    that range (SQLite; default: every key, :func:`key_range`)."""
    if keys is not None:
        where = [*where, pk >= keys[0], pk <= keys[1]]
    if conn.dialect.name != "sqlite":
        return _streamed(conn, pk, where, ints, reals)
    bounds = keys if keys is not None else key_range(conn, pk)
    names = ["pk", *ints, *reals]
    parts: dict[str, list[NDArray[np.int64]]] = {n: [] for n in names}
    lo, hi = bounds if bounds is not None else (0, -1)
    exprs = [pk, *ints.values(), *(_real_code(r) for r in reals.values())]
    for start in range(lo, hi + 1, CHUNK):
        # straight from the table (no ordered subquery: the keys put the rows in order below)
        q = select(func.count(), *(func.group_concat(e, _SEPARATOR) for e in exprs)).where(*where, pk >= start,
                                                                                         pk < start + CHUNK)
        n, *texts = conn.execute(q).one()
        for name, text in zip(names, texts, strict=True):
            arr = np.array([], dtype=np.int64) if text is None else np.fromstring(text, dtype=np.int64, sep=" ")
            if arr.size != n:
                raise RuntimeError(f"read {arr.size} values of {name} for {n} rows")
            parts[name].append(arr)
    cols = in_key_order({n: np.concatenate(p) if p else np.array([], dtype=np.int64) for n, p in parts.items()})
    inexact = {n: cols[n] == INEXACT_CODE for n in reals}
    for n in reals:
        cols[n] = _decode(cols[n])
    if any(m.any() for m in inexact.values()):
        _fill_inexact(conn, pk, where, reals, cols, inexact)
    return cols


def _fill_inexact(conn: Any, pk: Any, where: list[ColumnElement[bool]], reals: dict[str, Any],
                  cols: dict[str, NDArray[Any]], inexact: dict[str, NDArray[np.bool_]]) -> None:
    """Read the reals that have no exact code as numbers, by their row's key (``cols`` in key order)."""
    odd = or_(*(_real_code(r) == INEXACT_CODE for r in reals.values()))
    rows = conn.execute(select(pk, *reals.values()).where(*where, odd)).all()
    keys = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    at = np.searchsorted(cols["pk"], keys)
    if at.size and (at.max() >= cols["pk"].size or not np.array_equal(cols["pk"][at], keys)):
        raise RuntimeError("inexact values read again for rows that were not read")
    for i, name in enumerate(reals, start=1):
        values = np.array([np.nan if r[i] is None else float(r[i]) for r in rows], dtype=np.float64)
        mine = inexact[name][at]
        cols[name][at[mine]] = values[mine]
        if int(mine.sum()) != int(inexact[name].sum()):
            raise RuntimeError(f"read {int(mine.sum())} inexact values of {name} for {int(inexact[name].sum())}")


def _streamed(conn: Any, pk: Any, where: list[ColumnElement[bool]], ints: dict[str, Any],
              reals: dict[str, Any]) -> dict[str, NDArray[Any]]:
    """The rows through the driver's cursor, straight into a numpy record array (no per-row
    Python object outlives its row). A NULL real travels as NaN (a field of a numpy record must
    be a number; no finite stand-in, which a score on a scale reaching that far would meet)."""
    exprs = [pk, *ints.values(), *(func.coalesce(r, literal(float("nan"), Float())) for r in reals.values())]
    dtype = np.dtype([("pk", np.int64)] + [(n, np.int64) for n in ints] + [(n, np.float64) for n in reals])
    compiled = select(*exprs).where(*where).order_by(pk).compile(dialect=conn.dialect)
    params = compiled.construct_params()
    args = tuple(params[k] for k in compiled.positiontup or ()) if compiled.positional else params
    cursor = conn.connection.cursor()
    try:
        cursor.execute(str(compiled), args)
        rows = np.fromiter(cursor, dtype=dtype)
    finally:
        cursor.close()
    return {n: rows[n].copy() for n in ("pk", *ints, *reals)}
