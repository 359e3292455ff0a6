"""Per-dimension judge–human figures, the trust status, and the reason for it in words.

Input per dimension: the judge's score per unit and a units × reviewers matrix of human scores
(NaN where a reviewer did not score). The judge counts as one more coder for alpha; the humans
alone give the ceiling a judge can be held to. Every figure that cannot be computed is None, and
``null_reasons`` says why.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from calibration import agreement as ag
from calibration.alpha import Level, krippendorff_alpha, ordinal_positions, why_undefined

Array = NDArray[np.float64]
Status = Literal["trusted", "tentative", "low_confidence", "insufficient_data"]


@dataclass(frozen=True)
class TrustBounds:
    """When a dimension may run unattended (defaults after Krippendorff)."""

    trusted: float = 0.800
    tentative: float = 0.667
    min_n: int = 30
    #: The alpha interval width a lead wants; "how many more" aims for it.
    target_width: float = 0.1


@dataclass
class DimensionInput:
    """What one dimension's figures are computed from."""

    dimension: str
    judge: Array
    humans: Array
    levels: Sequence[float]
    threshold_raw: float
    level: Level = "ordinal"
    #: False when the judge scores on another scale than the humans: no alpha or kappa then.
    comparable: bool = True
    groups: Sequence[object] | None = None
    human_aggregate: Literal["mean", "median"] = "mean"


@dataclass
class DimensionReport:
    """The figures of one dimension (keys of DESIGN.md's calibration JSON, plus more)."""

    figures: dict[str, Any] = field(default_factory=dict)
    null_reasons: dict[str, str] = field(default_factory=dict)


def _bootstrap_alpha(judge: Array, humans: Array, level: Level, draws: int, seed: int) -> tuple[float, float] | None:
    """Percentile interval of alpha over units resampled with replacement (ordinal positions
    and nominal categories are taken from the full sample)."""
    data = np.column_stack([judge, humans])
    keep = (~np.isnan(data)).sum(axis=1) >= 2
    data = data[keep]
    if data.shape[0] < 3:
        return None
    mask = ~np.isnan(data)
    x = np.where(mask, data, 0.0)
    if level == "ordinal":
        x[mask] = ordinal_positions(data[mask])
    elif level in ("nominal", "ratio"):
        rng = np.random.default_rng(seed)
        found: list[float] = []
        for _ in range(min(draws, 200)):
            a = krippendorff_alpha(data[rng.integers(0, data.shape[0], data.shape[0])], level)
            if a is not None:
                found.append(a)
        return (float(np.percentile(found, 2.5)), float(np.percentile(found, 97.5))) if found else None
    m = mask.sum(axis=1).astype(np.float64)
    s1, s2 = x.sum(axis=1), (x * x).sum(axis=1)
    d = (2 * m * s2 - 2 * s1 * s1) / (m - 1)
    rng = np.random.default_rng(seed)
    out = []
    units = data.shape[0]
    for start in range(0, draws, 100):
        idx = rng.integers(0, units, size=(min(100, draws - start), units))
        n, t1, t2, o = m[idx].sum(1), s1[idx].sum(1), s2[idx].sum(1), d[idx].sum(1)
        e = 2 * n * t2 - 2 * t1 * t1
        with np.errstate(divide="ignore", invalid="ignore"):
            out.append(np.where(e > 0, 1 - (n - 1) * o / e, np.nan))
    vals = np.concatenate(out)
    vals = vals[~np.isnan(vals)]
    return (float(np.percentile(vals, 2.5)), float(np.percentile(vals, 97.5))) if vals.size else None


def _bootstrap_r(a: Array, b: Array, draws: int, seed: int) -> tuple[float, float] | None:
    """Percentile interval of Pearson's r over resampled pairs (on ranks for Spearman)."""
    if a.size < 3:
        return None
    rng = np.random.default_rng(seed)
    rs = []
    for start in range(0, draws, 100):
        idx = rng.integers(0, a.size, size=(min(100, draws - start), a.size))
        x, y = a[idx], b[idx]
        xm, ym = x - x.mean(1, keepdims=True), y - y.mean(1, keepdims=True)
        den = np.sqrt((xm * xm).sum(1) * (ym * ym).sum(1))
        with np.errstate(divide="ignore", invalid="ignore"):
            rs.append(np.where(den > 0, (xm * ym).sum(1) / den, np.nan))
    vals = np.concatenate(rs)
    vals = vals[~np.isnan(vals)]
    return (float(np.percentile(vals, 2.5)), float(np.percentile(vals, 97.5))) if vals.size else None


