"""The panel's score has one rule (:func:`rubrics.aggregate.panel_score`, applied per item by
:func:`reviewer.domain.judge.fold_judge`); :func:`reviewer.domain.columns.panel_of` is its
vectorised mirror for the columnar read, and a rating row carries the fold's own panel score."""

from __future__ import annotations

import numpy as np
import pytest

from reviewer.domain import ItemRows, JudgeRow, fold_item
from reviewer.domain.columns import panel_of
from reviewer.domain.rating import rating_row
from rubrics.aggregate import panel_score
from rubrics.library import find_bundled


@pytest.mark.parametrize("how", ["mean", "median"])
def test_panel_of_matches_the_per_item_rule(how: str) -> None:
    rng = np.random.default_rng(3)
    by_model = rng.integers(1, 11, size=(200, 4)).astype(float)
    by_model[rng.random(by_model.shape) < 0.4] = np.nan  # models that did not score an item
    got = panel_of(by_model, how)
    for row, value in zip(by_model, got, strict=True):
        expected = panel_score([float(x) for x in row if not np.isnan(x)], how)
        assert (expected is None and np.isnan(value)) or value == pytest.approx(expected)


def test_a_rating_row_carries_the_folds_panel() -> None:
    rubric = find_bundled("general-quality", "1.0.0")
    rows = ItemRows(1, judge=[JudgeRow(1, "accuracy", "a", 4.0), JudgeRow(2, "accuracy", "b", 9.0),
                              JudgeRow(3, "accuracy", "a", 6.0), JudgeRow(4, "clarity", "a", None, error="boom")])
    fold = fold_item(rubric, rows)
    row = rating_row(1, "x", None, {}, fold)
    assert row["panel"] == {"accuracy": 7.5}  # latest per model (a: 6, b: 9); the error gave no score
    assert row["panel"]["accuracy"] == fold.dims["accuracy"].judge.panel
