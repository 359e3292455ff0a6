"""promptfoo results (``promptfoo eval -o results.json``) in: the stored rows field by field on
both databases, a broken file refused in one line with nothing written, the shape recognised
without ``--from``, standard input, and ``rubric init`` → ``rubric add`` → ``import`` →
``calibrate`` from the command line."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from reviewer.errors import UserError
from reviewer.services.importing import import_opened, open_source
from reviewer.store import Store, open_store
from tests.adapters.conftest import DATA, calibration, drafted
from tests.cli import run_cli

FILE = DATA / "promptfoo_results.json"


def test_results_land_field_by_field(store: Store) -> None:
    ref, opened = drafted(store, FILE)
    assert opened.format == "promptfoo" and opened.detected
    summary = import_opened(store, opened, ref, dataset="pf")
    assert (summary.rows, summary.inserted) == (8, 8)
    (pk, _, _), = store.items.items_by_id("3f1c9a0e-0001-4b7e-9d2a-0c5e8f1a2b3c", "pf")
    view = store.items.item_view(pk)
    assert view.input == "You are a support agent. Answer: Can I get a refund after 30 days?"
    assert view.output == "Sorry, refunds close after 30 days."
    meta = view.metadata
    assert meta["source"] == "promptfoo" and meta["provider"] == "openai:gpt-4o-mini"
    assert meta["eval_id"] == "eval-2026-03-01T10:00:00" and meta["prompt_label"] == "support-v1"
    assert (meta["test_idx"], meta["prompt_idx"], meta["latency_ms"]) == (1, 0, 301)
    assert meta["vars"] == {"question": "Can I get a refund after 30 days?"}
    assert meta["assertion_values"] == {"helpfulness": "The answer is polite and actually helps the customer",
                                        "icontains": "Settings"}
    help_ = view.judge["helpfulness"][0]
    assert (help_.model, help_.score, help_.rationale) == ("openai:gpt-4o", 0.8, "grader reason 1")
    contains = view.judge["icontains"][0]
    assert (contains.score, contains.rationale) == (0.0, 'Expected output to contain "Settings"')
    overall = view.judge["overall"][0]
    assert overall.score == 0.0  # the contains assertion failed: not every assertion passed
    person = view.human["overall"]["ana@example.com"]
    assert (person.score, person.reason, person.kind) == (0.0, "Refuses without offering any alternative", "import")
    # a result nobody rated in the viewer has the judge's verdict and no person's
    (pk5, _, _), = store.items.items_by_id("3f1c9a0e-0005-4b7e-9d2a-0c5e8f1a2b3c", "pf")
    unrated = store.items.item_view(pk5)
    assert unrated.human["overall"] == {} and unrated.judge["overall"][0].score == 0.0


def test_a_broken_file_is_refused_in_one_line_and_nothing_is_written(store: Store, tmp_path: Path) -> None:
    ref, _ = drafted(store, FILE)
    doc = json.loads(FILE.read_text())
    doc["results"]["results"][3]["gradingResult"]["componentResults"][0]["score"] = "high"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc, indent=2))
    with pytest.raises(UserError) as err:
        import_opened(store, open_source(bad, "promptfoo"), ref)
    assert str(err.value) == (f"{bad}:results.results[3].gradingResult.componentResults[0].score: "
                              "'high', expected a number")
    assert list(store.items.export_rows()) == []


def test_a_score_off_the_drafted_scale_is_refused_naming_its_place(store: Store, tmp_path: Path) -> None:
    ref, _ = drafted(store, FILE)
    doc = json.loads(FILE.read_text())
    doc["results"]["results"][2]["gradingResult"]["componentResults"][0]["score"] = 7
    bad = tmp_path / "off.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(UserError) as err:
        import_opened(store, open_source(bad, None), ref)
    assert f"{bad}:results.results[2]: item 3f1c9a0e-0002-4b7e-9d2a-0c5e8f1a2b3c: judge helpfulness: " \
           "score 7 is off the scale 0–1" in str(err.value)
    assert list(store.items.export_rows()) == []


def test_cli_init_add_import_calibrate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, rubric = str(tmp_path / "t.db"), tmp_path / "support.yaml"
    code, out, err = run_cli(["rubric", "init", "--from", str(FILE), "--out", str(rubric), "--id", "support",
                              "--owner", "evals-team"], capsys)
    assert code == 0, err
    assert "read" in err and "as promptfoo" in err
    text = rubric.read_text()
    assert "label: fail" in text and "label: pass" in text and "Draft:" in text
    assert "The answer is polite and actually helps the customer" in text  # the llm-rubric text is the prompt
    assert run_cli(["rubric", "add", str(rubric), "--db", db], capsys)[0] == 0
    code, out, err = run_cli(["import", str(FILE), "--rubric", "support@1.0.0", "--db", db], capsys)
    assert code == 0, err
    assert f"read {FILE} as promptfoo (recognised by its shape" in err
    assert "8 new" in out
    overall = calibration(db, "support@1.0.0", capsys)["overall"]
    # By hand: 7 rated results; judge (every assertion passed) vs person:
    # judge 1,0,0,1,0,1,0 / person 1,0,0,1,1,1,0 → 6 of 7 agree; Cohen's κ = (6/7 − p_e) / (1 − p_e),
    # p_e = (3/7·4/7) + (4/7·3/7) = 24/49 → κ = (42/49 − 24/49) / (25/49) = 18/25 = 0.72.
    assert overall["n"] == 7
    assert overall["exact"] == pytest.approx(6 / 7)
    assert overall["kappa"] == pytest.approx(0.72)


def test_standard_input_and_from(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    db, rubric = str(tmp_path / "t.db"), tmp_path / "support.yaml"
    assert run_cli(["rubric", "init", "--from", str(FILE), "--out", str(rubric), "--id", "support",
                    "--owner", "evals-team"], capsys)[0] == 0
    assert run_cli(["rubric", "add", str(rubric), "--db", db], capsys)[0] == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(FILE.read_bytes())))
    code, out, err = run_cli(["import", "-", "--from", "promptfoo", "--rubric", "support@1.0.0", "--db", db], capsys)
    assert code == 0, err
    assert "recognised" not in err  # named with --from: nothing to say about its shape
    assert "imported -: 8 rows: 8 new" in out
    s = open_store(db)
    assert len(list(s.items.export_rows())) == 8
    s.close()


def test_a_broken_file_from_standard_input_is_named_dash(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"evalId": "x", "results": {"results": [3]}}')))
    code, out, err = run_cli(["import", "-", "--from", "promptfoo", "--rubric", "general-quality@1.0.0",
                              "--db", str(tmp_path / "t.db")], capsys)
    assert code != 0
    assert err.strip().splitlines()[-1] == "error: -:results.results[0]: int, expected an object"


def test_importing_the_file_again_adds_nothing(store: Store) -> None:
    ref, opened = drafted(store, FILE)
    import_opened(store, opened, ref)
    again = import_opened(store, open_source(FILE, "promptfoo"), ref)
    assert (again.inserted, again.human_scores, again.judge_scores) == (0, 0, 0)


def test_what_has_no_home_is_said_once_per_kind(store: Store, tmp_path: Path) -> None:
    doc = json.loads(FILE.read_text())
    del doc["author"]
    doc["results"]["results"][0]["response"]["output"] = {"answer": "structured"}
    path = tmp_path / "noauthor.json"
    path.write_text(json.dumps(doc))
    ref, opened = drafted(store, path)
    import_opened(store, opened, ref)
    assert sorted(opened.notes) == ["a structured provider output: stored as its JSON text",
                                    "a viewer rating names no person: stored as reviewer 'promptfoo-viewer' (7×)"]
    (pk, _, _), = store.items.items_by_id("3f1c9a0e-0000-4b7e-9d2a-0c5e8f1a2b3c")
    assert store.items.item_view(pk).output == '{"answer": "structured"}'


def test_a_picked_dimension_leaves_the_others_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, rubric = str(tmp_path / "t.db"), tmp_path / "one.yaml"
    code, _, err = run_cli(["rubric", "init", "--from", str(FILE), "--out", str(rubric), "--id", "one",
                            "--owner", "evals-team", "--dimension", "overall"], capsys)
    assert code == 0, err
    assert run_cli(["rubric", "add", str(rubric), "--db", db], capsys)[0] == 0
    code, out, err = run_cli(["import", str(FILE), "--from", "promptfoo", "--rubric", "one@1.0.0", "--db", db], capsys)
    assert code == 0, err
    assert f"{FILE}: scores on 'helpfulness': the rubric one@1.0.0 has no such dimension" in err
    assert f"{FILE}: scores on 'icontains': the rubric one@1.0.0 has no such dimension" in err
    assert "8 new" in out
