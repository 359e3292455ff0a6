"""Correlations of two score columns: Pearson's r, Spearman's rho and Kendall's tau-b, with numpy
alone.

``scipy.stats`` gives the same figures, but importing it takes about a second of CPU (and a
sixth of a second more when the process ends) — longer than computing every correlation of a
million-rating report. The results agree with scipy's to 1e-12 (``tests/calibration/test_ranks.py``
checks them on ties, long runs of equal scores and continuous data):

- **ranks** are average ranks (ties share the mean of the positions they span), as
  ``scipy.stats.rankdata``'s default;
- **Spearman** is Pearson's r of the two columns' average ranks;
- **Kendall's tau-b** is (concordant − discordant) / √((n0 − n1)(n0 − n2)), n0 = n(n−1)/2 and
  n1, n2 the pairs tied on either side. Every count is an exact integer: from the contingency
  table of the two columns' distinct values when it is small (rating scales: a few levels, or
  the means of a few raters), otherwise by counting inversions with a bottom-up merge (the
  table would be too large when both columns are continuous).

Each function takes two equal-length float arrays of at least two values and returns None when
the figure is undefined (either side constant).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from calibration.alpha import unique_codes

Array = NDArray[np.float64]
Codes = NDArray[np.int64]

#: Largest (distinct x) × (distinct y) table Kendall's tau is counted in; beyond it, the merge.
TABLE_CELLS = 1 << 22


def average_ranks(x: Array) -> Array:
    """1-based ranks of ``x``; tied values get the mean of the ranks they span."""
    order = np.argsort(x, kind="mergesort")
    ordered = x[order]
    starts = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    run = np.cumsum(starts) - 1  # which run of equal values each sorted position is in
    edges = np.append(np.flatnonzero(starts), x.size)  # first position of each run, then n
    mean_rank = 0.5 * (edges[:-1] + edges[1:] + 1)  # mean of the 1-based ranks first+1 … last+1
    out = np.empty(x.size, dtype=np.float64)
    out[order] = mean_rank[run]
    return out


def pearson(x: Array, y: Array) -> float | None:
    """Pearson's r; None when either side is constant."""
    xm, ym = x - x.mean(), y - y.mean()
    top_x, top_y = float(np.abs(xm).max()), float(np.abs(ym).max())
    if top_x == 0.0 or top_y == 0.0:
        return None
    xm, ym = xm / top_x, ym / top_y  # scaled first, so squares of huge values cannot overflow
    # sums of products, not ``@``: a BLAS dot product may wake its threads for one short vector
    sx, sy = math.sqrt(float((xm * xm).sum())), math.sqrt(float((ym * ym).sum()))
    return max(-1.0, min(1.0, float(((xm / sx) * (ym / sy)).sum())))


def spearman(x: Array, y: Array) -> float | None:
    """Spearman's rho: Pearson's r of the average ranks."""
    return pearson(average_ranks(x), average_ranks(y))


def _tied_pairs(counts: Codes) -> int:
    return int((counts * (counts - 1) // 2).sum())


def _discordant_from_table(t: Codes) -> int:
    """Pairs of cells (a, b), (a', b') with a < a' and b > b', weighted by their counts."""
    rows_before = np.cumsum(t, axis=0) - t  # per cell: counts in the rows above, same column
    later_cols = np.cumsum(rows_before[:, ::-1], axis=1)[:, ::-1] - rows_before  # … and columns right of it
    return int((t * later_cols).sum())


def inversions(y: Codes) -> int:
    """Pairs i < j with y[i] > y[j] (``y``: codes 0 … k−1): merge sort, one level at a time for
    every pair of neighbouring blocks at once."""
    n = y.size
    a = y.astype(np.int64)
    k = int(a.max()) + 1 if n else 1
    pos = np.arange(n, dtype=np.int64)
    total = 0
    width = 1
    while width < n:
        pair = (pos // width) >> 1  # the two neighbouring blocks of ``width`` merged next
        right = ((pos // width) & 1).astype(bool)
        keyed = pair * k + a  # each block is sorted, so the left blocks' keys are sorted overall
        left = keyed[~right]
        mine = keyed[right]
        end = np.searchsorted(left, (pair[right] + 1) * k, side="left")
        total += int((end - np.searchsorted(left, mine, side="right")).sum())
        a = np.sort(keyed) - pair * k  # merged: each pair of blocks keeps its positions
        width *= 2
    return total


def kendall_tau_b(x: Array, y: Array, table_cells: int = TABLE_CELLS) -> float | None:
    """Kendall's tau-b; None when either side is constant."""
    n = x.size
    x_values, cx, x_counts = unique_codes(x)
    y_values, cy, y_counts = unique_codes(y)
    kx, ky = x_values.size, y_values.size
    if kx < 2 or ky < 2:
        return None
    total = n * (n - 1) // 2
    x_ties, y_ties = _tied_pairs(x_counts), _tied_pairs(y_counts)
    if kx * ky <= table_cells:
        t = np.bincount(cx * ky + cy, minlength=kx * ky).reshape(kx, ky).astype(np.int64)
        both_ties = _tied_pairs(t.reshape(-1))
        discordant = _discordant_from_table(t)
    else:
        _, joint = np.unique(cx * ky + cy, return_counts=True)
        both_ties = _tied_pairs(joint.astype(np.int64))
        discordant = inversions(cy[np.lexsort((cy, cx))])
    con_minus_dis = total - x_ties - y_ties + both_ties - 2 * discordant
    tau = con_minus_dis / math.sqrt(total - x_ties) / math.sqrt(total - y_ties)
    return max(-1.0, min(1.0, tau))
