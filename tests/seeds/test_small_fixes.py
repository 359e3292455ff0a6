"""Issue 16's small fixes, each through the CLI as a user runs it.

Old behaviour, for the record: ``rubric diff`` printed the understated bump and exited 0;
``judge`` on a rubric with no items printed an empty table and exited 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubrics.library import LIBRARY_DIR
from tests.cli import run_cli


def _bumped(tmp_path: Path, version: str) -> Path:
    text = (LIBRARY_DIR / "general-quality.yaml").read_text(encoding="utf-8")
    # Weights moved by 0.05 each: a minor change.
    text = text.replace("weight: 0.35", "weight: 0.30").replace("weight: 0.10", "weight: 0.15")
    text = text.replace("version: 1.0.0", f"version: {version}")
    out = tmp_path / f"gq-{version}.yaml"
    out.write_text(text, encoding="utf-8")
    return out


def test_rubric_diff_exits_1_on_an_understated_bump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["rubric", "diff", "general-quality@1.0.0", str(_bumped(tmp_path, "1.0.1"))], capsys)
    assert "required bump: minor" in out
    assert code == 1 and "is a patch bump, but the change requires a minor bump" in err


def test_rubric_diff_exits_0_when_the_bump_is_enough(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["rubric", "diff", "general-quality@1.0.0", str(_bumped(tmp_path, "1.1.0"))], capsys)
    assert code == 0 and "is enough" in out


def test_judge_with_no_items_says_so_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "empty.db")
    code, out, err = run_cli(["judge", "--rubric", "general-quality@1.0.0", "--model", "openai/judge-x",
                              "--api-base", "http://127.0.0.1:9/v1", "--db", db], capsys)
    assert code == 1
    assert err.strip().splitlines() == [
        "error: nothing to do: no items of general-quality@1.0.0 are imported; import some first "
        "(rubricate import FILE --rubric general-quality@1.0.0)"]
    assert "run " not in out  # no empty run table
