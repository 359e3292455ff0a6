"""ADR-016's own reply object carries ``overall`` beside the dimensions and ``notes``: accepted,
stored as the judge's own figure and shown beside the overall rubricate computes (``queue show``,
export), never in its place. Any other key outside the dimensions is still an error.

By hand: accuracy 9, completeness 7, relevance 8 on 1–10 with weights 0.5/0.3/0.2 normalise to
8/9, 6/9 and 7/9, so rubricate's overall is (4 + 1.8 + 1.4) / 9 = 0.800; the judge states 8.15.

Old code: every such reply was refused on every dimension ("the answer must hold exactly ...").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubrics.judge.runner import JudgeRunner
from rubrics.loader import load_rubric_text
from rubrics.results import ScoreResult
from rubrics.schema import Rubric
from tests.cli import run_cli
from tests.judge.helpers import client, item
from tests.judge.loopback import LoopbackServer, Reply, user_prompt
from tests.seeds.helpers import FLAT
from tests.store.conftest import db_url  # noqa: F401  (the fixture: SQLite and PostgreSQL)

ADR_REPLY = {"accuracy": 9, "completeness": 7, "relevance": 8, "overall": 8.15,
             "notes": "Factually solid, slightly verbose in the introduction"}


async def _run(r: Rubric, server: LoopbackServer) -> list[ScoreResult]:
    got: list[ScoreResult] = []
    await JudgeRunner(r, client=client(server)).run([item()], lambda rs, _h: got.extend(rs))
    return got


async def test_overall_is_kept_apart_and_other_keys_still_refused(server: LoopbackServer) -> None:
    r = load_rubric_text(FLAT)
    for answer, error in (({**ADR_REPLY, "ranking": ["A"]}, "unexpected ranking"),
                          ({**ADR_REPLY, "overall": 42}, '"overall" 42 is off the scale 1–10'),
                          ({**ADR_REPLY, "overall": "high"}, '"overall" must be a number')):
        server.reset(default=Reply(json.dumps(answer)))
        got = await _run(r, server)
        assert all(x.score is None and x.stated_overall is None for x in got)
        assert all(x.error and error in x.error for x in got), (answer, [x.error for x in got])
    server.reset(default=Reply(json.dumps(ADR_REPLY)))
    got = await _run(r, server)
    assert {x.dimension: (x.score, x.stated_overall) for x in got} == {
        "accuracy": (9, 8.15), "completeness": (7, 8.15), "relevance": (8, 8.15)}


def test_stated_overall_shown_beside_the_computed_one(
    tmp_path: Path, db_url: str, server: LoopbackServer, capsys: pytest.CaptureFixture[str],  # noqa: F811
) -> None:
    rubric = tmp_path / "adr-flat.yaml"
    rubric.write_text(FLAT)
    assert run_cli(["rubric", "add", str(rubric), "--db", db_url], capsys)[0] == 0
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": i, "input": "What is the capital of France?",
                                         "output": out}) + "\n" for i, out in (("q1", "Paris, yes."), ("q2", "Paris."))))
    assert run_cli(["import", str(items), "--rubric", "adr-flat@1.0.0", "--db", db_url], capsys)[0] == 0
    server.reset(default=Reply(lambda body: json.dumps(
        ADR_REPLY if "Paris, yes." not in user_prompt(body) else {k: v for k, v in ADR_REPLY.items() if k != "overall"})))
    code, out, err = run_cli(["judge", "--rubric", "adr-flat@1.0.0", "--model", "openai/judge-x", "--api-base",
                              server.url, "--api-key", "k", "--db", db_url], capsys)
    assert code == 0, err + out

    exported = {r["id"]: r for r in map(json.loads, run_cli(["export", "--db", db_url], capsys)[1].splitlines())}
    assert all(r["overall"] == pytest.approx(0.8) for r in exported.values())  # rubricate's own, unchanged
    assert all(r["judge_overall"] == pytest.approx(0.8) for r in exported.values())
    assert [r.get("judge_stated_overall") for _, r in sorted(exported.items())] == [
        None, {"openai/judge-x": 8.15}]  # q1's reply stated none

    code, out, _ = run_cli(["queue", "show", "q2", "--db", db_url], capsys)
    assert code == 0
    assert "overall: 0.800" in out
    assert "judge's own overall: 8.15 (openai/judge-x) (as the judge stated it; not used)" in out
    code, out, _ = run_cli(["queue", "show", "q1", "--db", db_url], capsys)
    assert "overall: 0.800" in out and "judge's own overall" not in out
