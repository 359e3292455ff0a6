"""The queue list's orders computed in Python from every item row read with a plain query: the
oracle the sorted-queue tests hold the store's SQL to (a metadata key's numbers and text by this
module's own reading of the rule)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import text

from reviewer.store import Store
from reviewer.store.sorting import QueueOrder


def all_rows(store: Store) -> list[dict[str, Any]]:
    """Every item's values, by a plain query."""
    with store.db.read() as conn:
        got = conn.execute(text("SELECT pk, dataset, judge_headline, judge_overall, human_gap, judge_spread, "
                                "created_at, metadata FROM item")).mappings().all()
    rows = []
    for r in got:
        meta = r["metadata"]
        rows.append({**r, "metadata": json.loads(meta) if isinstance(meta, str) else meta})
    return rows


def as_time(v: Any) -> datetime | None:
    return datetime.fromisoformat(v) if isinstance(v, str) else v


def metadata_parts(meta: dict[str, Any] | None, key: str) -> tuple[float | None, str | None]:
    """This test's reading of the rule: a JSON number, or text json.loads reads as a (finite,
    non-boolean) number, is a number; text is text; anything else is neither."""
    if not meta or key not in meta:
        return None, None
    v = meta[key]
    if isinstance(v, bool) or v is None or isinstance(v, list | dict):
        return None, None
    if isinstance(v, int | float):
        return float(v), None
    try:
        parsed = json.loads(v, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    except ValueError:
        parsed = None
    number = float(parsed) if isinstance(parsed, int | float) and not isinstance(parsed, bool) else None
    if re.search(r"[eE][-+]?[0-9]{6}", v):  # the rule's bound: an exponent of at most five digits
        number = None
    assert number is None or math.isfinite(number)
    return number, v


def _ordered(rows: list[dict[str, Any]], keys: list[Callable[[dict[str, Any]], Any]], desc: bool) -> list[int]:
    """Item keys sorted by each of ``keys`` in turn (missing values last either way), ties by key."""
    out = sorted(rows, key=lambda r: r["pk"])
    for key in reversed(keys):
        present = [r for r in out if key(r) is not None]
        absent = [r for r in out if key(r) is None]
        out = sorted(present, key=key, reverse=desc) + absent
    return [r["pk"] for r in out]


def expected(rows: list[dict[str, Any]], order: QueueOrder) -> list[int]:
    if order.by == "queue":
        return sorted((r["pk"] for r in rows), reverse=order.descending)
    if order.by == "metadata":
        assert order.key is not None
        k = order.key
        return _ordered(rows, [lambda r: metadata_parts(r["metadata"], k)[0],
                               lambda r: metadata_parts(r["metadata"], k)[1]], order.descending)
    value: Callable[[dict[str, Any]], Any] = {
        "judge": lambda r: r["judge_headline"] if r["judge_headline"] is not None else r["judge_overall"],
        "people": lambda r: r["human_gap"], "panel": lambda r: r["judge_spread"],
        "age": lambda r: as_time(r["created_at"]),
    }[order.by]
    return _ordered(rows, [value], order.descending)
