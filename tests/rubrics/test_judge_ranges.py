"""Settings whose sign has a meaning are refused below zero: a negative judge temperature (no
provider takes one; some clamp it silently) and a negative reason margin (every score would then
need a reason, which nobody meant). Each is one ``FILE:LINE: wrong-type:`` line, exit 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli import run_cli

RUBRIC = """\
id: ranges
version: 1.0.0
name: Ranges
scale: {min: 1, max: 5}
judge: {temperature: 0.0}
review: {reason_margin: 2}
dimensions:
  - id: accuracy
    description: The facts in the output are correct.
    method: llm_judge
    weight: 1
    threshold: 70
    anchors:
      - {range: [1, 2], label: wrong}
      - {range: [3, 5], label: right}
"""


@pytest.mark.parametrize(("old", "new", "line", "key"), [
    ("temperature: 0.0", "temperature: -0.5", 5, "temperature"),
    ("reason_margin: 2", "reason_margin: -1", 6, "reason_margin"),
])
def test_a_negative_setting_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        old: str, new: str, line: int, key: str) -> None:
    path = tmp_path / "ranges.yaml"
    path.write_text(RUBRIC.replace(old, new))
    code, _, err = run_cli(["rubric", "validate", str(path)], capsys)
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1, lines
    assert lines[0].startswith(f"error: {path}:{line}: wrong-type: '{key}' must be 0 or more"), lines[0]


@pytest.mark.parametrize(("old", "new"), [("temperature: 0.0", "temperature: 0"),
                                          ("reason_margin: 2", "reason_margin: 0")])
def test_zero_is_allowed(tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str) -> None:
    path = tmp_path / "ranges.yaml"
    path.write_text(RUBRIC.replace(old, new))
    code, _, err = run_cli(["rubric", "validate", str(path)], capsys)
    assert code == 0, err
