"""openai/evals run logs in: each sample an item, a model-graded eval's choice and score the
judge's (the grading reply its rationale), a match eval's correct/incorrect, checked field by
field on both databases; a broken log refused in one line; the shape recognised without
``--from``; standard input; and ``rubric init`` → ``rubric add`` → ``import`` → ``calibrate``."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from reviewer.errors import UserError
from reviewer.services.importing import import_opened, open_source
from reviewer.store import Store
from tests.adapters.conftest import DATA, calibration, drafted, init_add_import
from tests.cli import run_cli

FILE = DATA / "openai_evals_log.jsonl"


def test_samples_land_field_by_field(store: Store) -> None:
    ref, opened = drafted(store, FILE)
    assert (opened.format, opened.detected) == ("openai-evals", True)
    summary = import_opened(store, opened, ref)
    assert (summary.inserted, summary.judge_scores, summary.human_scores) == (4, 4, 0)
    assert sorted(opened.notes) == [
        "a metascore (the grader against a label the log does not keep): kept in metadata (4×)",
        "the final report (the run's summary figures): not imported"]
    (pk, _, _), = store.items.items_by_id("closedqa-support.dev.2")
    view = store.items.item_view(pk)
    assert view.input == "system: You are a support agent.\nuser: Do you ship abroad?"
    assert view.output == "We ship to the moon."
    judge = view.judge["closedqa_support"][0]
    assert (judge.model, judge.score, judge.rationale) == ("openai-evals", 0.0, "It invents a service.\nN")
    meta = view.metadata
    assert (meta["source"], meta["eval_name"], meta["run_id"], meta["completion_fns"]) == (
        "openai-evals", "closedqa-support.dev.v0", "260301100000ABCDEFGH", ["gpt-4o-mini"])
    assert meta["metascores"] == {"metascore": True}
    rubric = store.rubrics.get_rubric(ref)
    (dim,) = rubric.dimensions
    assert [a.label for a in dim.anchors] == ["N", "Y"]


def test_a_match_eval(store: Store, tmp_path: Path) -> None:
    log = tmp_path / "match.jsonl"
    events: list[dict[str, Any]] = [{"spec": {"eval_name": "arith.dev.v0", "base_eval": "arith", "run_id": "r1"}}]
    for i, ok in enumerate((True, False)):
        events.append({"run_id": "r1", "event_id": 2 * i, "sample_id": f"arith.dev.{i}", "type": "sampling",
                       "data": {"prompt": f"{i} + 1 =", "sampled": [str(i + 1 if ok else 7)]}})
        events.append({"run_id": "r1", "event_id": 2 * i + 1, "sample_id": f"arith.dev.{i}", "type": "match",
                       "data": {"correct": ok, "expected": [str(i + 1)], "picked": str(i + 1) if ok else None,
                                "sampled": str(i + 1 if ok else 7)}})
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    ref, opened = drafted(store, log)
    import_opened(store, opened, ref)
    (pk, _, _), = store.items.items_by_id("arith.dev.1")
    view = store.items.item_view(pk)
    assert (view.input, view.output, view.reference) == ("1 + 1 =", "7", "2")
    assert view.judge["match"][0].score == 0.0


def test_a_broken_log_is_refused_in_one_line_and_nothing_is_written(store: Store, tmp_path: Path) -> None:
    ref, _ = drafted(store, FILE)
    lines = FILE.read_text().splitlines()
    event = json.loads(lines[6])
    event["data"]["score"] = "high"
    lines[6] = json.dumps(event)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(UserError) as err:
        import_opened(store, open_source(bad, "openai-evals"), ref)
    assert str(err.value) == f"{bad}:7.data.score: 'high', expected a number"
    assert list(store.items.export_rows()) == []


def test_cli_init_add_import_calibrate_and_standard_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "t.db")
    out, err = init_add_import(FILE, "closedqa", db, capsys)
    assert f"read {FILE} as openai-evals (recognised by its shape" in err
    assert "4 new" in out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(FILE.read_bytes())))
    code, out, err = run_cli(["import", "-", "--from", "openai-evals", "--rubric", "closedqa@1.0.0", "--db", db],
                             capsys)
    assert code == 0, err
    assert "0 new" in out and "4 unchanged" in out  # the same log again adds nothing
    dim = calibration(db, "closedqa@1.0.0", capsys)["closedqa_support"]
    # a run log holds no people's scores: nothing to pair until people review the items
    assert dim["n"] == 0
