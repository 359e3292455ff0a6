"""Each item's group value for ``calibrate --group-by``, read in SQL and coded once.

``group`` and ``variant`` are columns. ``metadata.KEY`` is one key of the item's metadata (JSON):
the database extracts that key's value as JSON text (the ``->`` operator of SQLite 3.38+ and
PostgreSQL), so no item's whole metadata is decoded in Python; only the distinct values are, once
each. The values are the ones decoding the whole metadata would give (a missing key or a JSON
``null`` is None; numbers as written).

On SQLite the JSON texts of many items travel as one text per range of keys (``group_concat``,
one line per item: JSON text never holds a raw line break, as a line break inside a string is
written ``\\n``), so the driver makes no row objects and SQLite does the work with the GIL let go;
the values come back each distinct one once (:class:`~reviewer.domain.columns.GroupKeys`), never as one Python
object per item.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import Text, cast, func, literal, select
from sqlalchemy.exc import DataError, OperationalError
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import col

from reviewer.domain.columns import GroupKeys
from reviewer.errors import UserError
from reviewer.store.numeric_read import key_range
from reviewer.store.tables import Item

#: Item keys per aggregated text (SQLite). A range whose text would pass SQLite's string limit
#: is read again in halves (:func:`_aggregated`), so no value is ever cut.
TEXT_CHUNK = 250_000


def _metadata_value(conn: Any, key: str) -> ColumnElement[Any]:
    """The metadata key's value as JSON text, as written (NULL when the key is missing)."""
    meta = col(Item.meta)
    if conn.dialect.name == "sqlite":
        if '"' in key:  # a JSON path cannot quote it
            raise UserError(f"--group-by metadata.{key}: a key with a double quote cannot be read; "
                            "rename the key in the items file")
        # SQLite's ``->`` (3.38 and later) keeps a number's text: json_extract would round it
        return meta.op("->", return_type=Text)(literal(f'$."{key}"'))
    return cast(meta.op("->")(literal(key, Text)), Text)


def group_values(conn: Any, where: list[ColumnElement[bool]],
                 group_by: str) -> tuple[NDArray[np.int64], GroupKeys]:
    """The keys of the items in scope, in order, and each one's value of ``group_by``
    (``group``, ``variant`` or ``metadata.KEY``), coded."""
    if group_by in ("group", "variant"):
        column = col(Item.grp) if group_by == "group" else col(Item.variant)
        rows = conn.execute(select(col(Item.pk), column).where(*where).order_by(col(Item.pk))).all()
        item_pk = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        return _in_key_order(item_pk, GroupKeys.of([r[1] for r in rows]))
    # a missing key is JSON null: both decode to None, and no item's text is NULL in the aggregate
    value = func.coalesce(_metadata_value(conn, group_by.split(".", 1)[1]), literal("null"))
    if conn.dialect.name == "sqlite":
        item_pk, texts = _aggregated(conn, value, where)
    else:
        rows = conn.execute(select(col(Item.pk), value).where(*where).order_by(col(Item.pk))).all()
        item_pk = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        texts = [r[1] for r in rows]
    return _in_key_order(item_pk, GroupKeys.of(texts, json.loads))


def _in_key_order(item_pk: NDArray[np.int64], keys: GroupKeys) -> tuple[NDArray[np.int64], GroupKeys]:
    """The item keys sorted (stable) and the codes with them, unless they already are in order."""
    if item_pk.size < 2 or bool(np.all(item_pk[1:] > item_pk[:-1])):
        return item_pk, keys
    order = np.argsort(item_pk, kind="stable")
    return item_pk[order], GroupKeys(keys.values, keys.codes[order])


def _aggregated(conn: Any, value: ColumnElement[Any],
                where: list[ColumnElement[bool]]) -> tuple[NDArray[np.int64], list[str]]:
    """(item keys, JSON text of each item's value) on SQLite, one aggregated text per range of
    :data:`TEXT_CHUNK` keys."""
    pk = col(Item.pk)
    span = key_range(conn, pk)
    keys: list[NDArray[np.int64]] = []
    texts: list[str] = []
    pending = [] if span is None else [(a, min(a + TEXT_CHUNK - 1, span[1]))
                                       for a in range(span[0], span[1] + 1, TEXT_CHUNK)]
    pending.reverse()
    while pending:
        lo, hi = pending.pop()
        q = select(func.count(), func.group_concat(pk, " "), func.group_concat(value, "\n")).where(
            *where, pk >= lo, pk <= hi)
        try:
            n, pks, joined = conn.execute(q).one()
        except (DataError, OperationalError) as e:
            if "too big" not in str(e) or lo == hi:
                raise
            mid = (lo + hi) // 2  # past SQLite's string limit: the range in halves, in order
            pending.extend([(mid + 1, hi), (lo, mid)])
            continue
        if n == 0:
            continue
        got = np.fromstring(pks, dtype=np.int64, sep=" ")
        lines = joined.split("\n")
        if got.size != n or len(lines) != n:
            raise RuntimeError(f"read {got.size} keys and {len(lines)} group values for {n} items")
        keys.append(got)
        texts.extend(lines)
    return (np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)), texts
