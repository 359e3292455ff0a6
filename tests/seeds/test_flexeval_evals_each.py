"""FlexEval's evals.yaml imported eval by eval, in the shapes of the FlexEval repository's own
files (tests/data/flexeval_tools, written for these tests): an eval that cannot be imported is
refused in one line by itself while every other eval is written; tool-call count conditions,
the ToolCall level and ``do_completion`` are read; a rubric file of more than ten rubrics is
imported a pick at a time with ``--rubric``, and each rubric's ``notes`` are kept.

On the old code the whole file was refused for its first bad eval (``--eval`` needed, and with
it ``count_tool_calls_by_name`` refused), ``ToolCall`` was refused, ``{completion}`` was taken
whatever ``do_completion`` said, notes were dropped and an 11-rubric file could not be imported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubrics.errors import RubricError
from rubrics.flexeval import import_flexeval, import_flexeval_each
from rubrics.loader import load_rubric_text
from rubrics.schema import PatternCount, ToolCallCount
from tests.cli import run_cli

DATA = Path(__file__).resolve().parents[1] / "data" / "flexeval_tools"
EVALS = DATA / "evals.yaml"
RUBRICS = DATA / "graph_rubrics.yaml"
IMPORTED = ["graphs-by-tool-name", "any-tool-call", "each-graph-call", "fresh-completion", "error-text-guard"]
#: Each refused eval, the evals.yaml line its one error names, and what it says.
REFUSED = {
    "completion-not-made": (106, "flexeval-completion", "the eval does not set do_completion: true"),
    "moderated": (134, "flexeval-depends-on", "'openai_moderation_api' needs a network service"),
    "rubric-not-written": (145, "flexeval-rubric", "rubric 'graph_colours_are_accessible' is not in"),
    "functions-only": (152, "flexeval-eval", "has no rubric metrics to import"),
}


def test_each_eval_imports_or_is_refused_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rubrics"
    out.mkdir()
    code, stdout, err = run_cli(["rubric", "import-flexeval", str(EVALS), "--rubrics", str(RUBRICS),
                                 "--owner", "maths-team", "--out", str(out)], capsys)
    assert code == 1  # something was refused: the exit says so, after writing the rest
    assert sorted(p.stem for p in out.iterdir()) == sorted(IMPORTED)
    assert stdout.splitlines() == [f"wrote {out / name}.yaml" for name in IMPORTED]
    lines = err.splitlines()
    assert len(lines) == len(REFUSED)  # one line per refused eval, nothing else
    for line, (name, (at, rule, words)) in zip(lines, REFUSED.items(), strict=True):
        assert line.startswith(f"{EVALS}:{at}: {rule}: ") and words in line, line
        assert line.endswith(f"(eval {name!r} not imported)")
    for name in IMPORTED:
        rubric = load_rubric_text((out / f"{name}.yaml").read_text())
        assert rubric.id == name and rubric.owner == "maths-team"


def test_tool_call_conditions_levels_and_completion_are_read() -> None:
    results = {name: r for name, _, r in import_flexeval_each(
        EVALS.read_text(), "evals.yaml", [(RUBRICS.read_text(), "graph_rubrics.yaml")], owner="t")}
    by_name = load_rubric_text(str(results["graphs-by-tool-name"]))
    wants, fits = by_name.dimensions
    assert (wants.role, wants.tool_calls) == ("assistant", ())
    # count_tool_calls_by_name with metric_name DrawGraph, and the rubric dependency beside it
    assert fits.tool_calls == (ToolCallCount("DrawGraph", 1.0, None),)
    assert fits.depends_on is not None and fits.depends_on.dimension == "student_wants_a_graph"
    any_call = load_rubric_text(str(results["any-tool-call"])).dimensions[0]
    assert (any_call.role, any_call.tool_calls) == ("assistant", (ToolCallCount(None, 1.0, None),))
    per_call = load_rubric_text(str(results["each-graph-call"])).dimensions[0]
    assert (per_call.metric_level, per_call.in_parts) == ("tool_call", True)
    guard = load_rubric_text(str(results["error-text-guard"])).dimensions[0]
    assert guard.matches == (PatternCount("something went wrong", None, 0.0),)
    # do_completion: the completion is the item's output, so the rubric is item level
    completion = load_rubric_text(str(results["fresh-completion"])).dimensions[0]
    assert completion.metric_level == "item" and "{completion}" in (completion.prompt or "")


def test_completion_without_do_completion_is_refused_in_a_rubric_file() -> None:
    with pytest.raises(RubricError) as err:
        import_flexeval(RUBRICS.read_text(), "graph_rubrics.yaml", owner="t")
    assert (err.value.path, err.value.line, err.value.rule) == ("graph_rubrics.yaml", 50, "flexeval-completion")
    assert "do_completion: true" in err.value.message


def _eleven() -> str:
    return "".join(f"check_{n}:\n  notes: what check {n} is for\n  prompt: 'Is part {n} right? {{content}}'\n"
                   f"  choice_scores: {{'YES': 1, 'NO': 0}}\n" for n in range(11))


def test_rubric_picks_from_a_file_of_more_than_ten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    many = tmp_path / "rubric_metrics.yaml"
    many.write_text(_eleven())
    code, _, err = run_cli(["rubric", "import-flexeval", str(many), "--owner", "t"], capsys)
    assert code == 1 and len(err.splitlines()) == 1
    assert "11 rubrics" in err and "--rubric NAME" in err and "check_10" in err
    code, out, err = run_cli(["rubric", "import-flexeval", str(many), "--rubric", "check_3", "--rubric", "check_10",
                              "--owner", "t"], capsys)
    assert code == 0, err
    dims = load_rubric_text(out).dimensions
    assert [d.id for d in dims] == ["check_3", "check_10"]
    assert dims[0].description.startswith("what check 3 is for\n")  # FlexEval's notes kept
    code, _, err = run_cli(["rubric", "import-flexeval", str(many), "--rubric", "check_11", "--owner", "t"], capsys)
    assert code == 1 and "no rubric 'check_11' here" in err
    code, _, err = run_cli(["rubric", "import-flexeval", str(EVALS), "--rubrics", str(RUBRICS), "--eval", "moderated",
                            "--rubric", "student_wants_a_graph", "--owner", "t"], capsys)
    assert code == 1 and len(err.splitlines()) == 1 and "an evals.yaml's eval names its own" in err


def test_a_pattern_that_can_backtrack_without_end_is_refused_at_its_line(tmp_path: Path) -> None:
    text = EVALS.read_text().replace('expression: "something went wrong"', 'expression: "(a+)+$"')
    results = {name: r for name, _, r in import_flexeval_each(
        text, "evals.yaml", [(RUBRICS.read_text(), "graph_rubrics.yaml")], owner="t")}
    err = results["error-text-guard"]
    assert isinstance(err, RubricError) and err.rule == "regex-backtracking"
    assert (err.path, err.line) == ("evals.yaml", 116)  # the rubric metric's depends_on
