"""Each item's group value for ``calibrate --group-by``, read in SQL.

``group`` and ``variant`` are columns. ``metadata.KEY`` is one key of the item's metadata (JSON):
the database extracts that key's value as JSON text (the ``->`` operator of SQLite 3.38+ and
PostgreSQL), so no item's whole metadata is decoded in Python; only the distinct values are, once
each. The values are the ones decoding the whole metadata would give (a missing key or a JSON
``null`` is None; numbers as written).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from sqlalchemy import Text, cast, literal, select
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import col

from reviewer.errors import UserError
from reviewer.store.tables import Item


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
                 group_by: str) -> tuple[np.ndarray, list[object]]:
    """The keys of the items in scope, in order, and each one's value of ``group_by``
    (``group``, ``variant`` or ``metadata.KEY``)."""
    metadata = group_by not in ("group", "variant")
    value = (col(Item.grp) if group_by == "group" else col(Item.variant) if group_by == "variant"
             else _metadata_value(conn, group_by.split(".", 1)[1]))
    rows = conn.execute(select(col(Item.pk), value).where(*where).order_by(col(Item.pk))).all()
    item_pk = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    if not metadata:
        return item_pk, [r[1] for r in rows]
    decoded: dict[str | None, object] = {None: None}
    out: list[object] = []
    for _, text in rows:
        if text not in decoded:
            decoded[text] = json.loads(text)
        out.append(decoded[text])
    return item_pk, out
