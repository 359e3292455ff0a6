"""``rubric init``'s refusals, each one line: a file it cannot draft from, an unknown format, more
dimensions than a rubric holds (then ``--dimension`` picks); and the draft's weights when a
source names a dimension like a safety gate (reported, weight 0, as the validator requires)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubrics.draft import DraftDimension, draft_rubric
from rubrics.loader import load_rubric_text
from tests.adapters.conftest import DATA
from tests.cli import run_cli


def test_a_native_item_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "a", "output": "x"}\n')
    code, _, err = run_cli(["rubric", "init", "--from", str(items), "--out", str(tmp_path / "r.yaml")], capsys)
    assert code == 1
    assert err.strip() == (f"error: {items}: not a file rubric init drafts from (promptfoo, Inspect, JUDGE-BENCH, "
                           "Langfuse, LangSmith or openai/evals); name its format with --from-format")
    assert not (tmp_path / "r.yaml").exists()


def test_an_unknown_format_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["rubric", "init", "--from", str(DATA / "promptfoo_results.json"), "--from-format",
                            "braintrust", "--out", str(tmp_path / "r.yaml")], capsys)
    assert code == 1
    assert err.strip() == ("error: --from: unknown format 'braintrust'; use one of rubricate, promptfoo, inspect, "
                           "judge-bench, langfuse, langsmith, openai-evals")


def test_more_than_ten_dimensions_are_listed_and_picked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((DATA / "promptfoo_results.json").read_text())
    comps = doc["results"]["results"][0]["gradingResult"]["componentResults"]
    comps += [{"pass": True, "score": 1, "reason": "ok", "assertion": {"type": "contains", "value": str(k),
                                                                          "metric": f"m{k}"}} for k in range(10)]
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "r.yaml"
    code, _, err = run_cli(["rubric", "init", "--from", str(path), "--out", str(out)], capsys)
    assert code == 1
    assert "the source has 13 dimensions, a rubric at most 10: pick some with --dimension (repeat): " \
           "helpfulness, icontains, m0, m1" in err
    assert not out.exists()
    code, _, err = run_cli(["rubric", "init", "--from", str(path), "--out", str(out), "--dimension", "m3",
                            "--dimension", "helpfulness"], capsys)
    assert code == 0, err
    assert [d.id for d in load_rubric_text(out.read_text()).dimensions] == ["m3", "helpfulness"]


def test_a_dimension_named_like_a_safety_gate_is_reported_with_weight_zero() -> None:
    dims = [DraftDimension("pii_leakage", "pii_leakage", labels={0.0: "fail", 1.0: "pass"}),
            DraftDimension("accuracy", "accuracy", labels={0.0: "fail", 1.0: "pass"}),
            DraftDimension("tone", "tone", labels={0.0: "fail", 1.0: "pass"})]
    rubric = load_rubric_text(draft_rubric(dims, "drafted", "evals-team", "x.json"))
    assert {d.id: d.weight for d in rubric.dimensions} == {"pii_leakage": 0.0, "accuracy": 0.5, "tone": 0.5}
