"""``rubricate calibrate``'s table at the terminal's width: the verdict is never cut, the figures that
do not fit move under the table, and a sentence every dimension shares is printed once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pytest

from tests.cli import run_cli

if TYPE_CHECKING:
    from reviewer.services.reports import CalibrationReport

GQ = "general-quality@1.0.0"
DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")
#: The judge's noise per dimension (in levels): trusted, trusted, tentative, low confidence, and
#: clarity too few to tell.
NOISE = {"accuracy": 0.0, "relevance": 0.6, "completeness": 2.0, "conciseness": 3.0, "clarity": 3.0}


def _items(tmp: Path, audit: bool = True, n: int = 120, seed: int = 5) -> Path:
    """Two reviewers who agree closely on every item; the judge noisier on each dimension in turn;
    clarity scored by people on only 20 items (too few to trust)."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        true = {d: float(rng.integers(2, 10)) for d in DIMS}
        judge = {d: float(np.clip(np.rint(true[d] + rng.normal(0, NOISE[d])) if NOISE[d] else true[d], 1, 10))
                 for d in DIMS}
        human = []
        for reviewer in ("ana", "ben"):
            scores = {d: float(np.clip(true[d] + rng.choice([-1, 0, 0, 0, 1]), 1, 10))
                      for d in DIMS if d != "clarity" or i < 20}
            human.append({"reviewer": reviewer, "scores": scores})
        item: dict[str, Any] = {"id": f"w{i:03d}", "output": f"answer {i}",
                                "judge": {"model": "m", "scores": judge}, "human": human}
        if audit:
            item["audit"] = True
        lines.append(json.dumps(item))
    path = tmp / "items.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def store_db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    db = str(tmp_path / "s.db")
    assert run_cli(["import", str(_items(tmp_path)), "--rubric", GQ, "--db", db], capsys)[0] == 0
    return db


def _report(db: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run_cli(["calibrate", "--rubric", GQ, "--db", db, "--format", "json", "--bootstrap", "200"],
                             capsys)
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def _table(db: str, width: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, err = run_cli(["calibrate", "--rubric", GQ, "--db", db, "--bootstrap", "200"], capsys)
    assert code == 0, err
    return out


@pytest.mark.parametrize("width", [80, 120, 200])
def test_the_verdict_is_whole_at_every_width(width: int, store_db: str, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    report = _report(store_db, capsys)
    statuses = {d["dimension"]: d["status"] for d in report["dimensions"]}
    assert len(set(statuses.values())) == 4, statuses  # the fixture shows every verdict
    out = _table(store_db, width, capsys, monkeypatch)
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= width
    for d in report["dimensions"]:
        rows = [line for line in lines if line.startswith(f"│ {d['dimension']} ")]
        assert len(rows) == 1, (d["dimension"], out)
        lo, hi = d["alpha_ci"]
        assert f" {d['n']} │ {d['alpha']:.3f} [{lo:.3f}, {hi:.3f}] │" in rows[0]
        assert f"│ {d['status']} " in rows[0]
    words = " ".join(out.split())
    for d in report["dimensions"]:  # every figure is printed: in the table, or in the dimension's lines below
        for key in ("spearman", "kappa", "exact", "pass_agreement"):
            assert f"{d[key]:.3f}" in words
    if width == 80:
        assert "spearman" not in lines[2]  # the header: spearman did not fit, so it moved below
        first = report["dimensions"][0]
        assert f"spearman {first['spearman']:.3f}" in words
    if width == 200:
        assert "spearman" in lines[2] and "bias (judge − human)" in lines[2]


def test_a_sentence_every_dimension_shares_is_printed_once(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "s.db")
    assert run_cli(["import", str(_items(tmp_path, audit=False, n=20)), "--rubric", GQ, "--db", db], capsys)[0] == 0
    report = _report(db, capsys)
    assert all("no audit sample" in d["estimate"]["reason"] for d in report["dimensions"])  # the JSON keeps each
    assert all("fewer than 30 paired items" in d["reason"] for d in report["dimensions"])
    out = " ".join(_table(db, 200, capsys, monkeypatch).split())
    assert out.count("no audit sample") == 1
    assert out.count("fewer than 30 paired items") == 1
    for d in report["dimensions"]:
        assert f"{d['dimension']}: judge {d['estimate']['judge_only']:.2f} · no corrected figure" in out


def test_a_long_name_folds_and_the_status_stays_whole() -> None:
    """A dimension name wider than the terminal (and markup-like) wraps in its cell; the verdict
    and α beside it are never cut."""
    from rich.console import Console

    from reviewer.services.report_render import calibration_table

    name = "x" * 150 + "[bold]y"
    dims = [{"dimension": name, "n": 5, "alpha": None, "alpha_ci": None, "status": "insufficient_data",
             "reason": "alpha cannot be computed on 5 items"},
            {"dimension": "acc", "n": 12345, "alpha": -0.123, "alpha_ci": [-0.456, 0.1], "status": "low_confidence",
             "reason": "alpha -0.12 on 12345 items"}]
    console = Console(width=80, color_system=None, record=True)
    # only the keys the table shows: the renderer reads no others
    console.print(calibration_table(cast("CalibrationReport", {"rubric": "r@1", "sample": "all", "dimensions": dims})))
    rows = [line for line in console.export_text().splitlines() if line.startswith("│")]
    assert max(len(line) for line in rows) <= 80
    assert "".join(line.split("│")[1].strip() for line in rows[:-1]) == name
    assert "│ insufficient_data │" in rows[0]
    assert "│ -0.123 [-0.456, 0.100] │ low_confidence    │" in rows[-1]


def test_the_fitted_table_has_a_place_for_every_column() -> None:
    """Every column of the Markdown and HTML tables is kept in the terminal's or may move below it
    (α's interval shares α's cell): a figure added to one is not lost from the other."""
    from reviewer.services.report_render import COLUMNS, KEPT, OPTIONAL

    assert {*KEPT, *OPTIONAL, "alpha_ci"} == set(COLUMNS)
    assert len(KEPT) + len(OPTIONAL) + 1 == len(COLUMNS)
