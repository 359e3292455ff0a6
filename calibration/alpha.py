"""Krippendorff's alpha for any value domain, without a values × values matrix.

Input is units × raters with NaN for a missing rating. Only units with at least two ratings are
pairable. With ``n`` pairable values and per-unit counts ``m_u``, alpha = 1 − D_o / D_e where

- interval: within a unit, Σ_{i≠j} (x_i − x_j)² = 2·m·Σx² − 2·(Σx)², and the same identity over
  all pairable values gives the expected term — O(N);
- ordinal: Krippendorff's ordinal distance between values c ≤ k is (Σ_{g=c..k} n_g − (n_c+n_k)/2)²,
  which equals (P(k) − P(c))² with P(v) = Σ_{g<v} n_g + n_v/2, so ordinal is interval on P — O(N log N);
- nominal: pairs that differ, from per-unit value counts — O(N log N);
- ratio: ((c−k)/(c+k))², exact over value pairs (within units directly; the expected term over
  distinct values in blocks, O(V²)).

The ``krippendorff`` package builds a units × values × values array (40 s and 24 GB for 100k
distinct values here); this module matches it to 1e-9 where it runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")
Array = NDArray[np.float64]


@dataclass(frozen=True)
class Pairable:
    """The pairable values, flattened: ``values`` with the unit each belongs to."""

    values: Array
    units: NDArray[np.int64]
    #: Ratings per pairable unit (≥ 2), indexed by the compact unit index.
    m: Array

    @property
    def n(self) -> int:
        """How many pairable values."""
        return int(self.values.size)


def pairable(data: Array) -> Pairable:
    """Flatten the units × raters matrix to the values of units with two or more ratings."""
    data = np.asarray(data, dtype=np.float64)
    if data.ndim != 2:
        raise ValueError("ratings must be a units × raters matrix")
    present = ~np.isnan(data)
    counts = present.sum(axis=1)
    keep = counts >= 2
    sub = data[keep]
    mask = present[keep]
    kept = counts[keep]
    rows = np.repeat(np.arange(kept.size, dtype=np.int64), kept)  # row-major, as sub[mask] reads
    return Pairable(sub[mask], rows, kept.astype(np.float64))


def unique_codes(values: Array) -> tuple[Array, NDArray[np.int64], NDArray[np.int64]]:
    """``np.unique(values, return_inverse=True, return_counts=True)`` for values without NaN, by a
    sort and a binary search rather than an argsort of every value (several times faster; the
    same arrays)."""
    uniq = np.unique(values)
    if uniq.size and np.isnan(uniq[-1]):
        u, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
        return u, inverse.astype(np.int64), counts.astype(np.int64)
    codes = np.searchsorted(uniq, values).astype(np.int64)
    return uniq, codes, np.bincount(codes, minlength=uniq.size).astype(np.int64)


def _interval_parts(x: Array, units: NDArray[np.int64], m: Array) -> tuple[float, float]:
    """(observed, expected) disagreement sums for squared differences of ``x``."""
    s1 = np.bincount(units, weights=x, minlength=m.size)
    s2 = np.bincount(units, weights=x * x, minlength=m.size)
    observed = float(np.sum((2 * m * s2 - 2 * s1 * s1) / (m - 1)))
    n = x.size
    expected = float(2 * n * np.sum(x * x) - 2 * np.sum(x) ** 2)
    return observed, expected


def ordinal_positions(values: Array) -> Array:
    """Map each value to P(v) = Σ_{g<v} n_g + n_v/2 (ordinal distance = difference of P)."""
    uniq, inverse, counts = unique_codes(values)
    below = np.concatenate(([0.0], np.cumsum(counts)[:-1]))
    return (below + counts / 2.0)[inverse]


def _nominal_parts(p: Pairable) -> tuple[float, float]:
    _, codes, _ = unique_codes(p.values)
    width = int(codes.max()) + 1
    flat = p.units * width + codes
    if p.m.size * width <= 4 * flat.size + 1024:  # (unit, value) cells counted in place, in key order
        cells = np.bincount(flat, minlength=p.m.size * width)
        keys = np.flatnonzero(cells)
        pair_counts = cells[keys]
    else:
        keys, pair_counts = np.unique(flat, return_counts=True)
    pair_units = keys // width
    pair_counts = pair_counts.astype(np.float64)
    same = np.bincount(pair_units, weights=pair_counts * pair_counts, minlength=p.m.size)
    observed = float(np.sum((p.m * p.m - same) / (p.m - 1)))
    n_c = np.bincount(codes).astype(np.float64)
    expected = float(p.n * p.n - np.sum(n_c * n_c))
    return observed, expected


def _ratio_parts(p: Pairable, block: int = 2048) -> tuple[float, float]:
    observed = 0.0
    order = np.argsort(p.units, kind="stable")
    vals, units = p.values[order], p.units[order]
    bounds = np.concatenate(([0], np.cumsum(np.bincount(units, minlength=p.m.size))))
    for m_u in np.unique(p.m):  # units with the same count, vectorised together
        idx = np.nonzero(p.m == m_u)[0]
        k = int(m_u)
        block_vals = np.stack([vals[bounds[idx] + j] for j in range(k)], axis=1)
        a, b = block_vals[:, :, None], block_vals[:, None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            d = np.where(a + b == 0, 0.0, ((a - b) / (a + b)) ** 2)
        observed += float(d.sum() / (k - 1))
    uniq, counts = np.unique(p.values, return_counts=True)
    counts = counts.astype(np.float64)
    expected = 0.0
    for start in range(0, uniq.size, block):
        c = uniq[start:start + block, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            d = np.where(c + uniq[None, :] == 0, 0.0, ((c - uniq[None, :]) / (c + uniq[None, :])) ** 2)
        expected += float(counts[start:start + block] @ d @ counts)
    return observed, expected


def alpha_parts(data: Array, level: Level = "ordinal") -> tuple[float, float, int]:
    """(observed sum, expected sum, n): alpha = 1 − (n − 1)·observed / expected."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; use one of {', '.join(LEVELS)}")
    p = pairable(data)
    if p.n == 0:
        return 0.0, 0.0, 0
    if level == "nominal":
        o, e = _nominal_parts(p)
    elif level == "ratio":
        o, e = _ratio_parts(p)
    else:
        x = ordinal_positions(p.values) if level == "ordinal" else p.values
        o, e = _interval_parts(x, p.units, p.m)
    return o, e, p.n


def krippendorff_alpha(data: Array, level: Level = "ordinal") -> float | None:
    """Alpha for a units × raters matrix (NaN = missing); None when it is undefined (no pairable
    units, or every pairable rating the same value)."""
    observed, expected, n = alpha_parts(data, level)
    if n < 2 or expected <= 0:
        return None
    return 1.0 - (n - 1) * observed / expected


def why_undefined(data: Array) -> str:
    """A reason in words for a None alpha."""
    p = pairable(data)
    if p.n == 0:
        return "no unit has two ratings: nothing to compare"
    return "every rating is the same value: alpha is undefined when there is no variation"