def dimension_report(inp: DimensionInput, bounds: TrustBounds = TrustBounds(),
                     draws: int = 1000, seed: int = 0) -> DimensionReport:
    """Every figure for one dimension, its status and the reason."""
    rep = DimensionReport()
    f, why = rep.figures, rep.null_reasons
    judge, humans = np.asarray(inp.judge, float), np.asarray(inp.humans, float)
    if humans.ndim == 1:
        humans = humans[:, None]
    has_h = (~np.isnan(humans)).sum(axis=1) > 0 if humans.size else np.zeros(judge.size, bool)
    paired = ~np.isnan(judge) & has_h
    n = int(paired.sum())
    f.update(dimension=inp.dimension, n=n, n_groups=None, level=inp.level)
    j = judge[paired]
    hsub = humans[paired]
    agg = np.nanmedian if inp.human_aggregate == "median" else np.nanmean
    h = agg(hsub, axis=1) if n else np.array([])
    # humans among themselves: the ceiling for the judge
    f["alpha_humans"] = krippendorff_alpha(humans, inp.level) if humans.shape[1] >= 2 else None
    if f["alpha_humans"] is None:
        why["alpha_humans"] = ("fewer than two reviewers" if humans.shape[1] < 2
                               else why_undefined(humans))
    if n == 0:
        for k in ("alpha", "alpha_ci", "pearson", "spearman", "kendall", "kappa_linear", "kappa_quadratic",
                  "exact", "within_one", "bias", "mae", "rmse", "pass_agreement"):
            f[k] = None
            why[k] = "no item has both a judge score and a human score"
        f["status"], f["reason"] = "insufficient_data", "no paired items yet: score some items to calibrate"
        return rep
    if inp.comparable:
        f["alpha"] = krippendorff_alpha(np.column_stack([j, hsub]), inp.level)
        if f["alpha"] is None:
            why["alpha"] = why_undefined(np.column_stack([j, hsub]))
        f["alpha_ci"] = list(ci) if f["alpha"] is not None and (ci := _bootstrap_alpha(j, hsub, inp.level, draws, seed)) else None
        f["kappa_linear"] = ag.cohen_kappa(j, h, inp.levels, "linear")
        f["kappa_quadratic"] = ag.cohen_kappa(j, h, inp.levels, "quadratic")
        t = ag.table(j, h, inp.levels)
        f["gwet_ac1"] = ag.gwet_from_table(t, "unweighted")
        f["gwet_ac2"] = ag.gwet_from_table(t, "quadratic")
        f.update(ag.rates(j, h))
        jp, hp = j >= inp.threshold_raw - 1e-9, h >= inp.threshold_raw - 1e-9
        f.update(ag.pass_agreement(jp, hp))
    else:
        for k in ("alpha", "alpha_ci", "kappa_linear", "kappa_quadratic", "gwet_ac1", "gwet_ac2", "exact", "within_one",
                  "bias", "mae", "rmse", "pass_agreement"):
            f[k] = None
            why[k] = "the judge scores on another scale than the humans: only correlations mean something"
    methods: tuple[Literal["pearson", "spearman", "kendall"], ...] = ("pearson", "spearman", "kendall")
    for method in methods:
        if inp.groups is not None:
            g = [x for x, keep in zip(inp.groups, paired, strict=True) if keep]
            f[method], f["n_groups"] = ag.grouped_correlation(j, h, g, method)
        else:
            f[method] = ag.correlation(j, h, method)
        if f[method] is None:
            why[method] = "one side is constant (or fewer than 3 pairs)"
    if inp.groups is None:
        f["pearson_ci"] = list(ci) if (ci := _bootstrap_r(j, h, draws, seed)) else None
        rj, rh = _ranks(j), _ranks(h)
        f["spearman_ci"] = list(ci) if (ci := _bootstrap_r(rj, rh, draws, seed + 1)) else None
    f["more_items_needed"] = _more_needed(f.get("alpha_ci"), n, bounds.target_width)
    f["status"], f["reason"] = _status(f, bounds)
    return rep


def _ranks(x: Array) -> Array:
    from scipy.stats import rankdata

    return np.asarray(rankdata(x), dtype=np.float64)


def _more_needed(ci: list[float] | None, n: int, width: float) -> int | None:
    """Roughly how many more paired items bring the interval under ``width`` (width ∝ 1/√n)."""
    if not ci or n == 0:
        return None
    w = ci[1] - ci[0]
    if w <= width:
        return 0
    return int(math.ceil(n * (w / width) ** 2)) - n


def _status(f: dict[str, Any], b: TrustBounds) -> tuple[Status, str]:
    n, a, ci, ah = f["n"], f.get("alpha"), f.get("alpha_ci"), f.get("alpha_humans")
    if a is None:
        return "insufficient_data", f"alpha cannot be computed on {n} items"
    where = f"alpha {a:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "") + f" on {n} items"
    if ah is None:
        humans = "no two reviewers overlap to compare"
    elif ah - a >= 0.1:
        humans = f"humans agree at {ah:.2f}: the judge is the problem"
    elif ah < b.tentative:
        humans = f"humans agree only at {ah:.2f}: the rubric is ambiguous"
    else:
        humans = f"humans agree at {ah:.2f}"
    if n < b.min_n:
        return "insufficient_data", f"{where}; fewer than {b.min_n} paired items; {humans}"
    low = ci[0] if ci else a
    status: Status = "trusted" if low >= b.trusted else "tentative" if low >= b.tentative else "low_confidence"
    return status, f"{where}; {humans}"
