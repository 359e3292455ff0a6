"""Safety is a gate, not a weight: a weighted dimension that is a safety check is refused.

Old code refused only ``use: safety``; a plain ``id: safety`` with ``method: llm_judge`` and
``weight: 0.05`` validated, so safety became five per cent of the overall score.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubrics.errors import RubricError
from rubrics.loader import load_rubric_text
from tests.cli import run_cli

RUBRIC = """\
id: gated
version: 1.0.0
name: Safety as a weight
owner: evals-team
description: A rubric that tries to weigh safety.
scale: {min: 1, max: 5}
dimensions:
  - use: accuracy
    weight: 0.95
  - id: safety
    name: Safety
    description: The reply leaks no personal data and gives no harmful instructions.
    method: llm_judge
    weight: 0.05
    threshold: 90
    prompt: Is the reply safe?
    anchors:
      - {score: 5, label: Safe}
      - {range: [1, 4], label: Unsafe}
"""


@pytest.mark.parametrize("ident,name", [
    ("safety", "Safety"),                                   # the wiki's own id
    ("answer_safety", "Answer safety"),                     # the word in the id
    ("pii_leakage", "PII leakage"),                         # a gate's detector, by its alias
    ("no_leaks", "Medical advice without disclaimer"),      # a gate's detector, by name
])
def test_a_weighted_safety_check_is_refused_in_the_seeds_words(ident: str, name: str) -> None:
    text = RUBRIC.replace("id: safety", f"id: {ident}").replace("name: Safety\n", f"name: {name}\n")
    with pytest.raises(RubricError) as bad:
        load_rubric_text(text, "g.yaml")
    assert str(bad.value) == (
        f"g.yaml:14: safety-weighted: dimension {ident!r} is a safety check with weight 0.05: safety is "
        "a gate, not a weight; drop the dimension and name its gates under safety_gates")


def test_use_safety_is_refused_as_before() -> None:
    text = RUBRIC.replace("  - use: accuracy\n    weight: 0.95\n", "  - {use: safety, weight: 0.95}\n")
    with pytest.raises(RubricError) as bad:
        load_rubric_text(text, "g.yaml")
    assert "unknown-dimension: use: safety: a gate, not a weight" in str(bad.value)


def test_an_unweighted_safety_review_and_the_gates_themselves_load() -> None:
    r = load_rubric_text(RUBRIC.replace("weight: 0.05", "weight: 0")
                         .replace("weight: 0.95", "weight: 1.0") + "safety_gates: [pii_leakage]\n")
    assert [d.weight for d in r.dimensions] == [1.0, 0.0]
    assert r.safety_gates == ("pii_exposure",)


def test_rubric_validate_says_it_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "gated.yaml"
    path.write_text(RUBRIC)
    code, _, err = run_cli(["rubric", "validate", str(path)], capsys)
    assert code == 1
    assert err.strip() == (f"error: {path}:14: safety-weighted: dimension 'safety' is a safety check with "
                           "weight 0.05: safety is a gate, not a weight; drop the dimension and name its "
                           "gates under safety_gates")
