"""The bootstrap's weights: how often each unit was drawn, counted exactly (as floats, no narrower
type to wrap), from units drawn on a thread of their own one chunk ahead of the reader."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from calibration.bootstrap import Draws


def _drawers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "bootstrap-draws"]


def test_the_draws_are_the_seeded_resamples() -> None:
    weights = np.concatenate(list(Draws(400, 120, seed=5).chunks()))
    assert weights.shape == (120, 400) and (weights.sum(axis=1) == 400).all()


def test_the_units_are_drawn_ahead_on_their_own_thread_which_ends_when_the_reader_leaves() -> None:
    draws = Draws(200_000, 200, seed=1)  # 40 rows a chunk: five chunks
    chunks = draws.chunks()
    first = next(chunks)
    assert first.shape == (draws.rows, 200_000) and first.dtype == np.float64
    assert len(_drawers()) == 1  # the next chunk's units are being drawn meanwhile
    chunks.close()  # the reader leaves early (an interval that needs no more draws)
    assert _drawers() == []


def test_a_failure_while_drawing_is_the_readers_and_leaves_no_thread() -> None:
    with pytest.raises(ValueError):
        list(Draws(-1, 3, seed=0).chunks())  # no units to draw from
    assert _drawers() == []
