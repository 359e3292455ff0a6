"""FlexEval end to end, as a user runs it: two rubric files in FlexEval's shape (tests/data/flexeval,
written for these tests) imported through an evals.yaml, a multi-turn conversation imported,
judged through the loopback server with FlexEval's reply style (reasoning, then the choice alone
on the last line), and exported with its turn scores and the item's overall.

On the old code each step failed: ``metric_level: Turn`` was refused, the evals.yaml could not
be read, ``{content}`` stayed literal in the prompt, the last-line reply was "the reply holds no
JSON object", a conversation-only item was judged on an empty output, and turn scores never
reached export or the overall (``overall`` null).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli import run_cli
from tests.judge.loopback import LoopbackServer, Reply, user_prompt
from tests.seeds.helpers import data_block

DATA = Path(__file__).resolve().parents[1] / "data" / "flexeval"
ASKS = "tutor_checks_understanding"
PLOT = "graph_fits_explanation"

PLOT_JSON = '{"expression": "y=2x+1", "top": 5, "bottom": -5, "left": -5, "right": 5}'
CONVERSATION = [
    {"role": "user", "content": "Can you help me with y = 2x + 1?"},
    {"role": "assistant", "content": "Sure! What do you think the slope is?"},
    {"role": "user", "content": "Is it 2? Can you plot it?"},
    # Two assistant messages in a row are one FlexEval turn: the description, then the plot.
    {"role": "assistant", "content": "I'll plot the line y = 2x + 1 crossing the y-axis at 1."},
    {"role": "assistant", "content": PLOT_JSON},
    {"role": "user", "content": "Thanks"},
    {"role": "assistant", "content": "You're welcome. Want to try y = -x + 3 next?"},
]


def flexeval_judge(body: dict[str, Any]) -> str:
    """A judge that answers as FlexEval asks: reasoning, then the choice alone on the last line."""
    prompt = user_prompt(body)
    turn = data_block(prompt)
    if "decide whether it puts a question to the learner" in prompt:
        return "The reply ends with a question.\nASKS" if "?" in turn else "No question here.\nTELLS"
    if "Compare the words with the JSON graph" in prompt:
        if '"expression"' in turn:
            return "The graph draws the line but the words also promised the intercept.\nPARTLY"
        return "There is no JSON graph.\nDIFFERS"
    raise AssertionError("unexpected prompt")


def _import_rubric(tmp_path: Path, db: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tutor.yaml"
    code, _, err = run_cli(["rubric", "import-flexeval", str(DATA / "evals.yaml"), "--rubrics",
                            str(DATA / "custom_rubrics.yaml"), "--rubrics", str(DATA / "example_specific_rubrics.yaml"),
                            "--id", "tutor", "--owner", "tutoring-team", "--out", str(out)], capsys)
    assert code == 0, err
    assert run_cli(["rubric", "add", str(out), "--db", db], capsys)[0] == 0


def test_flexeval_rubrics_score_a_conversation_turn_by_turn(
    tmp_path: Path, server: LoopbackServer, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "flex.db")
    _import_rubric(tmp_path, db, capsys)
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "chat-1", "conversation": CONVERSATION}) + "\n")
    code, _, err = run_cli(["import", str(items), "--rubric", "tutor@1.0.0", "--db", db], capsys)
    assert code == 0, err
    server.reset(default=Reply(flexeval_judge))
    code, out, err = run_cli(["judge", "--rubric", "tutor@1.0.0", "--model", "openai/judge-x", "--api-base",
                              server.url, "--api-key", "k", "--db", db], capsys)
    assert code == 0, err + out
    # Three assistant turns × two rubrics; user turns are outside is_role(assistant).
    assert server.count == 6
    shown = [data_block(user_prompt(b)) for b in server.requests]
    assert "{content}" not in user_prompt(server.requests[0])
    assert "I'll plot the line y = 2x + 1 crossing the y-axis at 1.\n" + PLOT_JSON in shown
    assert not any("Can you help me" in s for s in shown)  # a user turn is never the content

    code, out, _ = run_cli(["export", "--db", db], capsys)
    [row] = [json.loads(line) for line in out.splitlines()]
    asks, plot = row["dimensions"][ASKS], row["dimensions"][PLOT]
    # Only the two rubrics the evals.yaml names: the file's other rubric is left out.
    assert set(row["dimensions"]) == {ASKS, PLOT}
    # By hand: turn 0 asks a question (ASKS = 1), turn 1 is the plot (TELLS = 0), turn 2 asks (ASKS = 1).
    assert [(t["turn"], t["score"]) for t in asks["turns"]] == [(0, 1.0), (1, 0.0), (2, 1.0)]
    # Graph rubric: only turn 1 holds a graph, PARTLY = 0.5; the others DIFFERS = 0.
    assert [(t["turn"], t["score"]) for t in plot["turns"]] == [(0, 0.0), (1, 0.5), (2, 0.0)]
    # The item's score is the mean of its turns (turn_aggregate: mean, FlexEval's roll-up).
    assert asks["turn_aggregate"] == "mean" and asks["effective"] == pytest.approx(2 / 3)
    assert plot["effective"] == pytest.approx(1 / 6)
    # `queue show` lists the same turns under each dimension, and the chat by role
    code, out, _ = run_cli(["queue", "show", "chat-1", "--db", db], capsys)
    assert code == 0 and "conversation\n  user:" in out
    assert "    turn 0: 1  (mean of the turns)\n    turn 1: 0  (mean of the turns)" in out
    # Overall: equal weights 0.5 each on a 0–1 scale: 0.5 × 2/3 + 0.5 × 1/6 = 5/12.
    assert row["overall"] == pytest.approx(5 / 12)
    assert row["band"] == "Low" and row["capped_by"] == []
    code, out, _ = run_cli(["report", "--rubric", "tutor@1.0.0", "--format", "json", "--db", db], capsys)
    turns = {d["dimension"]: d["turns"] for d in json.loads(out)["dimensions"]}
    assert turns[ASKS] == {"scored": 3, "mean": pytest.approx(2 / 3), "errors": 0, "aggregate": "mean"}
    code, out, _ = run_cli(["report", "--rubric", "tutor@1.0.0", "--format", "markdown", "--db", db], capsys)
    assert f"{ASKS}: 3 turns scored, turn mean 0.667, 0 failed; each item's score is the mean of its turns" in out
    # Every key an exported row carries is documented in docs/formats.md.
    doc = (Path(__file__).resolve().parents[2] / "docs" / "formats.md").read_text()
    keys = set(row) | {k for d in row["dimensions"].values() for k in d} | {k for t in asks["turns"] for k in t}
    assert sorted(k for k in keys if f"`{k}`" not in doc and f".{k}`" not in doc and f'"{k}"' not in doc) == []


def test_bundled_flexeval_choice_rubric_gives_a_conversation_item_an_overall(
    tmp_path: Path, server: LoopbackServer, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "bundled.db")
    items = tmp_path / "items.jsonl"
    convo = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello, what shall we do?"},
             {"role": "user", "content": "Can you plot y = x squared?"},
             {"role": "assistant", "content": "Here it is."}]
    items.write_text(json.dumps({"id": "c", "conversation": convo}) + "\n")
    assert run_cli(["import", str(items), "--rubric", "flexeval-choice@1.1.0", "--db", db], capsys)[0] == 0

    def judge(body: dict[str, Any]) -> str:
        return "The student asks for a graph.\nYES" if "plot" in data_block(user_prompt(body)) else "No.\nNO"

    server.reset(default=Reply(judge))
    code, out, err = run_cli(["judge", "--rubric", "flexeval-choice@1.1.0", "--model", "openai/judge-x",
                              "--api-base", server.url, "--api-key", "k", "--db", db], capsys)
    assert code == 0, err + out
    [row] = [json.loads(line) for line in run_cli(["export", "--db", db], capsys)[1].splitlines()]
    dim = row["dimensions"]["asks_for_plot"]
    # The student's turns are scored (role: user): "hi" NO, the plot request YES; any turn asking
    # makes the item ask (turn_aggregate: max).
    assert [(t["turn"], t["score"]) for t in dim["turns"]] == [(0, 0.0), (1, 1.0)]
    assert dim["effective"] == 1.0 and row["overall"] == 1.0


def test_last_line_that_is_not_a_choice_is_an_error_never_a_guess(
    tmp_path: Path, server: LoopbackServer, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "bad.db")
    _import_rubric(tmp_path, db, capsys)
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "chat-1", "conversation": CONVERSATION[:2]}) + "\n")
    assert run_cli(["import", str(items), "--rubric", "tutor@1.0.0", "--db", db], capsys)[0] == 0
    # FlexEval's own matcher would read "ASKS" off the end of this line; rubricate refuses it.
    server.reset(default=Reply("It does ask.\nMy decision is ASKS"))
    code, out, err = run_cli(["judge", "--rubric", "tutor@1.0.0", "--model", "openai/judge-x", "--api-base",
                              server.url, "--api-key", "k", "--db", db], capsys)
    assert code == 0, err
    assert server.count == 4  # each of two dimensions: the reply, one re-ask
    [row] = [json.loads(line) for line in run_cli(["export", "--db", db], capsys)[1].splitlines()]
    asks = row["dimensions"][ASKS]
    assert asks["effective"] is None and "turn 0 failed" in asks["judge_error"]
    assert "is not one of ASKS, TELLS" in asks["judge_error"]
    assert row["overall"] is None or row["passed"] is False
