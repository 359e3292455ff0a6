"""A conversation with tool calls, judged end to end through ``judge`` against the loopback
server with rubrics imported from FlexEval evals (tests/data/flexeval_tools): at the
``ToolCall`` level each tool call is one judge call, rolled up to the item by the turn rule; a
``count_tool_calls_by_name`` condition decides, turn by turn, from the calls the conversation's
messages make (``tool_calls``, OpenAI's shape), which turns are judged at all.

On the old code neither rubric imported (``ToolCall`` and ``count_tool_calls_by_name`` refused).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli import run_cli
from tests.judge.loopback import LoopbackServer, Reply, user_prompt
from tests.seeds.helpers import data_block as _block

DATA = Path(__file__).resolve().parents[1] / "data" / "flexeval_tools"


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


GOOD = {"expression": "y=2x", "left": -5, "right": 5, "bottom": -10, "top": 10}
BAD = {"expression": "y=x+1", "left": 5, "right": -5, "bottom": -4, "top": 6}
CONVERSATION: list[dict[str, Any]] = [
    {"role": "user", "content": "Can you graph y = 2x?"},
    {"role": "assistant", "content": "I'll draw y = 2x.", "tool_calls": [_call("c1", "DrawGraph", GOOD)]},
    {"role": "tool", "tool_call_id": "c1", "content": "drawn"},
    {"role": "assistant", "content": "Here is the line y = 2x; what is its slope?"},
    {"role": "user", "content": "2. Now graph y = x + 1 and look up what an intercept is."},
    {"role": "assistant", "content": "Drawing it and looking that up.",
     "tool_calls": [_call("c2", "DrawGraph", BAD), _call("c3", "LookUp", {"q": "intercept"})]},
    {"role": "tool", "tool_call_id": "c2", "content": "drawn"},
    {"role": "tool", "tool_call_id": "c3", "content": "the point where a line crosses an axis"},
    {"role": "assistant", "content": "Done: it crosses the y-axis at 1."},
]


def judge(body: dict[str, Any]) -> str:
    """Answers by reading what it was shown, as a judge would."""
    prompt = user_prompt(body)
    shown = _block(prompt)
    if "Is the call well formed" in prompt:
        call = json.loads(shown)
        args = json.loads(call["arguments"])
        ok = args["left"] < args["right"] and args["bottom"] < args["top"]
        return f"{call['name']} with {args}.\n" + ("GOOD" if ok else "BAD")
    if "asked for a graph" in prompt:
        return "The learner asked.\nYES"
    if "match what the tutor said" in prompt:
        return "Partly.\nSOMEWHAT" if "x + 1" in shown or "Drawing it" in shown else "Yes.\nYES"
    raise AssertionError(prompt)


def _run(tmp_path: Path, eval_name: str, server: LoopbackServer, capsys: pytest.CaptureFixture[str],
         conversation: list[dict[str, Any]] = CONVERSATION) -> dict[str, Any]:
    db = str(tmp_path / f"{eval_name}.db")
    out = tmp_path / f"{eval_name}.yaml"
    code, _, err = run_cli(["rubric", "import-flexeval", str(DATA / "evals.yaml"), "--rubrics",
                            str(DATA / "graph_rubrics.yaml"), "--eval", eval_name, "--id", eval_name,
                            "--owner", "maths-team", "--out", str(out)], capsys)
    assert code == 0, err
    assert run_cli(["rubric", "add", str(out), "--db", db], capsys)[0] == 0
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "chat-1", "conversation": conversation}) + "\n")
    code, _, err = run_cli(["import", str(items), "--rubric", f"{eval_name}@1.0.0", "--db", db], capsys)
    assert code == 0, err
    server.reset(default=Reply(judge))
    code, text, err = run_cli(["judge", "--rubric", f"{eval_name}@1.0.0", "--model", "openai/judge-x",
                               "--api-base", server.url, "--api-key", "k", "--db", db], capsys)
    assert code == 0, err + text
    [row] = [json.loads(line) for line in run_cli(["export", "--db", db], capsys)[1].splitlines()]
    return dict(row)


def test_each_tool_call_is_scored_and_rolled_up(
    tmp_path: Path, server: LoopbackServer, capsys: pytest.CaptureFixture[str]
) -> None:
    row = _run(tmp_path, "each-graph-call", server, capsys)
    # Three calls; the LookUp call is outside count_tool_calls_by_name(DrawGraph) ≥ 1: two judge calls.
    assert server.count == 2
    shown = [json.loads(_block(user_prompt(b))) for b in server.requests]
    calls = sorted((c["name"], c["arguments"]) for c in shown)  # the calls run concurrently
    assert calls == sorted([("DrawGraph", json.dumps(GOOD)), ("DrawGraph", json.dumps(BAD))])
    dim = row["dimensions"]["graph_call_is_well_formed"]
    # By hand: call 0 GOOD = 1, call 1 BAD = 0, call 2 (LookUp) not applicable; the item's score
    # is the mean of the scored calls (turn_aggregate).
    assert [(t["turn"], t["score"]) for t in dim["turns"]] == [(0, 1.0), (1, 0.0), (2, None)]
    assert dim["effective"] == pytest.approx(0.5) and row["overall"] == pytest.approx(0.5)


def test_a_tool_call_count_condition_picks_the_turns_judged(
    tmp_path: Path, server: LoopbackServer, capsys: pytest.CaptureFixture[str]
) -> None:
    row = _run(tmp_path, "graphs-by-tool-name", server, capsys)
    fits = row["dimensions"]["graph_fits_the_description"]
    # Four assistant turns; only turns 0 and 2 call DrawGraph: 4 + 2 judge calls.
    assert server.count == 6
    assert [(t["turn"], t["score"]) for t in fits["turns"]] == [(0, 1.0), (1, None), (2, 0.5), (3, None)]
    assert fits["effective"] == pytest.approx(0.75)
    assert row["dimensions"]["student_wants_a_graph"]["effective"] == 1.0


def test_a_pattern_count_condition_leaves_out_the_turn_that_matches(
    tmp_path: Path, server: LoopbackServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # count_of_parts_matching_regex("something went wrong") ≤ 0: the turn that says it is not judged.
    convo = [dict(m) for m in CONVERSATION]
    convo[3]["content"] = "Sorry, something went wrong with that."
    row = _run(tmp_path, "error-text-guard", server, capsys, convo)
    assert server.count == 3
    assert not any("something went wrong" in user_prompt(b) for b in server.requests)
    fits = row["dimensions"]["graph_fits_the_description"]
    # By hand: turn 0 YES = 1, turn 1 left out, turn 2 SOMEWHAT = 0.5, turn 3 YES = 1.
    assert [(t["turn"], t["score"]) for t in fits["turns"]] == [(0, 1.0), (1, None), (2, 0.5), (3, 1.0)]
    assert fits["effective"] == pytest.approx(2.5 / 3)
