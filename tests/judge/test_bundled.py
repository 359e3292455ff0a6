"""Every bundled rubric runs through the judge without an error against a well-behaved judge:
its rule keys, fill words, choices, scales and pair methods are all ones the pipeline knows."""

from __future__ import annotations

from pathlib import Path

import pytest

import rubrics
from rubrics.judge.runner import JudgeRunner
from rubrics.loader import load_rubric_file
from rubrics.methods.base import JudgeItem
from rubrics.results import ScoreResult
from tests.judge.helpers import client, well_behaved
from tests.judge.loopback import LoopbackServer, Reply

LIBRARY = sorted((Path(rubrics.__file__).parent / "library").glob("*.yaml"))


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
