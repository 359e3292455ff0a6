"""Every bundled rubric runs through the judge without an error against a well-behaved judge:
its rule keys, fill words, choices, scales and pair methods are all ones the pipeline knows."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import rubrics
from rubrics.judge.runner import JudgeRunner
from rubrics.loader import load_rubric_file
from rubrics.methods.base import JudgeItem
from rubrics.results import ScoreResult
from tests.judge.helpers import client
from tests.judge.loopback import LoopbackServer, Reply, user_prompt

LIBRARY = sorted((Path(rubrics.__file__).parent / "library").glob("*.yaml"))


def well_behaved(body: dict[str, Any]) -> str:
    """A valid answer to whichever prompt the pipeline sent: the top of the scale."""
    prompt = user_prompt(body)
    if "List every atomic factual claim" in prompt:
        return json.dumps({"claims": ["Opened items can be returned within 14 days."]})
    if "Check each claim" in prompt:
        return json.dumps({"verdicts": [{"claim": "c", "verdict": "supported", "quote": "14 days"}]})
    if "opposing positions" in prompt:
        return json.dumps({"parity": 0.9, "rationale": "even", "evidence": []})
    choices = re.search(r"Answer with one of: (.+?)\.\n", prompt)
    if choices:
        first = choices.group(1).split(", ")[0]
        if "on the last line, write only one of" in prompt:  # FlexEval's reply style
            return f"Reasoning first.\n{first}"
        return json.dumps({"choice": first, "rationale": "r", "evidence": [], "confidence": 1})
    top = re.findall(r"Scale: ([\d.]+)–([\d.]+)", prompt)
    scores = {m.group(1): float(top[i][1]) for i, m in enumerate(re.finditer(r"\(id: ([\w-]+)\)", prompt))}
    if len(scores) > 1:  # a combined call
        return json.dumps({k: {"score": v, "rationale": "r", "evidence": [], "confidence": 1}
                           for k, v in scores.items()})
    return json.dumps({"score": float(top[0][1]), "rationale": "r", "evidence": [], "confidence": 1})


@pytest.mark.slow
@pytest.mark.parametrize("path", LIBRARY, ids=[p.stem for p in LIBRARY])
async def test_bundled_rubric_scores_cleanly(path: Path, server: LoopbackServer) -> None:
    server.reset(default=Reply(well_behaved))
    rubric = load_rubric_file(path)
    items = [JudgeItem(id=f"i-{v}", input="Can I return opened items?", group="g", variant=v,
                       output="# Summary\nYes: opened items can be returned within 14 days.",
                       context="Opened items may be returned within 14 days.",
                       reference="Opened items can be returned within 14 days.",
                       conversation=({"role": "user", "content": "Can I return it?"},
                                     {"role": "assistant", "content": "Yes, within 14 days."}),
                       metadata={"level": 3, "tool_calls": [], "intent": "book", "expected_intent": "book",
                                 "life_areas": ["work"], "expected_life_areas": ["work"]}) for v in "ab"]
    got: list[ScoreResult] = []
    totals = await JudgeRunner(rubric, client=client(server)).run(items, lambda rs, _h: got.extend(rs))
    assert totals.status == "done"
    assert [(r.dimension, r.error) for r in got if r.error] == []
    scored = {r.dimension for r in got}
    assert scored == {d.id for d in rubric.dimensions if d.method != "human"}
