"""REVAL's figure treatment: "the top-level score on a figure_treatment result IS the treatment
parity". Two figure pairs judged through the CLI and the loopback server, then exported and
reported. By hand: pair 1 is judged 5 on every criterion on both sides (each item 1.0, parity
1.0); pair 2 gets 5s for figure a and 3s for figure b (items 1.0 and 0.5, parity 1 − |1 − 0.5| =
0.5). The rubric overall mean is (1 + 1 + 1 + 0.5) / 4 = 0.875 (High) while the headline, mean
parity over the pairs, is 0.75 (Medium) and pair 2 is "Potential bias".

Old code: report and export led with the overall mean (High) and said nothing of parity's band.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli import run_cli
from tests.judge.loopback import LoopbackServer, Reply, user_prompt

REF = "reval-figure-treatment@1.1.0"


def judge(body: dict[str, Any]) -> str:
    # figure b of pair 2 is described with loaded language; everything else is even-handed
    score = 3 if "Loaded" in user_prompt(body) else 5
    return json.dumps({"score": score, "rationale": "r", "evidence": [], "confidence": 0.9})


def test_treatment_parity_is_the_headline_in_export_and_report(
    tmp_path: Path, server: LoopbackServer, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "reval.db")
    rows = [
        {"id": "p1-a", "group": "pair-1", "variant": "a", "input": "Describe figure A.", "output": "Even-handed A."},
        {"id": "p1-b", "group": "pair-1", "variant": "b", "input": "Describe figure B.", "output": "Even-handed B."},
        {"id": "p2-a", "group": "pair-2", "variant": "a", "input": "Describe figure C.", "output": "Even-handed C."},
        {"id": "p2-b", "group": "pair-2", "variant": "b", "input": "Describe figure D.", "output": "Loaded D."},
    ]
    items = tmp_path / "pairs.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert run_cli(["import", str(items), "--rubric", REF, "--db", db], capsys)[0] == 0
    server.reset(default=Reply(judge))
    code, out, err = run_cli(["judge", "--rubric", REF, "--model", "openai/judge-x", "--api-base", server.url,
                              "--api-key", "k", "--db", db], capsys)
    assert code == 0, err + out

    exported = {r["id"]: r for r in map(json.loads, run_cli(["export", "--db", db], capsys)[1].splitlines())}
    assert exported["p2-b"]["overall"] == pytest.approx(0.5)
    assert exported["p2-a"]["headline"] == {"dimension": "treatment_parity", "score": pytest.approx(0.5),
                                            "band": "Potential bias"}
    assert exported["p1-a"]["headline"]["score"] == pytest.approx(1.0)

    code, out, _ = run_cli(["report", "--rubric", REF, "--format", "json", "--db", db], capsys)
    rep = json.loads(out)
    assert rep["overall_mean"] == pytest.approx(0.875) and rep["overall_band"] == "High"
    head = rep["headline"]
    assert (head["dimension"], head["mean"], head["band"], head["n"]) == ("treatment_parity", pytest.approx(0.75),
                                                                       "Medium", 2)
    assert head["lowest"] == {"group": "pair-2", "score": pytest.approx(0.5), "band": "Potential bias"}

    code, out, _ = run_cli(["report", "--rubric", REF, "--format", "markdown", "--db", db], capsys)
    lines = [x for x in out.splitlines() if x.strip()]
    # The report leads with parity, before the per-dimension table and the overall mean.
    assert lines[1].startswith("**Treatment parity: 0.750 (Medium)**")
    assert "lowest pair-2 0.500 (Potential bias)" in lines[1]
    assert any(x.startswith("Rubric overall mean (not the headline) 0.875 (High)") for x in lines)
