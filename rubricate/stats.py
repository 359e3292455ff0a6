"""The agreement statistics rubricate reports, on plain lists or numpy arrays: thin typed doors
onto :mod:`calibration` (the code ``rubricate calibrate`` computes with), so a figure here is the
figure in a report. Each returns None where the figure is undefined (no pairable unit, a constant
side, too few values) — never a number that was not computed. Bad input (unequal lengths, a
missing value where none may be) raises :class:`ValueError` in one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.agreement import Weighting, cohen_kappa, correlation
from calibration.alpha import LEVELS, Level, krippendorff_alpha
from calibration.ppi import MeanEstimate, estimate_mean, labels_for_width

Array = NDArray[np.float64]
#: One score per item: a list (None: missing) or a numpy array (NaN: missing).
Scores = Sequence[float | None] | NDArray[np.number[Any]]
#: A units × raters table: one row per item, one column per rater (None or NaN: no score).
Ratings = Sequence[Sequence[float | None]] | NDArray[np.number[Any]]

__all__ = ["LEVELS", "Level", "MeanEstimate", "Ratings", "Scores", "Weighting", "alpha", "corrected_mean", "kappa", "kendall",
           "labels_needed", "pearson", "spearman"]


def _column(x: Scores, name: str) -> Array:
    """``x`` as a 1-D float array, refusing a missing value."""
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1:
        raise ValueError(f"{name}: give one list of numbers (got {a.ndim} dimensions)")
    missing = np.flatnonzero(np.isnan(a))
    if missing.size:
        raise ValueError(f"{name}[{int(missing[0])}] is missing (None or NaN): leave that pair out first")
    return a


def _pair(a: Scores, b: Scores) -> tuple[Array, Array]:
    x, y = _column(a, "a"), _column(b, "b")
    if x.size != y.size:
        raise ValueError(f"a has {x.size} values and b {y.size}: give one value of each per item")
    return x, y


def alpha(ratings: Ratings, level: Level = "ordinal") -> float | None:
    """Krippendorff's alpha of a units × raters table (one row per item, one column per rater;
    None or NaN where a rater gave no score) at the measurement ``level``: nominal, ordinal
    (the default), interval or ratio. None when no item has two ratings or every rating is
    the same."""
    data = np.asarray(ratings, dtype=np.float64)
    if data.ndim != 2:
        raise ValueError(f"ratings: give a table, one row per item and one column per rater (got {data.ndim} "
                         "dimensions)")
    if level not in LEVELS:
        raise ValueError(f"level {level!r}: use {', '.join(LEVELS)}")
    return krippendorff_alpha(data, level)


def kappa(a: Scores, b: Scores, levels: Sequence[float] | None = None,
          weighting: Weighting = "unweighted") -> float | None:
    """Cohen's kappa of two raters' scores of the same items, over ``levels`` (the scale's
    levels, in order; default: the distinct values either rater gave). Each score is taken at
    its nearest level. ``weighting``: unweighted, linear or quadratic (weights by how far apart
    the levels lie)."""
    x, y = _pair(a, b)
    if weighting not in ("unweighted", "linear", "quadratic"):
        raise ValueError(f"weighting {weighting!r}: use unweighted, linear or quadratic")
    scale = sorted(set(np.concatenate([x, y]).tolist())) if levels is None else [float(v) for v in levels]
    if not scale:
        return None
    return cohen_kappa(x, y, scale, weighting)


def pearson(a: Scores, b: Scores) -> float | None:
    """Pearson's r of two score columns (None: fewer than 3 values, or a side is constant)."""
    return correlation(*_pair(a, b), "pearson")


def spearman(a: Scores, b: Scores) -> float | None:
    """Spearman's rho: Pearson's r of the average ranks (ties share their mean rank)."""
    return correlation(*_pair(a, b), "spearman")


def kendall(a: Scores, b: Scores) -> float | None:
    """Kendall's tau-b (ties counted on either side)."""
    return correlation(*_pair(a, b), "kendall")


def corrected_mean(y: Scores, yhat: Scores, yhat_unlabelled: Scores,
                   confidence: float = 0.95) -> MeanEstimate:
    """The corrected (prediction-powered, PPI++) estimate of people's mean score: ``y`` and
    ``yhat`` are people's and the judge's scores on the labelled items (same order),
    ``yhat_unlabelled`` the judge's scores on every other item. Beside it the judge-only and
    people-only means, the intervals at ``confidence``, the tuned weight ``lam`` and how many
    labels the people-only interval would need to be as narrow. On 0/1 pass verdicts it is the
    corrected pass rate."""
    y_, yhat_ = _pair(y, yhat)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence {confidence:g}: give a level between 0 and 1 (0.95 is usual)")
    return estimate_mean(y_, yhat_, _column(yhat_unlabelled, "yhat_unlabelled"), confidence)


def labels_needed(y: Scores, yhat: Scores, yhat_unlabelled: Scores, target_width: float,
                  confidence: float = 0.95) -> int | None:
    """How many more labelled items would bring the corrected interval under ``target_width``
    (planned from the variances seen so far); None when it cannot be planned."""
    y_, yhat_ = _pair(y, yhat)
    if target_width <= 0:
        raise ValueError(f"target_width {target_width:g}: give a positive interval width")
    return labels_for_width(y_, yhat_, _column(yhat_unlabelled, "yhat_unlabelled"), target_width, confidence)
