"""The human side of a judge–human pair: one score per unit from its reviewers' scores.

``mean`` and ``median`` average the reviewers' scores; ``majority`` takes the most common level
(each score first snapped to the nearest level). **Tie rule**: when two or more levels are most
common, the lowest of them wins (on a nominal dimension: the label listed first on the scale) —
the rule the item fold's consensus uses (``reviewer.domain.human.consensus``), so calibration and
export agree on an item's majority. The tied units are counted so the report can say how many
were settled by the rule rather than by a majority.

``snap`` puts any aggregate on the scale's levels (nearest; halfway goes to the lower level), so
``exact``, ``within_one`` and the kappas all read the same human score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
Aggregate = Literal["mean", "median", "majority"]
AGGREGATES: tuple[Aggregate, ...] = ("mean", "median", "majority")


def level_index(x: Array, levels: Sequence[float] | Array) -> NDArray[np.int64]:
    """Index of the nearest level for each value (halfway goes to the lower level); NaN → -1."""
    lv = np.asarray(levels, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    out = np.full(x.shape, -1, dtype=np.int64)
    ok = ~np.isnan(x)
    if ok.any():
        v = x[ok]
        right = np.clip(np.searchsorted(lv, v, side="left"), 1, max(lv.size - 1, 1))
        left = right - 1
        if lv.size == 1:
            out[ok] = 0
        else:
            out[ok] = np.where(np.abs(v - lv[left]) <= np.abs(lv[right] - v), left, right)
    return out


def snap(x: Array, levels: Sequence[float]) -> Array:
    """Each value moved to the nearest level (NaN stays NaN)."""
    idx = level_index(x, levels)
    lv = np.asarray(levels, dtype=np.float64)
    return np.where(idx >= 0, lv[np.clip(idx, 0, None)], np.nan)


def aggregate(humans: Array, how: Aggregate, levels: Sequence[float]) -> tuple[Array, NDArray[np.bool_]]:
    """(one score per unit, which units had a tied majority) from units × reviewers (NaN where
    a reviewer did not score; a unit nobody scored gives NaN)."""
    h = np.asarray(humans, dtype=np.float64)
    if h.ndim == 1:
        h = h[:, None]
    n = h.shape[0]
    ties = np.zeros(n, dtype=bool)
    scored = (~np.isnan(h)).any(axis=1)
    out = np.full(n, np.nan)
    if not scored.any():
        return out, ties
    sub = h[scored]
    if how == "mean":
        out[scored] = np.nanmean(sub, axis=1)
        return out, ties
    if how == "median":
        out[scored] = np.nanmedian(sub, axis=1)
        return out, ties
    lv = np.asarray(levels, dtype=np.float64)
    idx = level_index(sub, lv)
    rows = np.broadcast_to(np.arange(sub.shape[0])[:, None], idx.shape)
    counts = np.zeros((sub.shape[0], lv.size), dtype=np.int64)
    np.add.at(counts, (rows[idx >= 0], idx[idx >= 0]), 1)
    top = counts.max(axis=1, keepdims=True)
    tied = counts == top
    out[scored] = lv[tied.argmax(axis=1)]  # the first (lowest) of the most common levels
    ties[scored] = tied.sum(axis=1) > 1
    return out, ties
