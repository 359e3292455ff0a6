"""The gap between the judge and the people on one item (:mod:`reviewer.domain.gap`), pure: the
largest |panel − people| over the dimensions, normalised by the scale; people's score is the
fold's (a lead's adjudication over the consensus); none where the two are not comparable."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.domain import HumanRow, ItemRows, JudgeRow, fold_item, human_gap, item_gap
from rubrics.loader import load_rubric_text
from tests.fold.conftest import HERE

DATA = Path(__file__).resolve().parents[1] / "data"


def _fold(path: Path, judge: list[JudgeRow], human: list[HumanRow]) -> float | None:
    rubric = load_rubric_text(path.read_text(encoding="utf-8"), path.name)
    return human_gap(rubric, fold_item(rubric, ItemRows(1, judge=judge, human=human)).dims)


def test_largest_dimension_normalised_and_the_adjudication_wins() -> None:
    rubric = HERE / "fold-test.yaml"  # 1–5 everywhere
    judge = [JudgeRow(1, "accuracy", "m1", 5.0), JudgeRow(2, "accuracy", "m2", 3.0),  # panel 4
             JudgeRow(3, "clarity", "m1", 2.0)]
    people = [HumanRow(1, "accuracy", "ana", 1.0), HumanRow(2, "accuracy", "ben", 2.0),  # consensus 1.5
              HumanRow(3, "clarity", "ana", 3.0), HumanRow(4, "empathy", "ana", 5.0)]  # empathy: no judge
    assert _fold(rubric, judge, people) == pytest.approx(2.5 / 4)
    settled = [*people, HumanRow(5, "accuracy", "lee", 4.0, "adjudication")]  # the lead says 4: as the panel
    assert _fold(rubric, judge, settled) == pytest.approx(1 / 4)  # clarity's 1 of 4 is left
    assert _fold(rubric, judge, []) is None and _fold(rubric, [], people) is None
    undone = [*people, HumanRow(5, "accuracy", "ana", None, "undo"), HumanRow(6, "accuracy", "ben", None, "undo")]
    assert _fold(rubric, judge, undone) == pytest.approx(1 / 4)
    assert item_gap([None, 0.5, 0.0, None]) == 0.5 and item_gap([None]) is None and item_gap([]) is None


def test_a_judge_on_a_scale_of_its_own_has_no_gap() -> None:
    """Topical-Chat's judge answers 0–1 where people score 1–3: not comparable (calibrate says so
    too), so 0.9 against 1 is no gap rather than a made-up one."""
    assert _fold(DATA / "topical-chat.yaml", [JudgeRow(1, "naturalness", "m", 0.9)],
                 [HumanRow(1, "naturalness", "ana", 1.0)]) is None
