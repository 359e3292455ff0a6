"""Bulk inserts handed straight to the database driver.

SQLAlchemy Core's ``executemany`` still builds and processes a parameter dict per row in Python;
for 100k items with four judge scores each that costs several times what SQLite spends inserting.
Here the caller hands over tuples already in the driver's terms (JSON columns as text made by
:func:`json_text`, numbers, strings, booleans, None), the columns it leaves out get their defaults
once per call, written into the statement as literals where that is safe, and the rows go to the
driver's ``executemany``. What lands in the table is what Core would have written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import JSON, Connection, Table
from sqlalchemy.sql.schema import CallableColumnDefault, ScalarElementColumnDefault

_PLACEHOLDER = {"qmark": "?", "format": "%s", "pyformat": "%s"}
#: Constant values that can sit in the SQL text as they are: no quote, no percent sign, no
#: backslash (``[]`` and ``{}``: the empty JSON lists and objects most rows carry).
_SAFE_TEXT = re.compile(r"[\w .:@+\[\]{}-]*")
_EMPTY: dict[type, str] = {list: "[]", dict: "{}"}
_WORD = re.compile(r"\b[A-Za-z_]\w*\b")


def can_derive(conn: Connection) -> bool:
    """Whether :func:`bulk_insert` can derive columns here (SQLite: numbered parameters)."""
    return conn.dialect.paramstyle == "qmark"


def json_text(value: Any) -> str:
    """What SQLAlchemy's JSON type writes (``json.dumps``; None is the JSON ``null``)."""
    if value is None:
        return "null"
    if not value and type(value) in _EMPTY:
        return _EMPTY[type(value)]
    return json.dumps(value)


def _literal(value: Any, dialect: str) -> str | None:
    """``value`` as SQL literal text, or None when it must be bound as a parameter."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):  # what each driver binds a bool as: SQLite 1/0, PostgreSQL true/false
        return ("1" if value else "0") if dialect == "sqlite" else ("true" if value else "false")
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str) and _SAFE_TEXT.fullmatch(value):
        return f"'{value}'"
    return None


def db_value(conn: Connection, column: Any, value: Any) -> Any:
    """``value`` as the driver takes it for ``column`` (JSON as text, a time as the dialect stores it)."""
    if isinstance(column.type, JSON):
        return json_text(value)
    proc = column.type.dialect_impl(conn.dialect).bind_processor(conn.dialect)
    return proc(value) if proc is not None and value is not None else value


def bulk_insert(conn: Connection, table: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]],
                constants: Mapping[str, Any] | None = None, chunk: int = 20_000,
                derived: Mapping[str, str] | None = None) -> int:
    """Insert ``rows`` (tuples in ``columns`` order, JSON already text) into ``table``.

    ``constants`` holds columns with one value for every row (in the driver's terms, like the
    rows). Columns named nowhere get their default, computed once for the whole call (so every
    row of one import carries the same ``created_at``); an autoincrement primary key not named is
    left to the database. ``derived`` (SQLite only: :func:`can_derive`): columns whose value is an
    SQL expression over the row's other columns, evaluated as the row goes in — what an UPDATE
    setting them to that expression would store. Returns how many rows were written.
    """
    if not rows:
        return 0
    style = conn.dialect.paramstyle
    if style not in _PLACEHOLDER:  # pragma: no cover - both supported drivers are listed
        raise RuntimeError(f"bulk_insert does not know the {style} parameter style")
    if derived and not can_derive(conn):
        raise RuntimeError("bulk_insert derives columns on SQLite only")
    # derived columns refer to the row's values by number (SQLite's ?NNN), so one can be used twice
    mark = _PLACEHOLDER[style]
    names = list(columns)
    values = [f"?{i}" for i in range(1, len(names) + 1)] if derived else [mark] * len(names)
    bound_tail: list[Any] = []
    fixed = [(name, value) for name, value in (constants or {}).items()]
    for column in table.columns:
        if column.name in columns or column.name in (constants or {}) or column.name in (derived or {}):
            continue
        if column.primary_key and column.autoincrement in (True, "auto"):
            continue
        default = column.default
        if default is None:
            continue
        if isinstance(default, CallableColumnDefault):
            raw = default.arg(None)  # type: ignore[arg-type]  # no execution context here; the defaults used (now) take none
        elif isinstance(default, ScalarElementColumnDefault):
            raw = default.arg
        else:  # pragma: no cover - the tables have constant and Python-function defaults only
            raise RuntimeError(f"bulk_insert cannot compute the default of {table.name}.{column.name}")
        fixed.append((column.name, db_value(conn, column, raw)))
    for name, value in fixed:
        names.append(name)
        literal = _literal(value, conn.dialect.name)
        if literal is None:
            bound_tail.append(value)
            values.append(f"?{len(columns) + len(bound_tail)}" if derived else mark)
        else:
            values.append(literal)
    if derived:
        # a column this statement leaves out is NULL in the row (it has no default: those are named)
        given = {c.name: "NULL" for c in table.columns if c.server_default is None}
        given.update(zip(names, values, strict=True))
        for name, expr in derived.items():
            names.append(name)
            values.append("(" + _WORD.sub(lambda m: given.get(m[0], m[0]), expr) + ")")
    prep = conn.dialect.identifier_preparer
    sql = (f"INSERT INTO {prep.format_table(table)} ({', '.join(prep.quote(n) for n in names)}) "
           f"VALUES ({', '.join(values)})")
    tail = tuple(bound_tail)
    # the driver's own cursor, in the connection's transaction: SQLAlchemy would look at each row
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]  # an open Connection has one
    try:
        for i in range(0, len(rows), chunk):
            part = rows[i:i + chunk]
            cursor.executemany(sql, [(*r, *tail) for r in part] if tail else part)
    finally:
        cursor.close()
    return len(rows)


@contextmanager
def deferred_indexes(conn: Connection, tables: Sequence[str]) -> Iterator[None]:
    """SQLite, inside the caller's write transaction: the plain (non-unique) indexes of ``tables``
    dropped while a large import inserts, and made again from their stored SQL when the block
    ends (also when it fails: the transaction then rolls back with them in place). Building an
    index once over the finished table sorts its rows; keeping it up to date row by row costs
    about three times as much. Unique indexes stay (they refuse a duplicate as it goes in); so do
    the rows' meaning and every constraint. Nothing else sees the gap: the transaction holds the
    write lock, and a rollback or crash restores the indexes with the rest. PostgreSQL: nothing
    dropped."""
    if conn.dialect.name != "sqlite" or not tables:
        yield
        return
    saved = [(name, sql) for name, sql in conn.exec_driver_sql(
        f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
        f"AND tbl_name IN ({', '.join('?' * len(tables))}) ORDER BY name", tuple(tables)).all()
        if not sql.lstrip().upper().startswith("CREATE UNIQUE")]
    prep = conn.dialect.identifier_preparer
    for name, _ in saved:
        conn.exec_driver_sql(f"DROP INDEX {prep.quote(name)}")
    try:
        yield
    finally:
        have = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'index'")}
        for name, sql in saved:
            if name not in have:
                conn.exec_driver_sql(sql)
