"""Two-rater agreement: Cohen's kappa (weighted), Gwet's AC1/AC2, correlations, rates, bias.

Functions take plain arrays and return floats, or None when the figure is undefined (a constant
side, no pairs) — never a number that was not computed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from calibration.groups import Grouped, group_codes
from calibration.ranks import kendall_tau_b, pearson, spearman

Array = NDArray[np.float64]
Weighting = Literal["unweighted", "linear", "quadratic"]


def weights(q: int, kind: Weighting, levels: Sequence[float] | None = None) -> Array:
    """Agreement weights between q ordered categories (1 on the diagonal): by how far apart the
    categories' values lie (``levels``, as declared: ``[1, 2, 5]`` puts 2 nearer 1 than 5), else
    by position. This is irrCAC's definition; scikit-learn weights by position only, which is the
    same for evenly spaced levels."""
    if levels is not None and len(levels) != q:
        raise ValueError(f"{len(levels)} levels for a {q} × {q} table")
    idx = np.asarray(levels if levels is not None else range(q), dtype=np.float64)
    span = idx.max() - idx.min() if q > 1 else 1.0
    diff = np.abs(idx[:, None] - idx[None, :]) / (span or 1.0)
    if kind == "unweighted":
        return np.eye(q)
    if kind == "linear":
        return 1.0 - diff
    return 1.0 - diff**2


def kappa_from_table(table: Array, kind: Weighting = "unweighted",
                     levels: Sequence[float] | None = None) -> float | None:
    """Cohen's kappa from a rater-1 × rater-2 contingency table over ``levels`` (see :func:`weights`)."""
    t = np.asarray(table, dtype=np.float64)
    n = t.sum()
    if n == 0:
        return None
    p = t / n
    w = weights(t.shape[0], kind, levels)
    po = float((w * p).sum())
    pe = float((w * np.outer(p.sum(axis=1), p.sum(axis=0))).sum())
    return None if math.isclose(pe, 1.0) else (po - pe) / (1.0 - pe)


def gwet_from_table(table: Array, kind: Weighting = "unweighted",
                    levels: Sequence[float] | None = None) -> float | None:
    """Gwet's AC1 (unweighted) or AC2 (weighted) from a contingency table over ``levels``."""
    t = np.asarray(table, dtype=np.float64)
    n, q = t.sum(), t.shape[0]
    if n == 0 or q < 2:
        return None
    p = t / n
    w = weights(q, kind, levels)
    po = float((w * p).sum())
    pi = (p.sum(axis=1) + p.sum(axis=0)) / 2.0
    pe = float(w.sum() / (q * (q - 1)) * np.sum(pi * (1 - pi)))
    return None if math.isclose(pe, 1.0) else (po - pe) / (1.0 - pe)


def nearest_levels(a: Array, levels: Sequence[float]) -> NDArray[np.intp]:
    """Each score's index among the (ordered) ``levels``: its nearest level, the lower on a tie."""
    lv = np.asarray(levels, dtype=np.float64)
    at: NDArray[np.intp] = np.abs(np.asarray(a, dtype=np.float64)[:, None] - lv[None, :]).argmin(axis=1)
    return at


def table(a: Array, b: Array, levels: Sequence[float]) -> Array:
    """Contingency table of two raters over the given (ordered) levels."""
    ia, ib = nearest_levels(a, levels), nearest_levels(b, levels)
    out = np.zeros((len(levels), len(levels)))
    np.add.at(out, (ia, ib), 1.0)
    return out


def cohen_kappa(a: Array, b: Array, levels: Sequence[float], kind: Weighting = "unweighted") -> float | None:
    """Cohen's kappa of two raters' scores (rounded to the nearest level)."""
    if len(a) == 0:
        return None
    return kappa_from_table(table(np.asarray(a, float), np.asarray(b, float), levels), kind, levels)


_CORRELATIONS = {"pearson": pearson, "spearman": spearman, "kendall": kendall_tau_b}


def correlation(a: Array, b: Array, method: Literal["pearson", "spearman", "kendall"]) -> float | None:
    """Pearson, Spearman or Kendall's tau-b; None when either side is constant or n < 3."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.size < 3 or np.all(a == a[0]) or np.all(b == b[0]):
        return None
    return _CORRELATIONS[method](a, b)


def grouped_correlation(a: Array, b: Array, groups: Sequence[object] | Grouped,
                        method: Literal["pearson", "spearman", "kendall"]) -> tuple[float | None, int]:
    """Correlation inside each group, averaged over the groups where neither side is constant;
    returns (mean, groups kept) — summarisation meta-evaluation reports it this way. ``groups``
    is each item's key, or the items already grouped (:class:`calibration.groups.Grouped`, made
    once for several figures)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    grouped = groups if isinstance(groups, Grouped) else Grouped.of(group_codes(groups))
    usable = (grouped.sizes >= 2) & ~grouped.constant(a) & ~grouped.constant(b)
    values = []
    for g in np.flatnonzero(usable):
        sel = grouped.order[grouped.starts[g]:grouped.starts[g + 1]]
        r = _CORRELATIONS[method](a[sel], b[sel])
        if r is not None:
            values.append(r)
    return (float(np.mean(values)) if values else None), len(values)


def rates(judge: Array, human: Array) -> dict[str, float | None]:
    """Exact and within-one agreement, mean bias (judge − human), MAE and RMSE."""
    j, h = np.asarray(judge, float), np.asarray(human, float)
    if j.size == 0:
        return {k: None for k in ("exact", "within_one", "bias", "mae", "rmse")}
    d = j - h
    return {"exact": float(np.mean(np.isclose(d, 0))), "within_one": float(np.mean(np.abs(d) <= 1 + 1e-9)),
            "bias": float(d.mean()), "mae": float(np.abs(d).mean()), "rmse": float(np.sqrt((d**2).mean()))}


def pass_agreement(judge_pass: NDArray[np.bool_], human_pass: NDArray[np.bool_]) -> dict[str, float | None]:
    """Agreement on pass/fail at the threshold, its kappa, and the judge's precision/recall/F1
    of "pass" against the humans'."""
    jp, hp = np.asarray(judge_pass, bool), np.asarray(human_pass, bool)
    if jp.size == 0:
        return {k: None for k in ("pass_agreement", "pass_kappa", "precision", "recall", "f1")}
    t = np.array([[np.sum(jp & hp), np.sum(jp & ~hp)], [np.sum(~jp & hp), np.sum(~jp & ~hp)]], float)
    tp, fp, fn = t[0, 0], t[0, 1], t[1, 0]
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = (2 * precision * recall / (precision + recall)) if precision and recall else None
    return {"pass_agreement": float(np.mean(jp == hp)), "pass_kappa": kappa_from_table(t),
            "precision": precision, "recall": recall, "f1": f1}
