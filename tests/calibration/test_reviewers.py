"""Per-reviewer figures, z-normalisation, adjudication, anchoring and judge spread, by hand."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from calibration.alpha import Level
from calibration.reviewers import adjudicated, anchoring, judge_spread, per_reviewer, z_normalise

nan = np.nan


def test_each_reviewer_against_the_others() -> None:
    humans = np.array([[3, 4, 4], [2, 2, nan], [5, nan, 4], [1, 2, 2], [nan, nan, 3]], dtype=float)
    rows = {r["reviewer"]: r for r in per_reviewer(humans, ["a", "b", "c"], "interval")}
    # a against the mean of the others on units 0-3: 3-4, 2-2, 5-4, 1-2
    assert rows["a"]["n"] == 4
    assert rows["a"]["bias"] == pytest.approx((-1 + 0 + 1 - 1) / 4)
    assert rows["a"]["mae"] == pytest.approx(3 / 4)
    # pairwise alpha with b (units 0,1,3) and c (units 0,2,3), weighted by shared units
    ab = krippendorff.alpha(reliability_data=np.array([[3, 2, 1], [4, 2, 2]], dtype=float), level_of_measurement="interval")
    ac = krippendorff.alpha(reliability_data=np.array([[3, 5, 1], [4, 4, 2]], dtype=float), level_of_measurement="interval")
    assert rows["a"]["alpha_with_others"] == pytest.approx((ab * 3 + ac * 3) / 6, abs=1e-9)
    alone = per_reviewer(np.array([[1.0], [2.0]]), ["solo"])
    assert alone == [{"reviewer": "solo", "n": 0, "bias": None, "mae": None, "alpha_with_others": None}]


def test_z_normalisation_removes_a_reviewers_lean() -> None:
    base = np.array([1, 2, 3, 4, 5], dtype=float)
    humans = np.column_stack([base, base + 2, np.full(5, 3.0)])  # b leans +2; c never varies
    out, left = z_normalise(humans)
    assert np.allclose(out[:, 0], out[:, 1])  # the lean is gone
    assert left == [2] and np.array_equal(out[:, 2], humans[:, 2])  # no spread: left as it was
    pooled = humans[~np.isnan(humans)]
    assert out[:, :2].mean() == pytest.approx(pooled.mean())  # back on the pooled scale


def test_adjudication_three_ways() -> None:
    judge = np.array([5, 2, 4, 3], dtype=float)
    settled = np.array([3, 2, nan, 3], dtype=float)
    humans = np.array([[2, 4], [2, 2], [4, 4], [3, nan]], dtype=float)
    f = adjudicated(judge, settled, humans)
    assert f["n"] == 3 and f["judge_exact"] == pytest.approx(2 / 3)
    assert f["judge_mae"] == pytest.approx(2 / 3)
    assert f["human_mae"] == pytest.approx((1 + 1 + 0 + 0 + 0) / 5)
    assert f["judge_vs_humans_mae"] == pytest.approx((3 + 1 + 0 + 0 + 0) / 5)
    assert adjudicated(judge, np.full(4, nan), humans)["judge_mae"] is None


def test_anchoring_measures_the_pull_of_the_judge() -> None:
    blind = np.array([2, 5, 3, 4], dtype=float)
    revised = np.array([3, 5, 2, 4], dtype=float)
    judge = np.array([4, 5, 4, 4], dtype=float)
    f = anchoring(blind, revised, judge)
    # 2→3 toward 4 (closes 1 of 2); 5→5 at the judge; 3→2 away (closes -1 of 1); 4→4 at the judge
    assert f["n"] == 4 and f["moved_toward"] == 0.25 and f["moved_away"] == 0.25
    assert f["gap_closed"] == pytest.approx((0.5 - 1.0) / 2)
    assert anchoring(np.array([nan]), np.array([1.0]), np.array([1.0]))["n"] == 0


def test_judge_spread() -> None:
    f = judge_spread(np.array([0.5, nan, 1.5]), np.array([[3, 5], [4, nan], [2, 2]], dtype=float))
    assert f["sample_std"] == 1.0 and f["n_sampled"] == 2
    assert f["model_std"] == pytest.approx((1.0 + 0.0) / 2) and f["n_multi_model"] == 2
    assert judge_spread(np.array([nan]), np.zeros((1, 0)))["model_std"] is None


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_pairwise_alpha_from_coincidence_tables_equals_alpha_pair_by_pair(level: Level) -> None:
    from calibration.alpha import krippendorff_alpha
    from calibration.reviewers import pairwise_alpha

    rng = np.random.default_rng(5)
    humans = rng.integers(1, 6, (80, 5)).astype(float)
    humans[rng.random((80, 5)) < 0.4] = nan
    fast, shared = pairwise_alpha(humans, level)
    slow, _ = pairwise_alpha(humans, level, max_values=0)  # pair by pair
    for r in range(5):
        for o in range(5):
            both = ~np.isnan(humans[:, r]) & ~np.isnan(humans[:, o])
            assert shared[r, o] == both.sum()
            if r == o:
                continue
            want = krippendorff_alpha(np.column_stack([humans[both, r], humans[both, o]]), level)
            assert fast[r, o] == pytest.approx(want, abs=1e-9) and slow[r, o] == pytest.approx(want, abs=1e-9)
