"""Export says which ceiling or cap set an overall (issue 16: "nothing says why an overall was
capped"). ADR-016's accuracy ceiling: accuracy 4 (< 5) caps the overall at 4 on the 1–10 scale,
(4 − 1) / 9 = 0.333, although every other dimension scored 10."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import run_cli


def test_export_names_the_ceiling_that_set_the_overall(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "cap.db")
    scores = {"accuracy": 4, "relevance": 10, "completeness": 10, "conciseness": 10, "clarity": 10}
    rows = [{"id": "capped", "input": "Q?", "output": "A.", "judge": {"model": "m", "scores": scores}},
            {"id": "free", "input": "Q?", "output": "A.", "judge": {"model": "m", "scores": {**scores, "accuracy": 10}}}]
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert run_cli(["import", str(items), "--rubric", "general-quality@1.0.0", "--db", db], capsys)[0] == 0
    out = {r["id"]: r for r in map(json.loads, run_cli(["export", "--db", db], capsys)[1].splitlines())}
    assert out["capped"]["overall"] == pytest.approx(3 / 9)
    assert out["capped"]["capped_by"] == ["accuracy 4 < 5: capped at 4"]
    assert out["free"]["overall"] == pytest.approx(1.0) and out["free"]["capped_by"] == []
