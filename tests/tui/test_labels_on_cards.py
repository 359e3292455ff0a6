"""A categorical (nominal) dimension's card names the label a score stands for, beside the number;
graded dimensions show the number alone, as before."""

from __future__ import annotations

from rich.console import Console

from reviewer.tui.viewmodel import DimState
from reviewer.tui.widgets.dimension_card import DimensionCard
from rubrics.loader import load_rubric_text

RUBRIC = """id: cards
version: 1.0.0
name: Cards
scale: {min: 1, max: 3}
dimensions:
  - id: verdict
    description: Whether the answer is safe, unsafe, or the reviewer cannot tell.
    method: llm_judge
    weight: 0.5
    threshold: 50
    level: nominal
    anchors: [{score: 1, label: safe}, {score: 2, label: unsafe}, {score: 3, label: unsure}]
  - id: tone
    description: How polite the answer is to the person who asked.
    method: llm_judge
    weight: 0.5
    threshold: 50
    anchors: [{score: 1, label: rude}, {score: 2, label: plain}, {score: 3, label: warm}]
owner: tests
"""


def _text(state: DimState) -> str:
    console = Console(width=100, record=True)
    console.print(DimensionCard(state, 2.0)._render_state())
    return console.export_text()


def test_nominal_card_shows_labels_beside_scores() -> None:
    verdict, tone = load_rubric_text(RUBRIC).dimensions
    shown = _text(DimState(verdict, judge_score=2.0, my_score=1.0))
    assert "judge 2 unsafe" in shown and "you 1 safe" in shown
    graded = _text(DimState(tone, judge_score=2.0, my_score=1.0))
    assert "judge 2\n" in graded or "judge 2 " in graded
    assert "judge 2 plain" not in graded and "you 1 rude" not in graded
