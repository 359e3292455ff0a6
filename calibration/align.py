"""Choosing a judge on one set of items and reporting it on another (``rubricate align``): the
seeded split of the labelled items into dev and test, stratified by people's level; the paired
bootstrap of the difference in alpha between two judges on the same items; and the words a
difference interval is said in.

Pure: arrays in, numbers out (the service reads the labels and runs the candidates).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from calibration import bootstrap as bs
from calibration.alpha import Level, krippendorff_alpha

Array = NDArray[np.float64]
Verdict = Literal["better", "no better", "worse"]


def split(keys: Sequence[int], levels: Sequence[float], test_share: float,
          seed: int) -> tuple[list[int], list[int]]:
    """(dev keys, test keys): within each of people's levels, a seeded shuffle of its items (in
    key order first, so the same items and seed give the same split whatever order they come
    in) puts ``test_share`` of them in test. The per-level counts are rounded so that the total
    in test is ``round(test_share × n)`` (largest remainders first). A ``ValueError`` when the
    share is outside (0, 1) or either side would be empty."""
    if not 0.0 < test_share < 1.0:
        raise ValueError(f"test share {test_share:g} is not between 0 and 1")
    if len(keys) != len(levels):
        raise ValueError("split: one level per key")
    strata: dict[float, list[int]] = {}
    for key, level in sorted(zip(keys, levels, strict=True)):
        strata.setdefault(float(level), []).append(int(key))
    order = sorted(strata)
    exact = [test_share * len(strata[lv]) for lv in order]
    counts = [int(np.floor(x)) for x in exact]
    left = int(round(test_share * len(keys))) - sum(counts)
    # largest remainders first; ties to the more common level, then the lower level
    for i in sorted(range(len(order)), key=lambda i: (-(exact[i] - counts[i]), -len(strata[order[i]]), i))[:left]:
        counts[i] += 1
    rng = np.random.default_rng(seed)
    dev: list[int] = []
    test: list[int] = []
    for lv, k in zip(order, counts, strict=True):
        members = strata[lv]
        picked = set(rng.permutation(len(members))[:k].tolist())
        test += [m for i, m in enumerate(members) if i in picked]
        dev += [m for i, m in enumerate(members) if i not in picked]
    if not dev or not test:
        raise ValueError(f"{len(keys)} labelled item{'s' if len(keys) != 1 else ''} cannot make both a dev and "
                         f"a test set at test share {test_share:g}")
    return sorted(dev), sorted(test)


def alpha_difference(before: Array, after: Array, people: Array, level: Level, draws: int,
                     seed: int) -> tuple[float | None, tuple[float, float] | None]:
    """alpha(after, people) − alpha(before, people) on the items where all three are known, and
    its 95% paired percentile bootstrap interval: each draw resamples the items once and takes
    both alphas on that same resample, so what the two judges share does not widen the interval.
    None where undefined (fewer than three items, no variation, ``draws`` 0)."""
    before, after, people = (np.asarray(x, dtype=np.float64) for x in (before, after, people))
    keep = ~np.isnan(before) & ~np.isnan(after) & ~np.isnan(people)
    a = np.column_stack([before[keep], people[keep]])
    b = np.column_stack([after[keep], people[keep]])
    alpha_a, alpha_b = krippendorff_alpha(a, level), krippendorff_alpha(b, level)
    point = alpha_b - alpha_a if alpha_a is not None and alpha_b is not None else None
    if draws <= 0 or int(keep.sum()) < 3:
        return point, None
    resamples = bs.Draws(a.shape[0], draws, seed)
    specs = [bs.alpha_spec(a, level), bs.alpha_spec(b, level)]
    if specs[0] is not None and specs[1] is not None:
        va, vb = bs.per_draw([specs[0], specs[1]], resamples)
    else:  # too many distinct values to count per unit: draw by draw over the same resamples
        va, vb = _slow(a, level, resamples), _slow(b, level, resamples)
    diff = vb - va
    diff = diff[~np.isnan(diff)]
    if not diff.size:
        return point, None
    return point, (float(np.percentile(diff, 2.5)), float(np.percentile(diff, 97.5)))


def _slow(data: Array, level: Level, draws: bs.Draws) -> Array:
    """alpha in every draw, computed on the resampled rows themselves."""
    units = np.arange(data.shape[0])
    out = []
    for chunk in draws.chunks():
        for w in chunk:
            value = krippendorff_alpha(data[np.repeat(units, w.astype(np.int64))], level)
            out.append(np.nan if value is None else value)
    return np.asarray(out, dtype=np.float64)


def verdict(difference_ci: Sequence[float] | None) -> Verdict:
    """The difference said in words: "better" when its whole interval is above 0, "worse" when
    wholly below, else (or with no interval) "no better"."""
    if difference_ci is None:
        return "no better"
    lo, hi = difference_ci
    if lo > 0:
        return "better"
    if hi < 0:
        return "worse"
    return "no better"
