"""The queue list's orders as SQL: one page of the list in an order, found by keyset (a seek past
the last row's sort values and key: its :class:`QueueCursor`), on both backends.

Each order is a value the item row already holds, and an index holds it beside the key (the
``0014s_queue_sort`` migration for the fixed orders; :mod:`reviewer.store.queue_sort_index` for a
metadata key), so a page is a seek into that index reading the page's rows, never a scan of the
queue or a load of it into memory:

- ``judge``: the list's score cell: the judge's headline score where the rubric names one, else
  its overall (both on 0–1);
- ``people`` and ``panel``: the two disagreements the filter knows, as stored: the judge against
  the people (``item.human_gap``) and the judge panel's spread (``item.judge_spread``);
- ``age``: when the item was added (``item.created_at``);
- ``metadata``: one key of the item's metadata. A JSON number, or text that is a JSON number
  (``"12"``, ``"-3.5"``, ``"1e3"``; not ``"+1"``, ``".5"`` or ``"12 kg"``; an exponent of at most
  five digits), sorts as a number, before every other value (equal numbers by their text, a JSON
  number, which has none, after); other text sorts after the numbers, by code point (the same on
  SQLite and PostgreSQL); no key, ``null``, ``true``/``false``, a list or an object come last.

Items without the value (no judge score, no gap, no such key) come last in either direction;
ties keep the queue's order (item key, ascending).

The list is cut into *classes* read one after the other (the items with the value, then those
without; for a metadata key: numbers, text, the rest). In a class the values before its own are
NULL and its own never is, so the index gives the class in order from the cursor on (only the ties
of one value sorted by key), and a page that ends a class goes on into the next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Float,
    Numeric,
    Select,
    String,
    and_,
    case,
    cast,
    false,
    func,
    literal,
    literal_column,
    not_,
    or_,
    select,
    true,
)
from sqlalchemy.sql.elements import UnaryExpression
from sqlmodel import col

from reviewer.store.sorting import QueueCursor, QueueOrder, SortValue
from reviewer.store.tables import Item, table_of

#: Text that is a JSON number, whole (RFC 8259's grammar with the whitespace JSON allows around
#: it), with an exponent of at most five digits (PostgreSQL's NUMERIC holds every such number).
JSON_NUMBER = r"^[ \t\r\n]*-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]{1,5})?[ \t\r\n]*$"
#: SQLite's side of the exponent's bound (its JSON check takes any length): six digits in a row
#: after the ``e``.
LONG_EXPONENT = "*[eE]*[0-9][0-9][0-9][0-9][0-9][0-9]*"
#: PostgreSQL compares numbers beyond a double's range as that bound, as SQLite's REAL does
#: (it reads them as infinite): the order is the same on both.
DOUBLE_MAX = "1.7976931348623157e308"


@dataclass(frozen=True)
class SortClass:
    """One part of a sorted list: the items ``where`` keeps. ``lead``: the place among the
    order's values of the first one every item of the class has (the values before it are NULL
    in it); None for the items with none of them, which are in key order."""

    where: ColumnElement[bool]
    lead: int | None


def sort_values(order: QueueOrder, dialect: str) -> tuple[ColumnElement[Any], ...]:
    """The values a row is sorted by in ``order`` (none in the queue's own order): the cursor's."""
    if order.by == "queue":
        return ()
    if order.by == "metadata":
        return metadata_values(order.key or "", dialect)
    item = table_of(Item).c
    return ({
        "judge": func.coalesce(item.judge_headline, item.judge_overall),
        "people": item.human_gap,
        "panel": item.judge_spread,
        "age": item.created_at,
    }[order.by],)


def sort_classes(order: QueueOrder, dialect: str) -> list[SortClass]:
    """``order``'s classes, in the list's order: the items with its first value, those without
    it but with the next, …, those with none."""
    values = sort_values(order, dialect)
    parts = [SortClass(and_(*(u.is_(None) for u in values[:i]), v.is_not(None)), i) for i, v in enumerate(values)]
    return [*parts, SortClass(and_(*(u.is_(None) for u in values)) if values else true(), None)]


def class_of(values: Sequence[SortValue]) -> int:
    """The class a row with these sort values is in (the first whose first value it has)."""
    return next((i for i, v in enumerate(values) if v is not None), len(values))


def page_rows(conn: Connection, order: QueueOrder, conds: Sequence[ColumnElement[bool]], dialect: str,
              limit: int, after: QueueCursor | None,
              columns: Sequence[ColumnElement[Any]]) -> list[tuple[QueueCursor, Sequence[Any]]]:
    """One page of the list sorted in ``order``: the ``limit`` rows ``conds`` keeps that come
    after ``after`` (from the first without one), each as its cursor and its ``columns``. Each
    class is an indexed read (the cursor's, two: :func:`seeks`); a page goes on into the next
    class when one ends."""
    if after is not None and after.order != order:
        raise ValueError(f"a cursor of the list in {after.order.describe()} given for {order.describe()}")
    got: list[tuple[QueueCursor, Sequence[Any]]] = []
    n = len(sort_values(order, dialect))
    start = 0 if after is None else class_of(after.values)
    for k in range(start, len(sort_classes(order, dialect))):
        for seek in seeks(order, dialect, after) if after is not None and k == start else [None]:
            q = class_page(order, conds, dialect, k, seek, limit - len(got), columns)
            got += [(QueueCursor(order, tuple(r[1:1 + n]), r[0]), r[1 + n:]) for r in conn.execute(q)]
            if len(got) >= limit:
                return got
    return got


def class_page(order: QueueOrder, conds: Sequence[ColumnElement[bool]], dialect: str, k: int,
               seek: ColumnElement[bool] | None, limit: int,
               columns: Sequence[ColumnElement[Any]] = ()) -> Select[Any]:
    """The statement of :func:`page_rows` for class ``k``: the key, sort values and ``columns``
    of its first ``limit`` rows (those ``seek`` keeps, given one: one of :func:`seeks`)."""
    values = sort_values(order, dialect)
    part = sort_classes(order, dialect)[k]
    return (select(col(Item.pk), *values, *columns).where(part.where, *conds, *([] if seek is None else [seek]))
            .order_by(*_ways(order, values, part, dialect)).limit(limit))


def _ways(order: QueueOrder, values: Sequence[ColumnElement[Any]], part: SortClass,
          dialect: str) -> list[UnaryExpression[Any]]:
    """The class's ORDER BY: the order's values from the class's first, then the key; the
    values after the first may be NULL: NULL last. Said as the index holds them wherever the
    class allows, so the database reads the index in order instead of sorting the class: a
    value NULL throughout the class pins the index's first columns for SQLite as it stands, and
    PostgreSQL is told it as well (ordered the class's way, ascending in the class with none,
    whose items are then in the index's key order)."""
    ways: list[UnaryExpression[Any]] = []
    for i, v in enumerate(values):
        pinned = part.lead is None or i < part.lead
        if pinned and dialect != "postgresql":
            continue
        way = v.desc() if order.descending and part.lead is not None else v.asc()
        ways.append(way.nulls_last() if not pinned and i > (part.lead or 0) else way)
    pk = col(Item.pk)
    ways.append(pk.desc() if order.by == "queue" and order.descending else pk.asc())
    return ways


def seeks(order: QueueOrder, dialect: str, cursor: QueueCursor) -> list[ColumnElement[bool]]:
    """The rows of the cursor's class past ``cursor``, as the conditions of the reads that give
    them in order: the rest of the cursor's tie (its class's first value equal, and past it in
    the next values, …, or equal in every value and of a later key), then the rows past that
    value. Each is a range of the order's index (read as two, the tie's rest never makes the
    database walk the tie from its start, nor sort the rows past it)."""
    values = sort_values(order, dialect)
    part = sort_classes(order, dialect)[class_of(cursor.values)]
    pk = col(Item.pk)
    # only the queue's own order, reversed, has its keys from high to low
    later_key = pk < cursor.pk if order.by == "queue" and order.descending else pk > cursor.pk
    if part.lead is None:
        return [later_key]
    either: list[ColumnElement[bool]] = []
    same: list[ColumnElement[bool]] = []
    for i, (v, c) in enumerate(zip(values, cursor.values, strict=True)):
        if i > part.lead:
            either.append(and_(*same, _past(v, c, order.descending, True)))
        same.append(v.is_(None) if c is None else v == literal(c, v.type))
    either.append(and_(*same, later_key))
    lead = values[part.lead]
    bound = literal(cursor.values[part.lead], lead.type)
    return [or_(*either), lead < bound if order.descending else lead > bound]


def _past(e: ColumnElement[Any], c: SortValue, descending: bool, nullable: bool) -> ColumnElement[bool]:
    """Whether ``e`` comes after ``c`` (NULL last: nothing comes after a NULL)."""
    if c is None:
        return false()
    past = e < c if descending else e > c
    return or_(past, e.is_(None)) if nullable else past


def metadata_values(key: str, dialect: str) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
    """The metadata key's value as a number (NULL unless it is one) and as text (NULL unless it
    is text): :func:`metadata_sql` as expressions."""
    number, text = metadata_sql(key, dialect)
    return (literal_column(number, Numeric() if dialect == "postgresql" else Float()),
            literal_column(text, String()))


@lru_cache(maxsize=64)
def metadata_sql(key: str, dialect: str) -> tuple[str, str]:
    """:func:`metadata_values` as SQL text with every constant written in (the key too): the
    statement and the key's index (:mod:`reviewer.store.queue_sort_index`) say it word for word
    the same, which is how the database knows the index holds it."""
    from sqlalchemy.engine import URL

    number, text = _metadata_expressions(key, dialect)
    target = URL.create("postgresql+psycopg" if dialect == "postgresql" else "sqlite").get_dialect()()

    def written(e: ColumnElement[Any]) -> str:
        out = str(e.compile(dialect=target, compile_kwargs={"literal_binds": True}))
        # the compiler doubles a literal's ``%`` for the driver's placeholders; the text is plain SQL
        return out.replace("%%", "%") if target.paramstyle == "pyformat" else out

    return written(number), written(text)


def _metadata_expressions(key: str, dialect: str) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
    """The two values of :func:`metadata_values`, as SQLAlchemy expressions."""
    meta: ColumnElement[Any] = literal_column("metadata")  # unqualified: SQLite's index expressions name no table
    if dialect == "postgresql":
        v = meta.op("->")(literal(key, String()))
        kind = func.json_typeof(v)
        raw = v.op("#>>")(literal_column("'{}'"))
        bound = literal_column(DOUBLE_MAX, Numeric())
        as_number = func.greatest(-bound, func.least(bound, cast(raw, Numeric())))
        number = case((and_(kind.in_(("number", "string")), raw.op("~")(JSON_NUMBER)), as_number))
        return number, case((kind == "string", raw.collate("C")))
    v = meta.op("->")(literal('$."' + key + '"', String()))
    # SQLite's ``->`` gives the value as compact JSON text: its first character says its type (a
    # string's quote; a number's sign or digit). Each CASE reaches its inner checks only where the
    # outer ones hold: json_type refuses what json_valid does not take, and text whose first
    # character no number can start with (after JSON's whitespace) is not parsed at all.
    unquoted = v.op("->>")(literal_column("'$'"))
    short = not_(v.op("GLOB")(LONG_EXPONENT))
    plain = case((or_(func.instr(v, "e") + func.instr(v, "E") == 0, short), cast(v, Float())))
    in_text = case((func.json_valid(unquoted) == 1,
                    case((and_(func.json_type(unquoted).in_(("integer", "real")), short), cast(unquoted, Float())))))
    number = case((v.op("GLOB")("[-0-9]*"), plain), (v.op("GLOB")('"[-0-9 \\]*'), in_text))
    return number, case((v.op("GLOB")('"*'), unquoted))


__all__ = ["JSON_NUMBER", "class_of", "class_page", "metadata_sql", "metadata_values", "page_rows", "seeks", "sort_classes",
           "sort_values"]
