"""Prediction-powered estimates of a mean: a cheap judge on every item, people on a random sample.

PPI++ (Angelopoulos, Duchi and Zrnic, 2023) estimates the mean of the human score ``Y`` from
``n`` labelled items (human score ``Y`` and judge score ``Yhat`` on each) and ``N`` unlabelled
items (judge score only)::

    theta(lam) = mean(lam * Yhat_unlabelled) + mean(Y - lam * Yhat_labelled)

Any ``lam`` gives an unbiased estimate when the labelled items are a uniform random sample;
``lam = 0`` is the humans' own mean, ``lam = 1`` classic PPI. The power-tuned ``lam`` minimises the
estimate's variance::

    lam = cov(Y, Yhat) / ((1 + n / N) * var(Yhat over labelled and unlabelled items)),

clipped to [0, 1] (``cov`` with divisor ``n``, ``var`` with divisor ``n + N - 1``), and the interval
is the normal one, ``theta +- z * sqrt(var(lam * Yhat_unlabelled) / N + var(Y - lam * Yhat) / n)``
with population variances. These are the conventions of the authors' ``ppi-python`` package, so the
figures here equal its ``ppi_mean_pointestimate`` and ``ppi_mean_ci``.

Everything is plain numpy in, plain values out: no store, no rubric.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]

#: Below this many labelled items the normal interval is shaky: the estimate comes with a warning.
MIN_LABELLED = 30


@dataclass(frozen=True)
class MeanEstimate:
    """A corrected mean beside the two estimates it improves on (all on the same scale)."""

    judge_only: float | None
    humans_only: float | None
    humans_ci: list[float] | None
    ppi: float | None
    ppi_ci: list[float] | None
    n_labelled: int
    n_unlabelled: int
    lam: float | None
    #: How many human labels the humans-only interval would need to be as narrow as ``ppi_ci``.
    effective_labels: float | None
    #: Why a figure is missing or shaky (``None`` when all is well).
    warning: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The calibration JSON's keys (``lambda``, not the Python-safe ``lam``)."""
        d = asdict(self)
        d["lambda"] = d.pop("lam")
        return d


def z_of(confidence: float) -> float:
    """The two-sided normal quantile of a ``confidence`` interval (1.96 for 0.95)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, not {confidence}")
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def _vec(x: ArrayLike) -> Array:
    return np.asarray(x, dtype=np.float64).reshape(-1)


@dataclass(frozen=True)
class Moments:
    """What PPI++ needs of the unlabelled items: how many, their mean, and the sum of squared
    deviations from it. A store can compute these in SQL without sending a million rows."""

    n: int
    mean: float
    m2: float

    @classmethod
    def of(cls, x: ArrayLike) -> Moments:
        """The moments of an array."""
        v = _vec(x)
        return cls(int(v.size), float(v.mean()) if v.size else 0.0, float(np.var(v) * v.size) if v.size else 0.0)

    @classmethod
    def from_sums(cls, n: int, total: float, total_sq: float) -> Moments:
        """From a count, a sum and a sum of squares (clipped at 0 against rounding)."""
        if n == 0:
            return cls(0, 0.0, 0.0)
        mean = total / n
        return cls(n, mean, max(0.0, total_sq - n * mean * mean))

    @property
    def var(self) -> float:
        """Population variance."""
        return self.m2 / self.n if self.n else 0.0


Unlabelled = ArrayLike | Moments


def _mom(x: Unlabelled) -> Moments:
    return x if isinstance(x, Moments) else Moments.of(x)


def _pooled_var(a: Moments, b: Moments) -> float:
    """Sample variance (divisor n - 1) of the two sets of values together."""
    n = a.n + b.n
    if n < 2:
        return 0.0
    m2 = a.m2 + b.m2 + (a.n * b.n / n) * (a.mean - b.mean) ** 2
    return m2 / (n - 1)


def tuned_lambda(y: ArrayLike, yhat: ArrayLike, yhat_unlabelled: Unlabelled) -> float:
    """The power-tuned ``lam`` in [0, 1] that minimises the PPI++ estimate's variance."""
    y, yhat, yu = _vec(y), _vec(yhat), _mom(yhat_unlabelled)
    n = y.size
    cov = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    var = _pooled_var(Moments.of(yhat), yu)
    if var == 0.0 or not math.isfinite(var):
        return 0.0
    return float(np.clip(cov / ((1.0 + n / yu.n) * var), 0.0, 1.0))


