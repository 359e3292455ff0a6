"""``report --compare ID@VERSION``: two versions' run reports side by side with the same "not
like for like" banner and change list as ``calibrate --compare`` (one implementation), each
report from its own version's items alone, never pooled.

Old code: ``report`` had no ``--compare`` (only calibrate carried the banner).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "reviewer" / "demo" / "general-quality.jsonl"
REF, NEWER = "general-quality@1.0.0", "general-quality@1.1.0"


def test_report_compare_side_by_side_with_calibrates_banner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "versions.db")
    text = (ROOT / "rubrics" / "library" / "general-quality.yaml").read_text()
    newer = tmp_path / "gq-1.1.0.yaml"
    newer.write_text(text.replace("version: 1.0.0", "version: 1.1.0").replace("weight: 0.35", "weight: 0.30")
                     .replace("weight: 0.10", "weight: 0.15"))
    assert run_cli(["rubric", "add", str(newer), "--db", db], capsys)[0] == 0
    few = tmp_path / "few.jsonl"
    few.write_text("".join(DEMO.read_text().splitlines(keepends=True)[:10]))
    assert run_cli(["import", str(DEMO), "--rubric", REF, "--db", db], capsys)[0] == 0
    assert run_cli(["import", str(few), "--rubric", NEWER, "--db", db], capsys)[0] == 0

    code, out, err = run_cli(["report", "--rubric", REF, "--compare", NEWER, "--format", "json", "--db", db], capsys)
    assert code == 0, err
    both = json.loads(out)
    code, out, _ = run_cli(["calibrate", "--rubric", REF, "--compare", NEWER, "--format", "json", "--db", db], capsys)
    cal = json.loads(out)
    assert both["like_for_like"] is False and both["banner"].startswith("NOT LIKE FOR LIKE")
    assert (both["banner"], both["changes"]) == (cal["banner"], cal["changes"]) and len(both["changes"]) == 2
    # never pooled: each report counts its own version's items only, as report alone does
    assert [(r["rubric"], r["items"]) for r in both["reports"]] == [(REF, 63), (NEWER, 10)]
    alone = json.loads(run_cli(["report", "--rubric", NEWER, "--format", "json", "--db", db], capsys)[1])
    assert both["reports"][1]["overall_mean"] == pytest.approx(alone["overall_mean"])

    code, out, _ = run_cli(["report", "--rubric", REF, "--compare", NEWER, "--format", "markdown", "--db", db], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("**NOT LIKE FOR LIKE: general-quality 1.0.0 vs 1.1.0")
    assert sum(1 for x in lines if x.startswith("- dimensions")) == 2  # the change list, one line each
    code, out, _ = run_cli(["report", "--rubric", REF, "--compare", NEWER, "--db", db], capsys)
    assert code == 0 and "NOT LIKE FOR LIKE" in out
    code, out, _ = run_cli(["report", "--rubric", REF, "--compare", REF, "--format", "json", "--db", db], capsys)
    assert code == 0 and json.loads(out)["banner"] is None and json.loads(out)["changes"] == []
    code, _, err = run_cli(["report", "--rubric", REF, "--compare", "rag-answer@1.0.0", "--db", db], capsys)
    assert code == 1 and "are different rubrics" in err and len(err.strip().splitlines()) == 1
