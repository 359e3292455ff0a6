"""``rubricate align``'s statistics: the seeded stratified split and the paired bootstrap of the
difference in alpha, against a computation by hand (the krippendorff package on every resample)."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from calibration import bootstrap as bs
from calibration.align import alpha_difference, split, verdict
from calibration.alpha import Level


def test_the_same_seed_gives_the_same_split_in_any_order_and_another_seed_another() -> None:
    keys = list(range(100, 160))
    levels = [1.0 + (k % 5) for k in keys]
    dev, test = split(keys, levels, 0.3, seed=7)
    again = split(list(reversed(keys)), list(reversed(levels)), 0.3, seed=7)
    assert (dev, test) == again
    assert split(keys, levels, 0.3, seed=8) != (dev, test)
    assert sorted(dev + test) == keys and not set(dev) & set(test)
    assert len(test) == 18


def test_each_level_keeps_its_share_in_test() -> None:
    keys = list(range(50))
    levels = [1.0] * 40 + [5.0] * 10
    dev, test = split(keys, levels, 0.3, seed=1)
    by = {k: lv for k, lv in zip(keys, levels, strict=True)}
    assert sum(by[k] == 1.0 for k in test) == 12 and sum(by[k] == 5.0 for k in test) == 3
    assert len(dev) == 35


@pytest.mark.parametrize("share", [0.0, 1.0, 1.5])
def test_a_share_outside_zero_and_one_is_refused(share: float) -> None:
    with pytest.raises(ValueError, match="not between 0 and 1"):
        split([1, 2, 3], [1, 2, 3], share, 0)


def test_too_few_items_for_both_sides_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot make both"):
        split([1], [3.0], 0.3, 0)


# (ordinal is left out: its bootstrap keeps the full sample's ordinal metric, as every interval of
# the report does, where the package would recompute it on each resample)
@pytest.mark.parametrize("level", ["interval", "nominal"])
def test_paired_difference_matches_alpha_by_hand_on_every_resample(level: Level) -> None:
    rng = np.random.default_rng(5)
    people = rng.integers(1, 6, 40).astype(float)
    before = np.clip(people + rng.integers(-2, 3, 40), 1, 5).astype(float)
    after = np.clip(people + rng.integers(-1, 2, 40), 1, 5).astype(float)
    point, ci = alpha_difference(before, after, people, level, draws=200, seed=3)
    by_hand = []
    units = np.arange(40)
    for chunk in bs.Draws(40, 200, 3).chunks():
        for w in chunk:
            rows = np.repeat(units, w.astype(np.int64))
            a = krippendorff.alpha(np.vstack([before[rows], people[rows]]), level_of_measurement=level)
            b = krippendorff.alpha(np.vstack([after[rows], people[rows]]), level_of_measurement=level)
            by_hand.append(b - a)
    assert ci is not None
    assert ci[0] == pytest.approx(np.percentile(by_hand, 2.5), abs=1e-9)
    assert ci[1] == pytest.approx(np.percentile(by_hand, 97.5), abs=1e-9)
    whole = (krippendorff.alpha(np.vstack([after, people]), level_of_measurement=level)
             - krippendorff.alpha(np.vstack([before, people]), level_of_measurement=level))
    assert point == pytest.approx(whole, abs=1e-9)


def test_the_same_judge_twice_differs_by_exactly_nothing() -> None:
    people = np.array([1, 2, 3, 4, 5, 1, 2, 3, 4, 5], dtype=float)
    judge = np.array([1, 2, 2, 4, 4, 2, 2, 3, 5, 5], dtype=float)
    point, ci = alpha_difference(judge, judge, people, "interval", 100, 0)
    assert point == 0.0 and ci == (0.0, 0.0)
    assert verdict(ci) == "no better"


def test_the_difference_is_said_in_words() -> None:
    assert verdict((0.01, 0.3)) == "better"
    assert verdict((-0.3, -0.01)) == "worse"
    assert verdict((-0.1, 0.2)) == "no better"
    assert verdict(None) == "no better"


def test_items_either_judge_missed_are_left_out() -> None:
    people = np.array([1, 2, 3, 4, 5, 1, 2, 3], dtype=float)
    before = np.array([1, 2, 3, 4, 5, 1, 2, np.nan])
    after = np.array([np.nan, 2, 3, 4, 5, 1, 2, 3], dtype=float)
    point, _ = alpha_difference(before, after, people, "interval", 0, 0)
    assert point == 0.0  # both agree perfectly on the six items both scored