def ppi_mean(y: ArrayLike, yhat: ArrayLike, yhat_unlabelled: Unlabelled, lam: float | None = None) -> float:
    """The PPI++ point estimate of the mean of ``y`` (power-tuned when ``lam`` is None)."""
    y, yhat, yu = _vec(y), _vec(yhat), _mom(yhat_unlabelled)
    if lam is None:
        lam = tuned_lambda(y, yhat, yu)
    return float(lam * yu.mean + np.mean(y - lam * yhat))


def ppi_mean_se(y: ArrayLike, yhat: ArrayLike, yhat_unlabelled: Unlabelled, lam: float) -> float:
    """The standard error of the PPI++ estimate at a given ``lam``."""
    y, yhat, yu = _vec(y), _vec(yhat), _mom(yhat_unlabelled)
    return math.sqrt(lam * lam * yu.var / yu.n + float(np.var(y - lam * yhat)) / y.size)


def ppi_mean_interval(y: ArrayLike, yhat: ArrayLike, yhat_unlabelled: Unlabelled,
                      confidence: float = 0.95, lam: float | None = None) -> tuple[float, float]:
    """The PPI++ interval for the mean of ``y`` at the given confidence."""
    yu = _mom(yhat_unlabelled)
    if lam is None:
        lam = tuned_lambda(y, yhat, yu)
    mid = ppi_mean(y, yhat, yu, lam)
    half = z_of(confidence) * ppi_mean_se(y, yhat, yu, lam)
    return mid - half, mid + half


def classical_interval(y: ArrayLike, confidence: float = 0.95, ddof: int = 0) -> tuple[float, float]:
    """The normal interval of a mean, mean ± z·s/√n (``ddof`` 0: the population standard deviation,
    as ``ppi-python`` for the humans-only estimate; 1: the sample's)."""
    y = _vec(y)
    half = z_of(confidence) * float(np.std(y, ddof=ddof)) / math.sqrt(y.size)
    mid = float(np.mean(y))
    return mid - half, mid + half


def estimate_mean(y: ArrayLike, yhat: ArrayLike, yhat_unlabelled: Unlabelled,
                  confidence: float = 0.95) -> MeanEstimate:
    """Judge-only, humans-only and PPI++ estimates of a mean, with intervals.

    ``y``/``yhat`` are the labelled items' human and judge scores (same order); ``yhat_unlabelled``
    the judge's scores on every other item. The judge-only figure is the judge's mean over all
    items. A sample of fewer than ``MIN_LABELLED`` items gives the estimate with a warning; one of
    fewer than 2 items, or no unlabelled item, gives no PPI figure and says why.
    """
    y, yhat, yu = _vec(y), _vec(yhat), _mom(yhat_unlabelled)
    if y.size != yhat.size:
        raise ValueError("y and yhat must hold the same labelled items")
    total = yhat.size + yu.n
    judge_only = float((yhat.sum() + yu.mean * yu.n) / total) if total else None
    n, big_n = int(y.size), int(yu.n)
    if n < 2 or big_n < 1:
        why = (f"{n} labelled item(s): at least 2 are needed for an interval" if n < 2
               else "no unlabelled item: the judge adds nothing to the humans' own mean")
        humans = float(y.mean()) if n else None
        return MeanEstimate(judge_only, humans, None, None, None, n, big_n, None, None, why)
    lam = tuned_lambda(y, yhat, yu)
    lo, hi = ppi_mean_interval(y, yhat, yu, confidence, lam)
    hlo, hhi = classical_interval(y, confidence)
    width, hwidth = hi - lo, hhi - hlo
    effective = n * (hwidth / width) ** 2 if width > 0 else None
    warning = (f"only {n} labelled items (fewer than {MIN_LABELLED}): the interval's coverage is "
               "approximate" if n < MIN_LABELLED else None)
    return MeanEstimate(
        judge_only=judge_only, humans_only=float(y.mean()), humans_ci=[hlo, hhi],
        ppi=ppi_mean(y, yhat, yu, lam), ppi_ci=[lo, hi], n_labelled=n, n_unlabelled=big_n,
        lam=lam, effective_labels=effective, warning=warning)


