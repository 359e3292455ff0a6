"""Our alpha against the krippendorff package on random data, and on domains it cannot do."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from calibration.alpha import Level, krippendorff_alpha, why_undefined


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_matches_package_to_1e9(level: Level) -> None:
    rng = np.random.default_rng(11)
    compared = 0
    for _ in range(60):
        units, raters = int(rng.integers(3, 50)), int(rng.integers(2, 6))
        x = rng.integers(1, 9, size=(units, raters)).astype(float)
        x[rng.random((units, raters)) < 0.3] = np.nan
        try:
            expected = krippendorff.alpha(x.T, level_of_measurement=level)
        except ValueError:
            continue
        ours = krippendorff_alpha(x, level)
        if np.isnan(expected):
            assert ours is None
            continue
        assert ours == pytest.approx(expected, abs=1e-9)
        compared += 1
    assert compared > 40


def test_continuous_values_match_the_package_on_interval() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(5, 2, size=(80, 3))
    x[rng.random(x.shape) < 0.2] = np.nan
    assert krippendorff_alpha(x, "interval") == pytest.approx(
        krippendorff.alpha(x.T, level_of_measurement="interval"), abs=1e-9)


def test_identical_ratings_are_undefined_not_a_number() -> None:
    x = np.full((10, 3), 4.0)
    assert krippendorff_alpha(x, "ordinal") is None
    assert "same value" in why_undefined(x)


def test_fewer_than_two_raters_per_unit_is_undefined() -> None:
    x = np.array([[1.0, np.nan], [np.nan, 2.0]])
    assert krippendorff_alpha(x, "interval") is None
    assert "no unit has two ratings" in why_undefined(x)


def test_a_million_ratings_with_a_hundred_thousand_values() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 100_000, size=(200_000, 5)).astype(float)
    value = krippendorff_alpha(x, "ordinal")
    assert value is not None and abs(value) < 0.01  # random ratings: no agreement
