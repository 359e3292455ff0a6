"""The bootstrap keeps how often each unit was drawn in one byte per count: a count past 255 (all
but impossible in n draws of n units, but not impossible) widens the chunk instead of wrapping."""

from __future__ import annotations

import numpy as np

from calibration.bootstrap import Draws, put_counts


def test_a_count_past_a_byte_widens_the_chunk() -> None:
    chunk = np.zeros((2, 300), dtype=np.uint8)
    counts = np.zeros(300, dtype=np.intp)
    counts[7], counts[8] = 256, 44  # 300 draws of 300 units: unit 7 drawn 256 times
    chunk = put_counts(chunk, 1, counts)
    assert chunk[1, 7] == 256 and chunk[1, 8] == 44 and chunk.dtype.itemsize >= 2
    small = np.ones(300, dtype=np.intp)
    assert put_counts(np.zeros((1, 300), dtype=np.uint8), 0, small).dtype == np.uint8  # no wider than needed


def test_the_draws_are_the_seeded_resamples() -> None:
    weights = np.concatenate(list(Draws(400, 120, seed=5).chunks()))
    assert weights.shape == (120, 400) and (weights.sum(axis=1) == 400).all()
