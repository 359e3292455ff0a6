"""The demo tells the product's story: the judge trusted on some dimensions and not on others,
each for its reason, and a reviewer who is off on the known-answer items."""

from __future__ import annotations

import json
from pathlib import Path

from reviewer.services.gold import gold_accuracy
from reviewer.store import open_store
from tests.page.conftest import GQ


def test_the_demo_calibrates_to_every_verdict(demo: Path) -> None:
    """Proves: the demo's calibrate (its audit sample) gives trusted, tentative and low_confidence
    dimensions, one where the judge is the problem and one where the rubric is ambiguous."""
    report = json.loads((demo / "calibrate.json").read_text(encoding="utf-8"))
    assert report["sample"] == "audit"
    by = {d["dimension"]: d for d in report["dimensions"]}
    assert {d["status"] for d in by.values()} == {"trusted", "tentative", "low_confidence"}
    assert by["accuracy"]["status"] == "trusted" and by["accuracy"]["n"] >= 30
    assert by["clarity"]["status"] == "tentative"
    judge_problem = by["conciseness"]
    assert judge_problem["status"] == "low_confidence" and "the judge is the problem" in judge_problem["reason"]
    ambiguous = by["relevance"]
    assert ambiguous["status"] == "low_confidence" and "the rubric is ambiguous" in ambiguous["reason"]
    page = (demo / "calibrate.html").read_text(encoding="utf-8")
    assert all(f"class='chip s-{s}'" in page for s in ("trusted", "tentative", "low_confidence"))


def test_one_demo_reviewer_drifts_on_the_gold_items(demo: Path) -> None:
    """Proves: the demo has known-answer items every reviewer scored over four weeks; ana is right
    throughout, ben a point low throughout, and chen drifts: right in the first week, off later."""
    store = open_store(str(demo / "demo.db"), existing=True)
    try:
        rows = {r["reviewer"]: r for r in gold_accuracy(store, GQ)}
    finally:
        store.close()
    assert set(rows) == {"ana", "ben", "chen"} and all(r["n"] >= 20 for r in rows.values())
    weeks = ["2026-W41", "2026-W42", "2026-W43", "2026-W44"]
    assert all(list(r["mae_by_week"]) == weeks for r in rows.values())
    assert rows["ana"]["mae"] == 0 and rows["ben"]["drift"] == rows["ana"]["drift"] == 0
    chen = list(rows["chen"]["mae_by_week"].values())
    assert chen[0] == 0 and chen[2] >= chen[1] + 0.5 and (rows["chen"]["drift"] or 0.0) >= 1.5
