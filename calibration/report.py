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
from calibration import bootstrap as bs
from calibration.alpha import Level, krippendorff_alpha, why_undefined
from calibration.consensus import Aggregate, aggregate, snap
from calibration.groups import Codes, Grouped, Keys, group_codes
from calibration.ranks import average_ranks

Array = NDArray[np.float64]
Status = Literal["trusted", "tentative", "low_confidence", "insufficient_data"]
#: Humans agreeing with each other at least this much more than the judge agrees with them
#: (alpha among humans minus alpha) put the blame on the judge, not the rubric.
HUMANS_AHEAD_BY = 0.1


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
    #: Each item's group key, or the keys coded already (:class:`calibration.groups.Keys`).
    groups: Sequence[object] | Keys | None = None
    #: mean, median or majority (nominal dimensions always use majority: see consensus).
    human_aggregate: Aggregate = "mean"


@dataclass
class DimensionReport:
    """The figures of one dimension (keys of the calibration JSON in docs/formats.md, plus more)."""

    figures: dict[str, Any] = field(default_factory=dict)
    null_reasons: dict[str, str] = field(default_factory=dict)


ORDERED_ONLY = ("pearson", "spearman", "kendall", "within_one", "bias", "mae", "rmse")
WEIGHTED = ("kappa_linear", "kappa_quadratic", "gwet_ac2")
FIGURES = ("alpha", "alpha_ci", "pearson", "spearman", "kendall", "kappa", "kappa_linear", "kappa_quadratic",
           "gwet_ac1", "gwet_ac2", "exact", "within_one", "bias", "mae", "rmse", "pass_agreement")


@dataclass
class _Pending:
    """A dimension's point figures, waiting for the bootstrap intervals."""

    rep: DimensionReport
    n: int
    specs: dict[str, bs.Spec] = field(default_factory=dict)
    #: alpha's data and level where it is bootstrapped draw by draw (too many distinct values).
    slow_alpha: tuple[Array, Level] | None = None
    #: Whether Pearson and Spearman get intervals (item-level correlations on ordered scores).
    r_intervals: bool = False


def _prepare(inp: DimensionInput, intervals: bool, codes: Codes | None = None) -> _Pending:
    """Every point figure of one dimension, and the bootstrap intervals it asks for (``codes``:
    ``inp.groups`` coded, when the caller coded them once for several dimensions)."""
    rep = DimensionReport()
    f, why = rep.figures, rep.null_reasons
    judge, humans = np.asarray(inp.judge, float), np.asarray(inp.humans, float)
    if humans.ndim == 1:
        humans = humans[:, None]
    has_h = (~np.isnan(humans)).sum(axis=1) > 0 if humans.size else np.zeros(judge.size, bool)
    paired = ~np.isnan(judge) & has_h
    n = int(paired.sum())
    nominal = inp.level == "nominal"
    how: Aggregate = inp.human_aggregate
    if nominal and how != "majority":
        how = "majority"
        f["human_aggregate_note"] = (f"the {inp.human_aggregate} of unordered labels means nothing: "
                                     "the majority label is the human score on a nominal dimension")
    f.update(dimension=inp.dimension, n=n, n_groups=None, level=inp.level, human_aggregate=how)
    pending = _Pending(rep, n)
    j = judge[paired]
    hsub = humans[paired]
    agg, tied = aggregate(hsub, how, inp.levels) if n else (np.array([]), np.array([], bool))
    if how == "majority":
        f["majority_ties"] = int(tied.sum())
    # humans among themselves: the ceiling for the judge
    f["alpha_humans"] = krippendorff_alpha(humans, inp.level) if humans.shape[1] >= 2 else None
    if f["alpha_humans"] is None:
        why["alpha_humans"] = ("fewer than two reviewers" if humans.shape[1] < 2
                               else why_undefined(humans))
    if n == 0:
        for k in FIGURES:
            f[k] = None
            why[k] = "no item has both a judge score and a human score"
        f["status"], f["reason"] = "insufficient_data", "no paired items yet: score some items to calibrate"
        return pending
    h = agg
    if inp.comparable:
        both = np.column_stack([j, hsub])
        f["alpha"] = krippendorff_alpha(both, inp.level)
        if f["alpha"] is None:
            why["alpha"] = why_undefined(both)
        elif intervals:
            full = np.full((judge.size, 1 + humans.shape[1]), np.nan)
            full[paired] = both
            if ((~np.isnan(both)).sum(axis=1) >= 2).sum() >= 3:
                spec = bs.alpha_spec(full, inp.level)
                if spec is None:
                    pending.slow_alpha = (full, inp.level)
                else:
                    pending.specs["alpha_ci"] = spec
        # one human score per item, snapped to the scale: exact, within one and every kappa read it
        js, hs = snap(j, inp.levels), snap(h, inp.levels)
        t = ag.table(js, hs, inp.levels)
        f["kappa"] = ag.kappa_from_table(t, "unweighted")
        f["kappa_linear"] = ag.kappa_from_table(t, "linear", inp.levels)  # weighted by the declared levels
        f["kappa_quadratic"] = ag.kappa_from_table(t, "quadratic", inp.levels)
        f["gwet_ac1"] = ag.gwet_from_table(t, "unweighted")
        f["gwet_ac2"] = ag.gwet_from_table(t, "quadratic", inp.levels)
        for k in ("kappa", "kappa_linear", "kappa_quadratic", "gwet_ac1", "gwet_ac2"):
            if f[k] is None:
                why[k] = "chance agreement is 1 (every pair on one level): kappa is undefined"
        f.update(ag.rates(j, h))
        f["exact"] = float(np.mean(js == hs))
        f["within_one"] = float(np.mean(np.abs(js - hs) <= 1 + 1e-9))
        jp, hp = j >= inp.threshold_raw - 1e-9, h >= inp.threshold_raw - 1e-9
        f.update(ag.pass_agreement(jp, hp))
    else:
        for k in ("alpha", "alpha_ci", "kappa", "kappa_linear", "kappa_quadratic", "gwet_ac1", "gwet_ac2", "exact",
                  "within_one", "bias", "mae", "rmse", "pass_agreement"):
            f[k] = None
            why[k] = "the judge scores on another scale than the humans: only correlations mean something"
    methods: tuple[Literal["pearson", "spearman", "kendall"], ...] = ("pearson", "spearman", "kendall")
    grouped = None
    if inp.groups is not None and not nominal:  # grouped once for the three correlations
        grouped = Grouped.of((group_codes(inp.groups) if codes is None else codes)[paired])
    for method in methods:
        if nominal:
            f[method] = None
            continue
        if grouped is not None:
            f[method], f["n_groups"] = ag.grouped_correlation(j, h, grouped, method)
        else:
            f[method] = ag.correlation(j, h, method)
        if f[method] is None:
            why[method] = "one side is constant (or fewer than 3 pairs)"
    if nominal:
        for k in ORDERED_ONLY:
            f[k] = None
            why[k] = "needs ordered scores; the dimension is nominal (unordered labels): see exact, kappa, gwet_ac1"
        for k in WEIGHTED:
            f[k] = None
            why[k] = ("weighted by how far apart labels lie, which unordered (nominal) labels are not: "
                      "see kappa and gwet_ac1")
    elif inp.groups is None:
        pending.r_intervals = True
    if pending.r_intervals and intervals and n >= 3:
        full_j, full_h = np.zeros(judge.size), np.zeros(judge.size)
        full_j[paired], full_h[paired] = j, h
        pending.specs["pearson_ci"] = bs.pearson_spec(full_j, full_h, paired)
        full_j[paired], full_h[paired] = average_ranks(j), average_ranks(h)
        pending.specs["spearman_ci"] = bs.pearson_spec(full_j, full_h, paired)
    return pending


