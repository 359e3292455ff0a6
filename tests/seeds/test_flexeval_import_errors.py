"""FlexEval import errors name the source file and its line (old code: a line of the converted
YAML, "FILE (converted):LINE", which the user never saw), and FlexEval's own spellings load."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubrics.errors import RubricError
from rubrics.flexeval import import_flexeval, import_flexeval_evals
from rubrics.loader import load_rubric_text
from tests.cli import run_cli

DATA = Path(__file__).resolve().parents[1] / "data" / "flexeval"

BAD_FILL = """\
first_rubric:
  prompt: "Is {turn} polite?"
  choice_scores: {"YES": 1, "NO": 0}
second_rubric:
  notes: uses two fill words FlexEval keeps apart
  prompt: |-
    [BEGIN DATA]
    {conversation}
    {context}
    [END DATA]
  choice_scores:
    "A": 1
    "B": 0
"""


def test_a_rule_broken_by_a_converted_rubric_names_the_source_line() -> None:
    with pytest.raises(RubricError) as err:
        import_flexeval(BAD_FILL, "rubric_metrics.yaml", owner="tests")
    assert (err.value.path, err.value.line, err.value.rule) == ("rubric_metrics.yaml", 6, "fill-words")
    assert "converted" not in err.value.path


def test_evals_errors_name_the_evals_file_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    evals = (DATA / "evals.yaml").read_text()
    rubrics = [((DATA / "custom_rubrics.yaml").read_text(), "custom_rubrics.yaml")]
    with pytest.raises(RubricError) as unknown:  # the second rubric's file was not given
        import_flexeval_evals(evals, "evals.yaml", rubrics, owner="tests")
    assert (unknown.value.path, unknown.value.line, unknown.value.rule) == ("evals.yaml", 22, "flexeval-rubric")
    bad = tmp_path / "evals.yaml"
    bad.write_text(evals.replace("metric_level: Turn\n        depends_on:\n          - name: is_role\n            type",
                                 "metric_level: Turn\n        depends_on:\n          - name: flesch_kincaid_grade\n            type"))
    code, _, err = run_cli(["rubric", "import-flexeval", str(bad), "--rubrics", str(DATA / "custom_rubrics.yaml"),
                            "--rubrics", str(DATA / "example_specific_rubrics.yaml"), "--owner", "tests"], capsys)
    assert code == 1
    assert f"{bad}:16: flexeval-depends-on: depends_on 'flesch_kincaid_grade' is a function metric" in err


def test_flexeval_spellings_load_in_a_rubric_file() -> None:
    base = """\
id: spellings
version: 1.0.0
name: FlexEval spellings
description: metric_level and depends_on as FlexEval writes them.
scale: {min: 0, max: 1}
judge: {reply: last_line}
dimensions:
  - id: asks
    description: The tutor's turn asks the student a question.
    method: llm_judge
    weight: 1
    threshold: 50
    metric_level: Turn
    depends_on:
      - name: is_role
        kwargs: {role: assistant}
        metric_min_value: 1
    choices: {"YES": 1, "NO": 0}
    anchors: [{score: 0, label: "NO"}, {score: 1, label: "YES"}]
    prompt: "Does this ask a question? {content}"
owner: tests
"""
    d = load_rubric_text(base).dimensions[0]
    assert (d.metric_level, d.role, d.depends_on) == ("turn", "assistant", None)
    assert load_rubric_text(base.replace("Turn", "Thread")).dimensions[0].metric_level == "conversation"
    assert load_rubric_text(base.replace("Turn", "ToolCall")).dimensions[0].metric_level == "tool_call"
    with pytest.raises(RubricError) as err:
        load_rubric_text(base.replace("Turn", "Sentence"), "s.yaml")
    assert "s.yaml:13:" in str(err.value) and "metric_level" in str(err.value)
