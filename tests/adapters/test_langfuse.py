"""Langfuse scores (with ``--traces`` for the texts) in: each trace an item, EVAL/API scores the
judge's and ANNOTATION scores their author's, checked field by field on both databases; a broken
export refused in one line; the shape recognised without ``--from``; JSON Lines and standard
input; and ``rubric init`` → ``rubric add`` → ``import`` → ``calibrate``."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from reviewer.errors import UserError
from reviewer.services.importing import import_opened, open_source
from reviewer.store import Store
from rubrics.draft import draft_rubric
from rubrics.loader import load_rubric_text
from tests.adapters.conftest import DATA, calibration
from tests.cli import run_cli

SCORES, TRACES = DATA / "langfuse_scores.json", DATA / "langfuse_traces.json"


def _registered(store: Store, scores: Path = SCORES) -> str:
    opened = open_source(scores, None, traces=TRACES)
    assert opened.converted is not None
    text = draft_rubric(list(opened.converted.dimensions.values()), "lf", "evals-team", scores.name)
    rubric = load_rubric_text(text)
    store.rubrics.add_rubric(rubric, text, require_newer=True)
    return rubric.ref


def test_scores_and_traces_land_field_by_field(store: Store) -> None:
    ref = _registered(store)
    opened = open_source(SCORES, None, traces=TRACES)
    assert (opened.format, opened.detected) == ("langfuse", True)
    summary = import_opened(store, opened, ref)
    assert (summary.inserted, summary.judge_scores, summary.human_scores) == (6, 12, 18)
    assert opened.notes == ["a score on an observation inside a trace: not imported (an item is a trace)"]
    (pk, _, _), = store.items.items_by_id("tr-002-7f2c")
    view = store.items.item_view(pk)
    assert (view.input, view.output) == ("Do you price-match?", "We match any price.")
    meta = view.metadata
    assert (meta["source"], meta["trace_id"], meta["trace_name"], meta["session_id"], meta["user_id"]) == (
        "langfuse", "tr-002-7f2c", "support-answer", "sess-1", "customer-2")
    assert (meta["tags"], meta["release"], meta["environment"]) == (["prod"], "v12", "production")
    assert meta["trace_metadata"] == {"channel": "chat"}
    judge = view.judge["correctness"][0]
    assert (judge.model, judge.score, judge.rationale) == ("langfuse", 4.0, "eval reasoning 2")
    ana = view.human["correctness"]["user_ana"]
    assert (ana.score, ana.reason, ana.kind) == (2.0, "misses the exception for sale items", "import")
    assert view.human["correctness"]["user_ben"].score == 1.0
    assert (view.judge["helpful"][0].score, view.human["helpful"]["user_ana"].score) == (1.0, 0.0)
    (pk0, _, _), = store.items.items_by_id("tr-000-7f2c")
    assert store.items.item_view(pk0).input == '{"question": "What is our refund window?"}'


def test_json_lines_without_traces_says_the_texts_are_missing(store: Store, tmp_path: Path) -> None:
    ref = _registered(store)
    lines = tmp_path / "scores.jsonl"
    lines.write_text("".join(json.dumps(s) + "\n" for s in json.loads(SCORES.read_text())["data"]))
    opened = open_source(lines, None)
    assert opened.format == "langfuse"
    summary = import_opened(store, opened, ref)
    assert summary.inserted == 6
    assert "no trace texts (give --traces FILE): items imported with empty input and output" in opened.notes
    (pk, _, _), = store.items.items_by_id("tr-001-7f2c")
    assert store.items.item_view(pk).output == ""


def test_a_broken_export_is_refused_in_one_line_and_nothing_is_written(store: Store, tmp_path: Path) -> None:
    ref = _registered(store)
    doc = json.loads(SCORES.read_text())
    doc["data"][4]["dataType"] = "TEXT"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(UserError) as err:
        import_opened(store, open_source(bad, "langfuse", traces=TRACES), ref)
    assert str(err.value) == f"{bad}:data[4].dataType: 'TEXT'; Langfuse's types are NUMERIC, CATEGORICAL and BOOLEAN"
    assert list(store.items.export_rows()) == []


def test_traces_go_only_with_langfuse(tmp_path: Path) -> None:
    with pytest.raises(UserError) as err:
        open_source(DATA / "judge_bench.json", "judge-bench", traces=TRACES)
    assert str(err.value) == f"{TRACES}: --traces goes with --from langfuse (the file is read as judge-bench)"


def test_cli_init_add_import_calibrate(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    db, rubric = str(tmp_path / "t.db"), tmp_path / "lf.yaml"
    code, _, err = run_cli(["rubric", "init", "--from", str(SCORES), "--traces", str(TRACES), "--out", str(rubric),
                            "--id", "support-lf", "--owner", "evals-team"], capsys)
    assert code == 0, err
    assert "label: 'true'" in rubric.read_text() and "label: 'false'" in rubric.read_text()
    assert run_cli(["rubric", "add", str(rubric), "--db", db], capsys)[0] == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SCORES.read_bytes())))
    code, out, err = run_cli(["import", "-", "--from", "langfuse", "--traces", str(TRACES),
                              "--rubric", "support-lf@1.0.0", "--db", db], capsys)
    assert code == 0, err
    assert "-: a score on an observation inside a trace: not imported (an item is a trace)" in err
    assert "6 new" in out
    helpful = calibration(db, "support-lf@1.0.0", capsys)["helpful"]
    # By hand: judge 1,1,1,1,0,0 / ana 1,1,0,1,0,1 → 4 of 6 agree; p_e = (4/6)² + (2/6)² = 5/9,
    # κ = (2/3 − 5/9) / (4/9) = 1/4.
    assert helpful["n"] == 6
    assert helpful["exact"] == pytest.approx(4 / 6)
    assert helpful["kappa"] == pytest.approx(0.25)


def test_a_trace_scored_twice_by_one_person_keeps_the_later_score(store: Store, tmp_path: Path) -> None:
    ref = _registered(store)
    doc = json.loads(SCORES.read_text())
    later = next(s for s in doc["data"] if s["id"] == "sc-user_ana-2")
    doc["data"].append({**later, "id": "sc-old", "value": 5, "comment": "first look",
                        "timestamp": "2026-03-01T08:00:00.000Z"})  # earlier, though listed last
    path = tmp_path / "twice.json"
    path.write_text(json.dumps(doc))
    opened = open_source(path, "langfuse", traces=TRACES)
    import_opened(store, opened, ref)
    assert "a trace scored twice by one scorer on one name: the later score kept" in opened.notes
    (pk, _, _), = store.items.items_by_id("tr-002-7f2c")
    ana = store.items.item_view(pk).human["correctness"]["user_ana"]
    assert (ana.score, ana.reason) == (2.0, "misses the exception for sale items")


def test_a_plain_list_export_is_recognised(tmp_path: Path) -> None:
    listed = tmp_path / "scores.json"
    listed.write_text(json.dumps(json.loads(SCORES.read_text())["data"], indent=2))
    opened = open_source(listed, None, traces=TRACES)
    assert (opened.format, opened.detected) == ("langfuse", True)
    assert opened.converted is not None and len(opened.converted.records) == 6
