"""Inspect AI logs in, as ``.json`` and as ``.eval`` (a zip of ``header.json`` and one file per
sample): the stored rows field by field on both databases, people's score edits as their scores,
a broken log refused in one line with nothing written, the shape recognised without ``--from``,
standard input, and ``rubric init`` → ``rubric add`` → ``import`` → ``calibrate``."""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from reviewer.errors import UserError
from reviewer.services.importing import import_opened, open_source
from reviewer.store import Store, open_store
from tests.adapters.conftest import DATA, calibration, drafted
from tests.cli import run_cli

FILE = DATA / "inspect_log.json"


def eval_zip(tmp_path: Path, log: dict[str, Any] | None = None) -> Path:
    """The log as Inspect's ``.eval`` file: header.json without samples, samples/ID_epoch_N.json."""
    log = log or json.loads(FILE.read_text())
    path = tmp_path / "trivia.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps({k: v for k, v in log.items() if k != "samples"}))
        for s in log["samples"]:
            z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
    return path


@pytest.mark.parametrize("kind", ["json", "eval"])
def test_samples_land_field_by_field(store: Store, tmp_path: Path, kind: str) -> None:
    path = FILE if kind == "json" else eval_zip(tmp_path)
    ref, opened = drafted(store, path)
    assert (opened.format, opened.detected) == ("inspect", True)
    summary = import_opened(store, opened, ref, dataset="trivia")
    assert (summary.rows, summary.inserted, summary.human_scores) == (6, 6, 4)
    (pk, _, _), = store.items.items_by_id("4", "trivia")
    view = store.items.item_view(pk)
    assert (view.input, view.reference) == ("What is 17 * 3?", "51")
    assert view.output == "17 times 3 is 51, I think, or maybe 53."
    meta = view.metadata
    assert (meta["source"], meta["task"], meta["model"], meta["run_id"]) == ("inspect", "trivia_qa",
                                                                              "openai/gpt-4o-mini", "RuN1d")
    assert (meta["sample_id"], meta["epoch"], meta["dataset"]) == (4, 1, "trivia")
    assert meta["sample_metadata"] == {"topic": "trivia"}
    qa = view.judge["model_graded_qa"][0]
    # the scorer's own value (P), not the person's edit (I), is the judge's
    assert (qa.model, qa.score, qa.rationale) == ("inspect", 0.5, "GRADE: P because of sample 3")
    assert view.judge["match"][0].score == 0.0
    ben = view.human["model_graded_qa"]["ben"]
    assert (ben.score, ben.reason, ben.kind) == (0.0, "two answers given; the first is right but it hedges", "import")
    (pk1, _, _), = store.items.items_by_id("1", "trivia")
    first = store.items.item_view(pk1)
    assert first.input == "system: Answer briefly.\nuser: What is the capital of Australia?"
    assert first.human["model_graded_qa"]["ana"].reason is None


def test_a_broken_log_is_refused_in_one_line_and_nothing_is_written(store: Store, tmp_path: Path) -> None:
    ref, _ = drafted(store, FILE)
    log = json.loads(FILE.read_text())
    log["samples"][2]["scores"]["match"]["value"] = "maybe"
    for path in (tmp_path / "bad.json", eval_zip(tmp_path, log)):
        if path.suffix == ".json":
            path.write_text(json.dumps(log))
        with pytest.raises(UserError) as err:
            import_opened(store, open_source(path, "inspect"), ref)
        # a sample of an .eval zip is named by its file in the zip
        where = "samples[2].scores.match" if path.suffix == ".json" else "samples/3_epoch_1.json.scores.match"
        assert str(err.value) == (f"{path}:{where}: 'maybe' is not a value Inspect reads as a number "
                                  "(C, P, I, N, yes, no, true, false or a number)")
    assert list(store.items.export_rows()) == []


def test_a_log_without_samples_is_refused(tmp_path: Path) -> None:
    log = json.loads(FILE.read_text())
    log["samples"] = []
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(log))
    with pytest.raises(UserError) as err:
        open_source(path, None)
    assert str(err.value) == f"{path}:samples: no samples; write the log with samples (Inspect's log_samples)"


def test_cli_init_add_import_calibrate_from_standard_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    db, rubric, log = str(tmp_path / "t.db"), tmp_path / "trivia.yaml", eval_zip(tmp_path)
    code, _, err = run_cli(["rubric", "init", "--from", str(log), "--out", str(rubric), "--owner", "evals-team"],
                           capsys)
    assert code == 0, err
    text = rubric.read_text()
    assert "label: C" in text and "label: P" in text and "label: I" in text
    assert "You are comparing a submitted answer to an expert answer." in text
    assert run_cli(["rubric", "add", str(rubric), "--db", db], capsys)[0] == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(log.read_bytes())))
    code, out, err = run_cli(["import", "-", "--rubric", "trivia@1.0.0", "--db", db], capsys)
    assert code == 0, err
    assert "read - as inspect (recognised by its shape" in err
    assert "6 new" in out
    qa = calibration(db, "trivia@1.0.0", capsys)["model_graded_qa"]
    # By hand: samples 1–4 have a person's score. Judge C, C, I, P = 1, 1, 0, 0.5; people C, P, I, I
    # = 1, 0.5, 0, 0 → 2 of 4 agree. Cohen's κ: p_e = (2·1 + 1·2 + 1·1) / 16 = 5/16 (levels 1, 0, 0.5)
    # → κ = (1/2 − 5/16) / (1 − 5/16) = 3/11.
    assert qa["n"] == 4
    assert qa["exact"] == pytest.approx(0.5)
    assert qa["kappa"] == pytest.approx(3 / 11)
    s = open_store(db)
    assert len(list(s.items.export_rows())) == 6
    s.close()
