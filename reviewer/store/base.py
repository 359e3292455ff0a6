"""The one class that owns the database connections; mixins add the rest of the store's API."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

from sqlalchemy import ColumnElement, Connection, CursorResult, Row, Table, select
from sqlmodel import col

from reviewer.errors import UserError
from reviewer.store.tables import Item, ItemRevision


def any_item_revised(conn: Connection, rubric_ref: str) -> bool:
    """Whether an item of the rubric version has had its content changed (``import --update``):
    an item's earlier content is kept in ``item_revision``, so any row there for one of the
    rubric's items means a revised item (and scores of an earlier revision may exist)."""
    revised = (select(col(ItemRevision.pk)).join(Item, col(Item.pk) == col(ItemRevision.item_pk))
               .where(col(Item.rubric_ref) == rubric_ref).limit(1))
    return conn.execute(revised).first() is not None


def records(conn: Connection, query: Any) -> list[SimpleNamespace]:
    """Rows of ``select(Table)`` as objects with one attribute per column (``metadata`` → ``meta``)."""
    out = []
    for row in conn.execute(query):
        data = dict(row._mapping)
        if "metadata" in data:
            data["meta"] = data.pop("metadata")
        out.append(SimpleNamespace(**data))
    return out


def current_revision(conn: Connection, item_pk: int) -> int:
    """The item's content revision (what a row written on it now belongs to); a
    :class:`UserError` when there is no such item."""
    revision = conn.execute(select(col(Item.revision)).where(col(Item.pk) == item_pk)).scalar()
    if revision is None:
        raise UserError(f"no item with key {item_pk}")
    return int(revision)


def inserted_pk(result: CursorResult[Any]) -> int:
    """The primary key of the row a one-row INSERT just wrote (SQLAlchemy types the key as
    optional: it is absent only for statements that are not one-row inserts)."""
    key = result.inserted_primary_key
    if key is None or key[0] is None:
        raise RuntimeError("the INSERT reported no primary key")
    return int(key[0])




#: Item keys one ``IN`` list asks for at a time (well under SQLite's bound on parameters).
IN_CHUNK = 5000


def rows_by_item(conn: Connection, table: Table, columns: Sequence[ColumnElement[Any]],
                 item_pks: Iterable[int]) -> dict[int, list[Row[Any]]]:
    """Per item key asked for (``[]`` when it has none), the rows of a person's history ``table``
    (one with ``item_pk`` and ``pk``: comments, corrections, marks) in ``columns``, oldest first;
    the keys asked :data:`IN_CHUNK` at a time."""
    pks = sorted(set(item_pks))
    out: dict[int, list[Row[Any]]] = {pk: [] for pk in pks}
    for i in range(0, len(pks), IN_CHUNK):
        q = (select(table.c.item_pk, *columns).where(table.c.item_pk.in_(pks[i:i + IN_CHUNK]))
             .order_by(table.c.pk))
        for row in conn.execute(q):
            out[row[0]].append(row)
    return out


def held_keys(conn: Connection, table: Table, keys: Iterable[str]) -> set[str]:
    """Those ``keys`` a cache ``table`` (keyed by its ``key`` column) holds, :data:`IN_CHUNK` a query."""
    return set(values_by_key(conn, table, "key", keys))


def values_by_key(conn: Connection, table: Table, column: str, keys: Iterable[str]) -> dict[str, Any]:
    """Per key a cache ``table`` (keyed by its ``key`` column) holds among ``keys``, its ``column``;
    the keys asked :data:`IN_CHUNK` at a time (the judge cache and the embedding cache)."""
    wanted = sorted(set(keys))
    found: dict[str, Any] = {}
    for i in range(0, len(wanted), IN_CHUNK):
        found.update((str(k), v) for k, v in conn.execute(
            select(table.c.key, table.c[column]).where(table.c.key.in_(wanted[i:i + IN_CHUNK]))))
    return found


def insert_new_keys(conn: Connection, table: Table, column: str, values: Mapping[str, Any]) -> int:
    """Insert into a cache ``table`` each (key, value) whose key it does not hold yet, in key order
    (first write wins: a key's value never changes); returns how many were inserted."""
    have = held_keys(conn, table, values)
    rows = [{"key": k, column: values[k]} for k in sorted(values) if k not in have]
    if rows:
        conn.execute(table.insert(), rows)
    return len(rows)
