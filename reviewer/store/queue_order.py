"""The queue list's orders as SQL: an ORDER BY on the queue's page read, on both backends.

Each order is a value the item row already holds, so a sorted page is one scan that keeps the
page's keys (the database's top-N sort), never a load of the queue into memory; a page is found by
OFFSET in the sorted list, and its rows are then read by key:

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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Float,
    Numeric,
    Select,
    String,
    and_,
    bindparam,
    case,
    cast,
    func,
    literal_column,
    not_,
    or_,
    select,
    true,
)
from sqlalchemy.sql.elements import SQLColumnExpression, UnaryExpression
from sqlmodel import col

from reviewer.store.sorting import QueueOrder
from reviewer.store.tables import Item

#: Text that is a JSON number, whole (RFC 8259's grammar with the whitespace JSON allows around
#: it), with an exponent of at most five digits (PostgreSQL's NUMERIC holds every such number).
JSON_NUMBER = r"^[ \t\r\n]*-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]{1,5})?[ \t\r\n]*$"
#: SQLite's side of the exponent's bound (its JSON check takes any length): six digits in a row
#: after the ``e``.
LONG_EXPONENT = "*[eE]*[0-9][0-9][0-9][0-9][0-9][0-9]*"
#: PostgreSQL compares numbers beyond a double's range as that bound, as SQLite's REAL does
#: (it reads them as infinite): the order is the same on both.
DOUBLE_MAX = "1.7976931348623157e308"


def sorted_keys(order: QueueOrder, conds: Sequence[ColumnElement[bool]], dialect: str, limit: int,
                offset: int) -> Select[int]:
    """The item keys of one page of the list sorted in ``order`` (only the keys and the values
    sorted by go through the sort; the caller reads the page's rows by key). Ties keep the
    queue's order."""
    pk = col(Item.pk)
    where = and_(*conds) if conds else true()
    if order.by == "metadata":
        assert order.key is not None  # QueueOrder checks it
        # the key's value read once per item, in a subquery the database runs as it is (OFFSET 0
        # keeps SQLite and PostgreSQL from folding it into the sort, which would read it again
        # for each use below)
        if dialect == "postgresql":
            value = literal_column("item.metadata").op("->")(bindparam("sort_key_name", order.key, type_=String()))
        else:
            value = literal_column("item.metadata").op("->")(bindparam("sort_key_path", '$."' + order.key + '"',
                                                                       type_=String()))
        sub = select(pk.label("pk"), value.label("v")).where(where).offset(0).subquery("by_key")
        number, text = _metadata_values(sub.c.v, dialect)
        ways = [_way(number, order.descending), _way(text, order.descending)]
        return select(sub.c.pk).order_by(*ways, sub.c.pk.asc()).limit(limit).offset(offset)
    if order.by == "queue":
        return select(pk).where(where).order_by(pk.desc() if order.descending else pk.asc()).limit(limit).offset(offset)
    sort_value = {
        "judge": func.coalesce(col(Item.judge_headline), col(Item.judge_overall)),
        "people": col(Item.human_gap),
        "panel": col(Item.judge_spread),
        "age": col(Item.created_at),
    }[order.by]
    return select(pk).where(where).order_by(_way(sort_value, order.descending), pk.asc()).limit(limit).offset(offset)


def _way(value: SQLColumnExpression[Any], descending: bool) -> UnaryExpression[Any]:
    """``value`` ascending or descending, items without it last."""
    return (value.desc() if descending else value.asc()).nulls_last()


def _metadata_values(v: ColumnElement[object], dialect: str) -> tuple[ColumnElement[object], ColumnElement[object]]:
    """From the key's value as JSON (``v``; NULL without the key): the value as a number (NULL
    unless it is one) and as text (NULL unless it is text)."""
    if dialect == "postgresql":
        kind = func.json_typeof(v)
        raw = v.op("#>>")(literal_column("'{}'"))
        bound = literal_column(DOUBLE_MAX, Numeric())
        as_number = func.greatest(-bound, func.least(bound, cast(raw, Numeric())))
        number = case((and_(kind.in_(("number", "string")), raw.op("~")(JSON_NUMBER)), as_number))
        return number, case((kind == "string", raw.collate("C")))
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


__all__ = ["JSON_NUMBER", "sorted_keys"]
