"""The queue list sorted in SQL on both backends: every order and direction equals the order
computed here, in Python, from all the item rows read with a plain query (numbers and text of a
metadata key by this file's own reading of the rule), page after page, alone and under a filter."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.store.sorting import QueueOrder
from reviewer.store.views import QueueFilter
from rubrics.results import ScoreResult

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")
MISSING = object()
#: the values of metadata key "k", one item each: numbers, text that is a number and text that
#: is not, other JSON values, and items without the key
VALUES: list[Any] = [10, 9, 2.5, "10", "9", " 7 ", "-3", -3, -0.5, "1e2", 0, "abc", "Abc", "é", "Zed", "z",
                     True, False, None, [1], {"a": 1}, "+1", ".5", "12 kg", "", MISSING, MISSING, 9, "1e123456"]


def _load(store: Store, tmp_path: Path) -> None:
    """Items in two datasets (two imports: two times added); a judge score on most, people's
    scores on some (the judge against the people), a second model on some (the panel)."""
    rows = []
    for i, v in enumerate(VALUES):
        row: dict[str, Any] = {"id": f"s{i:02d}", "input": "q", "output": f"out {i}",
                               "metadata": {} if v is MISSING else {"k": v, "other": i}}
        if i % 5 != 4:  # every fifth has no judge score
            row["judge"] = {"model": "m1", "scores": {d: 1 + (i * 7 + k) % 10 for k, d in enumerate(DIMS)}}
        if i % 3 == 0:
            row["human"] = [{"reviewer": "ann", "scores": {"accuracy": 1 + (i * 5) % 10}}]
        rows.append(row)
    for ds, part in (("one", rows[::2]), ("two", rows[1::2])):
        path = tmp_path / f"{ds}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in part))
        import_file(store, path, REF, dataset=ds)
    for ds in ("one", "two"):
        run = store.runs.create_judge_run(REF, "m2", dataset=ds)
        store.runs.record_results(run, [ScoreResult(f"s{i:02d}", "accuracy", "llm_judge", "m2", float(1 + (i * 3) % 10))
                                        for i in range(len(VALUES)) if i % 2 == (ds == "two") and i % 4 < 2])


def _all_rows(store: Store) -> list[dict[str, Any]]:
    """Every item's values, by a plain query."""
    with store.db.read() as conn:
        got = conn.execute(text("SELECT pk, dataset, judge_headline, judge_overall, human_gap, judge_spread, "
                                "created_at, metadata FROM item")).mappings().all()
    rows = []
    for r in got:
        meta = r["metadata"]
        rows.append({**r, "metadata": json.loads(meta) if isinstance(meta, str) else meta})
    return rows


def _as_time(v: Any) -> datetime | None:
    return datetime.fromisoformat(v) if isinstance(v, str) else v


def _metadata_parts(meta: dict[str, Any] | None, key: str) -> tuple[float | None, str | None]:
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
        return _ordered(rows, [lambda r: _metadata_parts(r["metadata"], k)[0],
                               lambda r: _metadata_parts(r["metadata"], k)[1]], order.descending)
    value: Callable[[dict[str, Any]], Any] = {
        "judge": lambda r: r["judge_headline"] if r["judge_headline"] is not None else r["judge_overall"],
        "people": lambda r: r["human_gap"], "panel": lambda r: r["judge_spread"],
        "age": lambda r: _as_time(r["created_at"]),
    }[order.by]
    return _ordered(rows, [value], order.descending)


def _paged(store: Store, order: QueueOrder, filt: QueueFilter | None = None, size: int = 4) -> list[int]:
    """The sorted list read page by page, as the queue screen reads it."""
    got: list[int] = []
    after = None
    while True:
        page = store.queue.queue_page("triage", after=after, limit=size, filt=filt, order=order)
        got += [r.item_pk for r in page]
        if len(page) < size:
            return got
        after = page[-1].cursor


ORDERS = [QueueOrder(by, desc) for by in ("queue", "judge", "people", "panel", "age") for desc in (False, True)]
ORDERS += [QueueOrder("metadata", desc, key) for key in ("k", "other", "absent") for desc in (False, True)]


def test_every_order_equals_the_order_computed_from_all_rows(store: Store, tmp_path: Path) -> None:
    _load(store, tmp_path)
    rows = _all_rows(store)
    # the data reaches every branch of the rules: values and no values for each order
    assert {r["judge_overall"] is None for r in rows} == {True, False}
    assert {r["human_gap"] is None for r in rows} == {True, False}
    assert {r["judge_spread"] is None for r in rows} == {True, False}
    assert len({_as_time(r["created_at"]) for r in rows}) == 2
    parts = [_metadata_parts(r["metadata"], "k") for r in rows]
    assert {(n is not None, t is not None) for n, t in parts} == {(True, False), (True, True), (False, True),
                                                                   (False, False)}
    for order in ORDERS:
        want = expected(rows, order)
        assert _paged(store, order) == want, order
        assert [r.item_pk for r in store.queue.queue_page("triage", limit=100, order=order)] == want, order


def test_the_metadata_rule_in_words(store: Store, tmp_path: Path) -> None:
    """Numbers (9 before 10, "10" as a number), then text by code point, then the rest; equal
    numbers by their text, a JSON number (no text) after text that reads the same."""
    _load(store, tmp_path)
    page = store.queue.queue_page("triage", limit=100, order=QueueOrder("metadata", False, "k"))
    by_id = {f"s{i:02d}": v for i, v in enumerate(VALUES)}
    seen = [by_id[r.item_id] for r in page]
    numbers = seen[:12]
    assert [float(v) for v in numbers] == sorted(float(v) for v in numbers)
    # equal numbers: the text one first (a JSON number has no text), then by item
    assert numbers[:3] == ["-3", -3, -0.5] and numbers[-3:] == ["10", 10, "1e2"]
    assert seen[12:22] == ["", "+1", ".5", "12 kg", "1e123456", "Abc", "Zed", "abc", "z", "é"]
    assert all(v is MISSING or isinstance(v, bool | list | dict) or v is None for v in seen[22:])


def test_sort_combined_with_a_filter(store: Store, tmp_path: Path) -> None:
    _load(store, tmp_path)
    rows = _all_rows(store)
    two = [r for r in rows if r["dataset"] == "two"]
    for order in (QueueOrder("judge", True), QueueOrder("metadata", False, "k"), QueueOrder("age", True)):
        assert _paged(store, order, QueueFilter(dataset="two"), size=3) == expected(two, order)
    # text filter: "out 1" is in items 1 and 10..19
    texted = [r for r in rows if r["pk"] in {p.item_pk for p in store.queue.queue_page(
        "triage", limit=100, filt=QueueFilter(text="out 1"))}]
    assert len(texted) == 11
    order = QueueOrder("people", False)
    assert _paged(store, order, QueueFilter(text="out 1"), size=5) == expected(texted, order)


@pytest.mark.parametrize("order", [dict(by="size"), dict(by="metadata"), dict(by="metadata", key="  "),
                                   dict(by="metadata", key='a"b'), dict(by="metadata", key="a\nb"),
                                   dict(by="judge", key="k")])
def test_a_bad_order_is_refused_in_one_line(order: dict[str, Any]) -> None:
    with pytest.raises(UserError) as err:
        QueueOrder(**order)
    assert "\n" not in str(err.value).replace("\\n", "")
