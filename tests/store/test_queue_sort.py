"""The queue list sorted in SQL on both backends: every order and direction equals the order
computed here, in Python, from all the item rows read with a plain query (numbers and text of a
metadata key by this file's own reading of the rule), page after page, alone and under a filter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.store.sorting import QueueOrder
from reviewer.store.views import QueueFilter
from rubrics.results import ScoreResult
from tests.store.sort_oracle import all_rows, as_time, expected, metadata_parts

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


def test_every_order_equals_the_order_computed_fromall_rows(store: Store, tmp_path: Path) -> None:
    _load(store, tmp_path)
    rows = all_rows(store)
    # the data reaches every branch of the rules: values and no values for each order
    assert {r["judge_overall"] is None for r in rows} == {True, False}
    assert {r["human_gap"] is None for r in rows} == {True, False}
    assert {r["judge_spread"] is None for r in rows} == {True, False}
    assert len({as_time(r["created_at"]) for r in rows}) == 2
    parts = [metadata_parts(r["metadata"], "k") for r in rows]
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
    rows = all_rows(store)
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
