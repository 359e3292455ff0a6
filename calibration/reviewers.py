"""The people side of calibration: each reviewer against the others, z-normalised scores,
adjudication three ways, and anchoring (how far revisions moved toward the judge once shown).

Pure functions on arrays: units × reviewers with NaN where a reviewer did not score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.alpha import Level, krippendorff_alpha

Array = NDArray[np.float64]


def per_reviewer(humans: Array, names: Sequence[str], level: Level = "ordinal") -> list[dict[str, Any]]:
    """Per reviewer, on the units they share with at least one other reviewer: ``n``, ``bias``
    (their score minus the others' mean), ``mae`` against that mean, and ``alpha_with_others`` —
    pairwise alpha with each other reviewer, averaged with the shared units as weights (None
    when no pair has two shared units or alpha is undefined for every pair)."""
    out = []
    humans = humans[(~np.isnan(humans)).any(axis=1)]  # units nobody scored say nothing here
    for r, name in enumerate(names):
        mine = humans[:, r]
        others = np.delete(humans, r, axis=1)
        has_other = (~np.isnan(others)).any(axis=1) if others.shape[1] else np.zeros(len(mine), bool)
        shared = ~np.isnan(mine) & has_other
        n = int(shared.sum())
        entry: dict[str, Any] = {"reviewer": name, "n": n, "bias": None, "mae": None, "alpha_with_others": None}
        if n:
            diff = mine[shared] - np.nanmean(others[shared], axis=1)
            entry["bias"], entry["mae"] = float(diff.mean()), float(np.abs(diff).mean())
            total = weight = 0.0
            for o in range(others.shape[1]):
                both = ~np.isnan(mine) & ~np.isnan(others[:, o])
                if both.sum() < 2:
                    continue
                a = krippendorff_alpha(np.column_stack([mine[both], others[both, o]]), level)
                if a is not None:
                    total, weight = total + a * both.sum(), weight + both.sum()
            entry["alpha_with_others"] = total / weight if weight else None
        out.append(entry)
    return out


def z_normalise(humans: Array) -> tuple[Array, list[int]]:
    """Each reviewer's scores as z-scores of their own mean and spread, put back on the pooled
    human scale (pooled mean and standard deviation), so a lenient or harsh reviewer stops
    pulling the consensus. Reviewers with fewer than two scores or no spread are left as they
    are; their columns are returned as the second value."""
    out = humans.copy()
    pooled = humans[~np.isnan(humans)]
    if pooled.size < 2 or pooled.std() == 0:
        return out, list(range(humans.shape[1]))
    mu, sd = pooled.mean(), pooled.std()
    left = []
    for r in range(humans.shape[1]):
        col = humans[:, r]
        seen = ~np.isnan(col)
        if seen.sum() < 2 or col[seen].std() == 0:
            left.append(r)
            continue
        out[seen, r] = (col[seen] - col[seen].mean()) / col[seen].std() * sd + mu
    return out, left


def adjudicated(judge: Array, settled: Array, humans: Array) -> dict[str, Any]:
    """Agreement three ways where a lead settled the humans' disagreement: judge vs the settled
    answer, each human vs it, and the judge vs each human on the same units — so "the judge is
    wrong" (far from the settled answer) separates from "the rubric is ambiguous" (the humans
    far from it too)."""
    units = ~np.isnan(settled) & ~np.isnan(judge)
    n = int(units.sum())
    res: dict[str, Any] = {"n": n, "judge_exact": None, "judge_mae": None, "human_mae": None,
                           "judge_vs_humans_mae": None}
    if not n:
        return res
    j, s, h = judge[units], settled[units], humans[units]
    res["judge_exact"] = float(np.mean(np.isclose(j, s)))
    res["judge_mae"] = float(np.abs(j - s).mean())
    if (~np.isnan(h)).any():
        res["human_mae"] = float(np.nanmean(np.abs(h - s[:, None])))
        res["judge_vs_humans_mae"] = float(np.nanmean(np.abs(h - j[:, None])))
    return res


def anchoring(blind: Array, revised: Array, judge: Array) -> dict[str, Any]:
    """How far revisions made after the judge was revealed moved toward it. Over scores that were
    given blind and then revised: ``n``, ``moved_toward`` (share that ended closer to the judge),
    ``moved_away``, ``gap_closed`` (mean share of the blind score's distance to the judge that the
    revision closed, over revisions that started away from the judge)."""
    ok = ~np.isnan(blind) & ~np.isnan(revised) & ~np.isnan(judge)
    n = int(ok.sum())
    if not n:
        return {"n": 0, "moved_toward": None, "moved_away": None, "gap_closed": None}
    before = np.abs(blind[ok] - judge[ok])
    after = np.abs(revised[ok] - judge[ok])
    gap = before > 0
    return {
        "n": n,
        "moved_toward": float(np.mean(after < before)),
        "moved_away": float(np.mean(after > before)),
        "gap_closed": float(np.mean((before[gap] - after[gap]) / before[gap])) if gap.any() else None,
    }


def judge_spread(sample_std: Array, by_model: Array) -> dict[str, Any]:
    """The judge's self-consistency: mean standard deviation of its samples per unit (where it
    drew more than one), and the spread between judge models (mean per-unit standard deviation
    across models, over units two or more models scored)."""
    s = sample_std[~np.isnan(sample_std)]
    multi = (~np.isnan(by_model)).sum(axis=1) >= 2 if by_model.size else np.zeros(0, bool)
    between = np.nanstd(by_model[multi], axis=1) if multi.any() else np.zeros(0)
    return {
        "sample_std": float(s.mean()) if s.size else None,
        "n_sampled": int(s.size),
        "model_std": float(between.mean()) if between.size else None,
        "n_multi_model": int(between.size),
    }
