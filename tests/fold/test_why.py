"""One test per "Why" bullet of issue 12 that belongs to the fold: each failed on the code before
the domain layer (what it printed then is said in the test) and passes now. Real stores on SQLite
and PostgreSQL."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from reviewer.services.calibrate_service import calibrate, dimension_detail
from reviewer.services.run_report import run_report
from reviewer.store import Store
from reviewer.tui import adapter
from tests.fold.conftest import REF, add_items, as_

TOP = {"accuracy": {"score": 5}, "clarity": {"score": 5}, "style": {"score": 5}}


def _export(store: Store, ref: str = REF) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in store.items.export_rows(ref)}


def test_judge_error_on_a_weighted_dimension_makes_the_item_incomplete(fstore: Store, tmp_path: Path) -> None:
    """Before: the failed dimension dropped out and the rest was renormalised: overall 1.0, High,
    passed — in export, report and the TUI alike."""
    judge = {**TOP, "clarity": {"error": "reply was not JSON", "raw_reply": "{oops"}}
    pks = add_items(fstore, tmp_path, [
        {"id": "err", "output": "x", "judge": {"model": "m1", "scores": judge},
         "human": [{"reviewer": "ana", "scores": {"empathy": 5}}]}])
    row = _export(fstore)["err"]
    assert row["overall"] is None and row["band"] is None and row["passed"] is False
    assert row["incomplete"] == "clarity: judge error"
    assert row["dimensions"]["clarity"]["state"] == "failed"
    state = adapter.load_item(fstore, pks["err"], "ana")
    assert state.effective_result().overall is None and state.judge_result().overall is None
    rep = run_report(fstore, REF)
    assert rep["incomplete"] == 1 and rep["overall_mean"] is None
    assert rep["leaderboard"][0]["pass_rate"] == 0.0


def test_a_human_only_dimension_nobody_scored_keeps_the_item_incomplete(fstore: Store, tmp_path: Path) -> None:
    """Before: ``empathy`` (method human, weight 0.2) with no score was left out: overall 1.0, High."""
    pks = add_items(fstore, tmp_path, [{"id": "wait", "output": "x", "judge": {"model": "m1", "scores": TOP}}])
    row = _export(fstore)["wait"]
    assert row["overall"] is None and row["band"] is None and not row["passed"]
    assert row["incomplete"] == "empathy: waits for a person"
    assert {r.item_id: r.overall for r in fstore.queue.queue_page("triage", REF)}["wait"] is None
    as_(fstore, "ana").scores.add_human_score(pks["wait"], "empathy", "ana", 5)
    row = _export(fstore)["wait"]
    assert row["overall"] == pytest.approx(1.0) and row["band"] == "High" and row["passed"]
    # the queue's judge column: the judge's scores, and people's on what only people score
    assert {r.item_id: r.overall for r in fstore.queue.queue_page("triage", REF)}["wait"] == pytest.approx(1.0)


def test_judge_error_on_a_ceiling_dimension_is_incomplete_even_unweighted(fstore: Store, tmp_path: Path) -> None:
    """A ceiling's dimension whose judge failed could cap the item: it stays incomplete."""
    judge = {**TOP, "accuracy": {"error": "timeout"}}
    add_items(fstore, tmp_path, [{"id": "cap", "output": "x", "judge": {"model": "m1", "scores": judge},
                                  "human": [{"reviewer": "ana", "scores": {"empathy": 5}}]}])
    assert _export(fstore)["cap"]["overall"] is None


def test_two_flags_one_confirmed_one_cleared_is_not_cleared(sqlite_fstore: Store, tmp_path: Path) -> None:
    """Before: export and report took the last flag's stored status ("cleared") and printed the
    uncapped overall 1.0, while the queue still showed the item flagged. (SQLite: two people sign
    off, see ``as_``.)"""
    fstore = sqlite_fstore
    pks = add_items(fstore, tmp_path, [{"id": "two", "output": "x", "judge": {"model": "m1", "scores": TOP},
                                        "human": [{"reviewer": "ana", "scores": {"empathy": 5}}]}])
    pk = pks["two"]
    first = as_(fstore, "ana").safety.flag_item(pk, "ana", "looks like a leaked address")
    second = as_(fstore, "ben").safety.flag_item(pk, "ben", "maybe a phone number")
    assert as_(fstore, "sam").safety.add_safety_decision(first, "sam", "confirm", "a real address") == "confirmed"
    as_(fstore, "sam").safety.add_safety_decision(second, "sam", "clear", "a shop's number")
    assert as_(fstore, "sol").safety.add_safety_decision(second, "sol", "clear", "agreed") == "cleared"
    row = _export(fstore)["two"]
    assert row["safety"] == "confirmed"
    assert row["overall"] == 0.0 and not row["passed"]  # the rubric's safety cap
    assert Counter(run_report(fstore, REF)["safety"]) == Counter({"confirmed": 1})
    queue = {r.item_id: r for r in fstore.queue.queue_page("triage", REF)}
    assert queue["two"].flagged
    state = adapter.load_item(fstore, pk, "ana")
    assert state.safety_failed and state.effective_result().overall == 0.0
    assert state.fold is not None and state.fold.safety.status == "confirmed"
    assert fstore.queue.queue_count("safety", REF) == 0  # nothing waits for a decision


