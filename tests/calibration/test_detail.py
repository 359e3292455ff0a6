"""calibration.detail and calibration.gold: the statistics the services compute from the store's rows
(``reviewer/services/calibrate_service.py`` and ``reviewer/services/gold.py``), checked by hand."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import numpy as np
import pytest

from calibration.detail import best_model, confusion, reliability, reviewer_offsets
from calibration.gold import gold_accuracy


def test_best_model_highest_alpha_then_lower_mae_then_name() -> None:
    assert best_model({"a": {"alpha": 0.5, "mae": 0.1}, "b": {"alpha": 0.7, "mae": 0.9}}) == "b"
    assert best_model({"a": {"alpha": 0.7, "mae": 0.4}, "b": {"alpha": 0.7, "mae": 0.2}}) == "b"
    assert best_model({"b": {"alpha": 0.7, "mae": 0.2}, "a": {"alpha": 0.7, "mae": 0.2}}) == "a"
    # a model with no alpha cannot win; a missing MAE ranks after any MAE
    assert best_model({"a": {"alpha": None, "mae": 0.0}, "b": {"alpha": 0.1, "mae": None}}) == "b"
    assert best_model({"a": {"alpha": 0.3}, "b": {"alpha": 0.3, "mae": 2.0}}) == "b"
    assert best_model({"a": {"alpha": None}}) is None
    assert best_model({}) is None


def test_confusion_counts_each_pair_at_its_nearest_levels() -> None:
    out = confusion([1, 3, 3, 5, 4.9], [1, 1, 3, 5, 2.2], [1, 3, 5])
    assert out["levels"] == [1, 3, 5]
    # rows: the judge's level; columns: the people's
    assert out["table"] == [[1, 0, 0], [1, 1, 0], [0, 1, 1]]
    assert out["n"] == 5 == sum(map(sum, out["table"]))


def test_confusion_of_nothing_is_an_empty_table() -> None:
    out = confusion([], [], [0, 1])
    assert out == {"levels": [0, 1], "table": [[0.0, 0.0], [0.0, 0.0]], "n": 0, "reliability": []}


def test_reliability_is_the_peoples_mean_per_judge_level() -> None:
    """Hand-computed: judge levels 1 (items scored 1, 2 by people), 3 (one item at 4.9 → level 5
    with 2.2, and 3 → 3 with 3) and no item at level 2; people's scores kept as given, not rounded."""
    out = reliability(np.array([1, 1.2, 3, 4.9]), np.array([1, 2, 3, 2.2]), [1, 2, 3, 4, 5])
    assert [(p["level"], p["n"]) for p in out] == [(1.0, 2), (3.0, 1), (5.0, 1)]
    assert out[0]["mean_human"] == pytest.approx(1.5)
    half = 1.959964 * math.sqrt(0.5) / math.sqrt(2)  # z · s / √n with s = sd(1, 2) = √0.5
    assert out[0]["ci"] == pytest.approx([1.5 - half, 1.5 + half], abs=1e-5)
    assert out[1] == {"level": 3.0, "n": 1, "mean_human": 3.0, "ci": None}  # one item: no interval
    assert out[2]["mean_human"] == pytest.approx(2.2)


def test_confusion_refuses_sides_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        confusion([1, 2], [1], [1, 2])


def test_reviewer_offsets_bias_is_judge_minus_human() -> None:
    out = reviewer_offsets({"zoe": [(4.0, 2.0), (3.0, 3.0)], "ann": [(1.0, 3.0)], "nobody": []})
    assert out == [{"reviewer": "ann", "n": 1, "bias": -2.0, "mae": 2.0},
                   {"reviewer": "zoe", "n": 2, "bias": 1.0, "mae": 1.0}]


def test_gold_accuracy_shares_weeks_and_drift() -> None:
    monday = datetime(2026, 11, 2, 9)
    obs = [("bo", 3.0, 3.0, monday), ("bo", 5.0, 3.0, monday + timedelta(days=1)),
           ("bo", 4.0, 3.0, monday + timedelta(days=8)), ("al", 2.0, 2.0, monday)]
    al, bo = gold_accuracy(obs)
    assert al == {"reviewer": "al", "n": 1, "mae": 0.0, "exact": 1.0, "within_one": 1.0,
                  "mae_by_week": {"2026-W45": 0.0}, "drift": None}
    assert bo["n"] == 3 and bo["mae"] == pytest.approx(1.0)
    assert bo["exact"] == pytest.approx(1 / 3) and bo["within_one"] == pytest.approx(2 / 3)
    assert bo["mae_by_week"] == {"2026-W45": 1.0, "2026-W46": 1.0}
    assert bo["drift"] == 0.0
    assert gold_accuracy([]) == []