def _finish(p: _Pending, cis: dict[str, tuple[float, float] | None], bounds: TrustBounds, intervals: bool) -> None:
    f, why = p.rep.figures, p.rep.null_reasons
    if p.n == 0:
        return
    keys = ["alpha_ci"] + (["pearson_ci", "spearman_ci"] if p.r_intervals else [])
    for key in keys:
        ci = cis.get(key)
        f[key] = list(ci) if ci is not None else None
        if ci is None and f.get(key.removesuffix("_ci")) is not None:
            why[key] = ("--bootstrap 0: no intervals drawn" if not intervals
                        else "no resample defines it (fewer than 3 pairable items, or no variation)")
    f["more_items_needed"] = _more_needed(f.get("alpha_ci"), p.n, bounds.target_width)
    f["status"], f["reason"] = _status(f, bounds)


def _slow_alpha_ci(data: Array, level: Level, draws: bs.Draws, limit: int = 200) -> tuple[float, float] | None:
    """Alpha draw by draw over the same resamples (nominal or ratio with many distinct values)."""
    found: list[float] = []
    units = np.arange(data.shape[0])
    for chunk in draws.chunks():
        for w in chunk:
            a = krippendorff_alpha(data[np.repeat(units, w.astype(np.int64))], level)
            if a is not None:
                found.append(a)
            if len(found) >= limit:
                break
        if len(found) >= limit:
            break  # (the weights are drawn as they are read: stop drawing them too)
    return (float(np.percentile(found, 2.5)), float(np.percentile(found, 97.5))) if found else None


def dimension_reports(inputs: Sequence[DimensionInput], bounds: TrustBounds = TrustBounds(),
                      draws: int = 1000, seed: int = 0) -> list[DimensionReport]:
    """Every figure for each dimension, its status and the reason. The inputs share their units
    (one row per item): the bootstrap resamples items once, for every interval of every input,
    in one pass (``draws`` 0: no intervals)."""
    intervals = draws > 0
    coded: dict[int, Codes] = {}  # the dimensions of a report share one list of group keys: code it once
    for inp in inputs:
        if inp.groups is not None and id(inp.groups) not in coded:
            coded[id(inp.groups)] = group_codes(inp.groups)
    pending = [_prepare(inp, intervals, None if inp.groups is None else coded[id(inp.groups)]) for inp in inputs]
    cis: list[dict[str, tuple[float, float] | None]] = [{} for _ in pending]
    if intervals and pending:
        units = {np.asarray(inp.judge).size for inp in inputs}
        if len(units) != 1:
            raise ValueError("dimension_reports: every input needs the same units (one row per item)")
        shared = bs.Draws(units.pop(), draws, seed)
        keys = [(i, k) for i, p in enumerate(pending) for k in p.specs]
        results = bs.run([pending[i].specs[k] for i, k in keys], shared)
        for (i, k), ci in zip(keys, results, strict=True):
            cis[i][k] = ci
        for i, p in enumerate(pending):
            if p.slow_alpha is not None:
                cis[i]["alpha_ci"] = _slow_alpha_ci(*p.slow_alpha, shared)
    for p, c in zip(pending, cis, strict=True):
        _finish(p, c, bounds, intervals)
    return [p.rep for p in pending]


def dimension_report(inp: DimensionInput, bounds: TrustBounds = TrustBounds(),
                     draws: int = 1000, seed: int = 0) -> DimensionReport:
    """Every figure for one dimension, its status and the reason (see :func:`dimension_reports`)."""
    return dimension_reports([inp], bounds, draws, seed)[0]


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
    elif ah - a >= HUMANS_AHEAD_BY:
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