def labels_for_width(y: ArrayLike, yhat: ArrayLike, yhat_unlabelled: Unlabelled, target_width: float,
                     confidence: float = 0.95) -> int | None:
    """How many MORE labelled items would bring the PPI++ interval under ``target_width``.

    Plans with the variances seen so far and an unlabelled pool of the same size, at the best
    ``lam`` for the larger sample (``lam`` is tuned again when the labels are in; at ``lam = 0`` the
    judge's own term vanishes, so any width is reachable with enough labels). ``None`` only when
    the labels seen so far carry no spread to plan with."""
    y, yhat, yu = _vec(y), _vec(yhat), _mom(yhat_unlabelled)
    if y.size < 2 or float(np.ptp(y)) == 0.0:
        return None
    half2 = (target_width / (2.0 * z_of(confidence))) ** 2
    var_u = yu.var / max(yu.n, 1)
    best: float | None = None
    for lam in np.linspace(0.0, 1.0, 101):
        room = half2 - lam * lam * var_u
        rect = float(np.var(y - lam * yhat))
        if room > 0 and rect > 0:
            need = rect / room
            best = need if best is None else min(best, need)
    if best is None:
        return None
    return max(0, math.ceil(best) - y.size)


@dataclass(frozen=True)
class RankedGroup:
    """One group's corrected mean and how sure its rank is."""

    group: str
    estimate: MeanEstimate
    rank: int
    judge_rank: int
    #: Share of draws from the estimates' normal approximations in which this rank came out.
    rank_probability: float


def rank_groups(groups: Mapping[str, tuple[Array, Array, Array | Moments]], confidence: float = 0.95,
                draws: int = 10_000, seed: int = 0) -> list[RankedGroup]:
    """Rank groups (models, variants) by their PPI++ means, highest first.

    Each group's ``(y, yhat, yhat_unlabelled)`` is estimated on its own. ``rank_probability`` is
    the share of ``draws`` joint draws from independent normals at each group's estimate and
    standard error in which the group lands on the rank it was given: a simulation of the
    prediction-powered ranking's uncertainty, seeded so the figure repeats. Groups without a PPI
    figure rank last, in name order, with probability ``None``-like 0.0.
    """
    est = {g: estimate_mean(*arrays, confidence=confidence) for g, arrays in groups.items()}
    ok = sorted((g for g, e in est.items() if e.ppi is not None), key=lambda g: (-(est[g].ppi or 0.0), g))
    rest = sorted(g for g, e in est.items() if e.ppi is None)
    by_judge = sorted(est, key=lambda g: (-(est[g].judge_only or -math.inf), g))
    probs: dict[str, float] = {g: 0.0 for g in est}
    if ok:
        rng = np.random.default_rng(seed)
        mu = np.array([est[g].ppi for g in ok], dtype=np.float64)
        se = np.array([ppi_mean_se(*groups[g], lam=est[g].lam or 0.0) for g in ok])
        sim = mu[None, :] + rng.standard_normal((draws, len(ok))) * se[None, :]
        order = np.argsort(-sim, axis=1, kind="stable")
        for i, g in enumerate(ok):
            probs[g] = float(np.mean(order[:, i] == i))
    judge_rank = {g: r + 1 for r, g in enumerate(by_judge)}  # (a lookup, not a scan per group)
    return [RankedGroup(g, est[g], r + 1, judge_rank[g], probs[g]) for r, g in enumerate(ok + rest)]
