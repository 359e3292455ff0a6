"""LangSmith runs with their feedback in: each root run an item, evaluator feedback the judge's
and app feedback its person's, checked field by field on both databases; a broken export refused
in one line; the shape recognised without ``--from``; JSON Lines; and ``rubric init`` →
``rubric add`` → ``import`` → ``calibrate``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.errors import UserError
from reviewer.services.importing import import_opened, open_source
from reviewer.store import Store
from tests.adapters.conftest import DATA, calibration, drafted, init_add_import

FILE = DATA / "langsmith_runs.json"


def test_runs_and_feedback_land_field_by_field(store: Store) -> None:
    ref, opened = drafted(store, FILE)
    assert (opened.format, opened.detected) == ("langsmith", True)
    summary = import_opened(store, opened, ref)
    assert (summary.inserted, summary.judge_scores, summary.human_scores) == (5, 5, 9)
    assert sorted(opened.notes) == [
        "a child run (a step inside a trace): not imported, an item is a root run",
        "a feedback's correction: not imported (rubricate keeps scores and reasons)"]
    (pk, _, _), = store.items.items_by_id("6b1e2f00-0000-4000-8000-000000000002")
    view = store.items.item_view(pk)
    assert (view.input, view.output) == ("Summarise: the office closes at 6pm.", "The office is open late.")
    meta = view.metadata
    assert (meta["source"], meta["run_name"], meta["run_type"], meta["project_id"]) == (
        "langsmith", "summarise", "chain", "proj-1")
    assert (meta["tags"], meta["run_metadata"]) == (["summaries"], {"model": "gpt-4o-mini"})
    judge = view.judge["correctness"][0]
    assert (judge.model, judge.score, judge.rationale) == ("langsmith", 1.0, "evaluator says right")
    ana = view.human["correctness"]["ana"]
    assert (ana.score, ana.reason) == (0.0, "drops the 6pm")
    assert view.human["style"]["ana"].score == 1.0  # 'wordy', the second category seen
    rubric = store.rubrics.get_rubric(ref)
    style = next(d for d in rubric.dimensions if d.id == "style")
    assert (style.level, [a.label for a in style.anchors]) == ("nominal", ["concise", "wordy"])


def test_json_lines_of_runs(store: Store, tmp_path: Path) -> None:
    ref, _ = drafted(store, FILE)
    lines = tmp_path / "runs.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in json.loads(FILE.read_text())["runs"]))
    opened = open_source(lines, None)
    assert opened.format == "langsmith"
    assert import_opened(store, opened, ref).inserted == 5


def test_a_broken_export_is_refused_in_one_line_and_nothing_is_written(store: Store, tmp_path: Path) -> None:
    ref, _ = drafted(store, FILE)
    doc = json.loads(FILE.read_text())
    doc["runs"][3]["feedback"][1]["score"] = "great"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(UserError) as err:
        import_opened(store, open_source(bad, "langsmith"), ref)
    assert str(err.value) == f"{bad}:runs[3].feedback[1].score: 'great', expected a number or true/false"
    assert list(store.items.export_rows()) == []


def test_cli_init_add_import_calibrate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.db")
    out, err = init_add_import(FILE, "summaries", db, capsys)
    assert f"read {FILE} as langsmith (recognised by its shape" in err
    assert "5 new" in out
    correctness = calibration(db, "summaries@1.0.0", capsys)["correctness"]
    # By hand: evaluator 1,1,1,0,1 / ana 1,1,0,1,1 → 3 of 5 agree; p_e = (4/5)(4/5) + (1/5)(1/5) = 17/25,
    # κ = (3/5 − 17/25) / (8/25) = −1/4.
    assert correctness["n"] == 5
    assert correctness["exact"] == pytest.approx(3 / 5)
    assert correctness["kappa"] == pytest.approx(-0.25)
