"""Labels at import give the same figures as codes; the level of each dimension reaches the
calibration JSON; published nominal values end to end through `rubricate calibrate`; every new
refusal is one clear line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli import run_cli
from tests.store.labelled import LABELS_RUBRIC

REF = json.loads((Path(__file__).resolve().parents[1] / "data" / "agreement_vectors.json").read_text())
LABELS = {1: "safe", 2: "unsafe", 3: "unsure"}


def _rows(as_labels: bool) -> list[dict[str, Any]]:
    """The irrCAC 3×3 table as judge (rows) against one reviewer (columns) on the nominal
    dimension, and a graded dimension beside it; labels in mixed case when ``as_labels``."""
    out: list[dict[str, Any]] = []
    k = 0
    for i, row in enumerate(REF["contingency_3x3"]["table_rows_rater1_cols_rater2"], start=1):
        for j, count in enumerate(row, start=1):
            for _ in range(count):
                judge: object = LABELS[i] if as_labels else i
                human: object = (LABELS[j].upper() if k % 2 else LABELS[j]) if as_labels else j
                out.append({"id": f"t{k}", "output": f"answer {k}",
                            "judge": {"model": "m", "scores": {"verdict": judge, "helpful": 1 + k % 5}},
                            "human": [{"reviewer": "ana", "scores": {"verdict": {"score": human, "reason": "r"},
                                                                     "helpful": (1 + k % 5) if k % 3 else 3}}]})
                k += 1
    return out


def _db(tmp_path: Path, name: str, rows: list[dict[str, object]], capsys: pytest.CaptureFixture[str]) -> str:
    db = str(tmp_path / f"{name}.db")
    rubric = tmp_path / "safety-labels.yaml"
    rubric.write_text(LABELS_RUBRIC)
    assert run_cli(["rubric", "add", str(rubric), "--db", db], capsys)[0] == 0
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = run_cli(["import", str(path), "--rubric", "safety-labels@1.0.0", "--db", db], capsys)
    assert code == 0, err
    return db


def _calibrate(db: str, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    code, out, err = run_cli(["calibrate", "--db", db, "--format", "json", "--bootstrap", "50", *extra], capsys)
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def test_labels_give_the_figures_codes_give(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    by_label = _calibrate(_db(tmp_path, "labels", _rows(True), capsys), capsys)
    by_code = _calibrate(_db(tmp_path, "codes", _rows(False), capsys), capsys)
    assert by_label == by_code
    verdict, helpful = by_label["dimensions"]
    pub = REF["contingency_3x3"]["unweighted"]
    assert verdict["level"] == "nominal" and verdict["level_source"] == "rubric"
    assert round(verdict["kappa"], 7) == pub["cohen_kappa"] and round(verdict["gwet_ac1"], 7) == pub["gwet_ac1"]
    assert verdict["kappa_quadratic"] is None and "nominal" in verdict["null_reasons"]["kappa_quadratic"]
    assert verdict["human_aggregate"] == "majority"
    assert helpful["level"] == "ordinal" and helpful["level_source"] == "scale default"
    assert helpful["kappa"] is not None and helpful["kappa_quadratic"] is not None


def test_level_override_and_bootstrap_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _db(tmp_path, "codes", _rows(False), capsys)
    rep = _calibrate(db, capsys, "--level", "interval")
    assert [(d["level"], d["level_source"]) for d in rep["dimensions"]] == [("interval", "--level")] * 2
    code, out, err = run_cli(["calibrate", "--db", db, "--format", "json", "--bootstrap", "0"], capsys)
    rep = json.loads(out)
    assert code == 0 and rep["bootstrap"] == 0
    assert all(d["alpha_ci"] is None and "--bootstrap 0" in d["null_reasons"]["alpha_ci"] for d in rep["dimensions"])
    code, out, _ = run_cli(["calibrate", "--db", db, "--format", "markdown"], capsys)
    assert code == 0 and "| verdict | nominal | 100 |" in out and "| helpful | ordinal | 100 |" in out


def test_export_writes_labels_beside_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _db(tmp_path, "labels", _rows(True)[:3], capsys)
    code, out, _ = run_cli(["export", "--db", db, "--labels"], capsys)
    first = json.loads(out.splitlines()[0])["dimensions"]
    assert code == 0
    assert first["verdict"]["judge"] == 1.0 and first["verdict"]["judge_label"] == "safe"
    assert first["verdict"]["human_labels"] == {"ana": "safe"} and first["verdict"]["effective_label"] == "safe"
    assert first["helpful"]["judge_label"] is None  # 1 lies in the range anchor Poor: no single label
    code, out, _ = run_cli(["export", "--db", db], capsys)
    assert "judge_label" not in out  # without --labels the export is as it was
    code, out, _ = run_cli(["export", "--db", db, "--labels", "--format", "csv"], capsys)
    assert out.splitlines()[0].endswith("effective_label,judge_label,human_labels") and ",safe,safe," in out


@pytest.mark.parametrize(("argv", "fragment"), [
    (["--human-aggregate", "mode"], "--human-aggregate 'mode': use mean, median or majority"),
    (["--bootstrap", "-1"], "--bootstrap -1: give a number of draws ≥ 0"),
    (["--level", "categorical"], "unknown level 'categorical'"),
    # before: accepted, and the "most common label" was counted over z-scores (continuous values
    # that are no level of the scale) snapped back to levels — a figure no one asked for
    (["--human-aggregate", "majority", "--normalise", "z"],
     "--human-aggregate majority with --normalise z: z-normalised scores are no longer the scale's levels"),
])
def test_new_refusals_are_one_line(argv: list[str], fragment: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    db = _db(tmp_path, "codes", _rows(False)[:5], capsys)
    code, _, err = run_cli(["calibrate", "--db", db, *argv], capsys)
    assert code == 1 and fragment in err and len(err.strip().splitlines()) == 1, err


def test_a_label_that_is_no_anchor_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(True)[:4]
    rows[2]["human"][0]["scores"]["verdict"] = "maybe"
    db = str(tmp_path / "bad.db")
    rubric = tmp_path / "safety-labels.yaml"
    rubric.write_text(LABELS_RUBRIC)
    run_cli(["rubric", "add", str(rubric), "--db", db], capsys)
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = run_cli(["import", str(path), "--rubric", "safety-labels@1.0.0", "--db", db], capsys)
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1
    assert (f"{path}:3: item t2: ana verdict: 'maybe' is no anchor label of verdict "
            "(labels: 'safe', 'unsafe', 'unsure'); give a number or one of the labels") in lines[0]