def test_the_escalator_alone_cannot_clear(sqlite_fstore: Store, tmp_path: Path) -> None:
    """(SQLite: two people sign off, see ``as_``.) Before: any clearance by anyone cleared."""
    fstore = sqlite_fstore
    pks = add_items(fstore, tmp_path, [{"id": "esc", "output": "x", "judge": {"model": "m1", "scores": TOP}}])
    flag = as_(fstore, "ana").safety.flag_item(pks["esc"], "ana")
    as_(fstore, "sam").safety.add_safety_decision(flag, "sam", "escalate", "not sure")
    fstore.safety.add_safety_decision(flag, "sam", "clear", "on second thoughts")
    assert fstore.safety.add_safety_decision(flag, "sam", "clear", "again") == "escalated"  # one person, twice
    assert as_(fstore, "sol").safety.add_safety_decision(flag, "sol", "clear", "fine") == "cleared"
    assert _export(fstore)["esc"]["safety"] == "cleared"


def test_a_leads_adjudication_settles_the_dimension(fstore: Store, tmp_path: Path) -> None:
    """Before (3bf25e7, run): the effective score was 2.67, not the 3 the lead settled."""
    pks = add_items(fstore, tmp_path, [{"id": "adj", "output": "x", "judge": {"model": "m1", "scores": TOP}}])
    pk = pks["adj"]
    for who, score in (("ana", 2), ("ben", 3), ("lee", 3)):
        as_(fstore, who).scores.add_human_score(pk, "accuracy", who, score)
    as_(fstore, "lee").scores.add_human_score(pk, "accuracy", "lee", 3, kind="adjudication")
    dim = _export(fstore)["adj"]["dimensions"]["accuracy"]
    assert dim["effective"] == 3.0 and dim["source"] == "adjudication"
    assert dim["human"] == {"ana": 2.0, "ben": 3.0, "lee": 3.0}  # the lead's vote stays a vote
    state = adapter.load_item(fstore, pk, "ana")
    assert state.fold is not None and state.fold.effective["accuracy"] == 3.0
    rating = {r["item_pk"]: r for r in fstore.ratings.rating_rows(REF)}[pk]
    assert rating["effective"]["accuracy"] == 3.0 and rating["adjudicated"] == {"accuracy": 3.0}
    assert rating["human"]["accuracy"] == {"ana": 2.0, "ben": 3.0, "lee": 3.0}


def test_drill_down_header_counts_the_items_of_its_matrix(demo_all: Store) -> None:
    """Before: the header took n from the report (the audit sample: 14 items) while the matrix
    was filled from every item (31)."""
    for row in adapter.calibration_rows(demo_all, "general-quality@1.0.0", None):
        detail = adapter.calibration_detail(demo_all, row["rubric"], row["dimension"], row["dataset"], row["sample"])
        assert detail["sample"] == row["sample"] == "audit"
        assert detail["n"] == row["n"], row["dimension"]


def test_tui_and_cli_print_the_same_intervals(demo_all: Store) -> None:
    """Before: the TUI drew 500 bootstrap samples and the CLI 1000, so their intervals differed."""
    tui = {r["dimension"]: r["alpha_ci"] for r in adapter.calibration_rows(demo_all, "general-quality@1.0.0", None)}
    cli = {d["dimension"]: d["alpha_ci"] for d in calibrate(demo_all, "general-quality@1.0.0")["dimensions"]}
    assert tui == cli and any(ci is not None for ci in cli.values())
    detail = dimension_detail(demo_all, "general-quality@1.0.0", "accuracy")
    assert detail["sample"] == "audit"


def test_run_report_rank_agreement_compares_the_same_overall(fstore: Store, tmp_path: Path) -> None:
    """Without people the effective overall is the judge's, so the judge's ranking and the
    effective ranking are one: Kendall's tau is 1. Before: the judge side was the unweighted mean
    of the judge's raw scores (C 4.33 > B 4 > A 3.67) against the weighted, capped overall
    (C 0.825 > A 0.75 > B 0.25, B capped by its accuracy of 2): tau 1/3."""
    items = [
        {"id": "A", "group": "g", "output": "a", "human": [{"reviewer": "ana", "scores": {"empathy": 3}}],
         "judge": {"model": "m1", "scores": {"accuracy": {"score": 5}, "clarity": {"score": 3}, "style": {"score": 3}}}},
        {"id": "B", "group": "g", "output": "b", "human": [{"reviewer": "ana", "scores": {"empathy": 3}}],
         "judge": {"model": "m1", "scores": {"accuracy": {"score": 2}, "clarity": {"score": 5}, "style": {"score": 5}}}},
        {"id": "C", "group": "g", "output": "c", "human": [{"reviewer": "ana", "scores": {"empathy": 3}}],
         "judge": {"model": "m1", "scores": {"accuracy": {"score": 5}, "clarity": {"score": 4}, "style": {"score": 4}}}},
    ]
    add_items(fstore, tmp_path, items)
    rows = _export(fstore)
    assert rows["C"]["overall"] > rows["A"]["overall"] > rows["B"]["overall"]
    rep = run_report(fstore, REF)["group_rank_agreement"]
    assert rep["groups_ranked"] == 1 and rep["mean_kendall"] == pytest.approx(1.0)
