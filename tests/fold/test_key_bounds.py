"""The columnar fold numbers (item, dimension, name) in one int64 key: counts whose product does
not fit are refused in one line, never wrapped onto another key."""

from __future__ import annotations

import pytest

from reviewer.domain.columns import _fits_a_key
from reviewer.errors import UserError


@pytest.mark.parametrize("sizes", [(1 << 40, 10, 1 << 23), (1 << 31, 10, 1 << 29), (1 << 62, 2, 1)])
def test_counts_past_an_int64_key_are_refused(sizes: tuple[int, int, int]) -> None:
    with pytest.raises(UserError, match="more than one calibration can number"):
        _fits_a_key(*sizes)


@pytest.mark.parametrize("sizes", [(10_000_000, 10, 4100), ((1 << 62) - 1, 1, 1), (0, 0, 0), (5, 10, 4096)])
def test_counts_that_fit_pass(sizes: tuple[int, int, int]) -> None:
    _fits_a_key(*sizes)
