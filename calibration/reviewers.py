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
    units, r_n = humans.shape
    u_idx, r_idx = np.nonzero(~np.isnan(humans))  # every score, one at a time, unit by unit
    v = humans[u_idx, r_idx]
    others = np.bincount(u_idx, minlength=units)[u_idx] - 1  # how many others scored its unit
    rest = np.bincount(u_idx, weights=v, minlength=units)[u_idx] - v  # … and their total
    keep = others > 0
    diff = v[keep] - rest[keep] / others[keep]  # score minus the others' mean
    who = r_idx[keep]
    n = np.bincount(who, minlength=r_n)
    bias = np.bincount(who, weights=diff, minlength=r_n)
    mae = np.bincount(who, weights=np.abs(diff), minlength=r_n)
    alphas, shared = pairwise_alpha(humans, level)
    out = []
    for r, name in enumerate(names):
        entry: dict[str, Any] = {"reviewer": name, "n": int(n[r]), "bias": None, "mae": None, "alpha_with_others": None}
        if n[r]:
            entry["bias"], entry["mae"] = float(bias[r] / n[r]), float(mae[r] / n[r])
            ok = (shared[r] >= 2) & ~np.isnan(alphas[r])
            ok[r] = False
            weight = float(shared[r][ok].sum())
            entry["alpha_with_others"] = float((alphas[r][ok] * shared[r][ok]).sum() / weight) if weight else None
        out.append(entry)
    return out


def _pair_tables(unit: NDArray[np.int64], cell: NDArray[np.int64], cells: int, chunk: int = 1 << 22) -> Array:
    """How often each two (reviewer, value) cells meet in a unit: ``cells`` × ``cells`` counts over
    every ordered pair of one unit's scores, itself included (``unit`` sorted) — the one-hot
    scores' product with themselves, counted without building them, about ``chunk`` pairs at a
    time (a unit with 70 raters has 4,900)."""
    starts = np.flatnonzero(np.concatenate(([True], unit[1:] != unit[:-1])))
    sizes = np.diff(np.append(starts, unit.size))
    counts = np.zeros(cells * cells, dtype=np.int64)
    upto = np.cumsum(sizes * sizes)
    lo = 0
    while lo < starts.size:
        hi = max(lo + 1, int(np.searchsorted(upto, (upto[lo - 1] if lo else 0) + chunk, side="right")))
        s, z = starts[lo:hi], sizes[lo:hi]
        per_score = np.repeat(z, z)  # each score meets every score of its unit
        first = np.repeat(np.repeat(s, z), per_score)
        mine = np.repeat(np.arange(s[0], s[-1] + z[-1]), per_score)
        other = first + (np.arange(mine.size) - np.repeat(np.cumsum(per_score) - per_score, per_score))
        counts += np.bincount(cell[mine] * cells + cell[other], minlength=cells * cells)
        lo = hi
    return counts.reshape(cells, cells).astype(np.float64)


def pairwise_alpha(humans: Array, level: Level = "ordinal", max_values: int = 64) -> tuple[Array, Array]:
    """(alpha, shared units) for every pair of reviewers: R × R, NaN where alpha is undefined.

    With few distinct values every pair's alpha comes from its coincidence table at once: the
    one-hot scores (units × reviewers·values) times themselves (:func:`_pair_tables`) give each pair's
    contingency table, and alpha = 1 − (n − 1)·Σ o·δ / Σ n_c·n_k·δ with the level's δ (ordinal
    from the pair's own value counts). Otherwise each pair is computed on its own."""
    units, r_n = humans.shape
    seen = ~np.isnan(humans)
    u_idx, r_idx = np.nonzero(seen)
    alphas = np.full((r_n, r_n), np.nan)
    values = np.unique(humans[seen])
    if values.size == 0 or values.size > max_values:
        shared = _pair_tables(u_idx, r_idx, r_n)  # units each two reviewers both scored
        if values.size == 0:
            return alphas, shared
        for r in range(r_n):
            for o in range(r + 1, r_n):
                both = seen[:, r] & seen[:, o]
                if both.sum() >= 2:
                    a = krippendorff_alpha(np.column_stack([humans[both, r], humans[both, o]]), level)
                    alphas[r, o] = alphas[o, r] = np.nan if a is None else a
        return alphas, shared
    q = values.size
    codes = np.searchsorted(values, humans[u_idx, r_idx])
    table = _pair_tables(u_idx, r_idx * q + codes, r_n * q).reshape(r_n, q, r_n, q).transpose(0, 2, 1, 3)
    shared = table.sum(axis=(2, 3))  # units each two reviewers both scored
    coinc = table + table.transpose(0, 1, 3, 2)  # o_ck of each pair (two coders per unit)
    n_c = coinc.sum(axis=3)
    n = n_c.sum(axis=2)
    if level == "nominal":
        delta = np.broadcast_to(1.0 - np.eye(q), coinc.shape)
    elif level == "interval":
        delta = np.broadcast_to((values[:, None] - values[None, :]) ** 2, coinc.shape)
    elif level == "ratio":
        s = values[:, None] + values[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            d = np.where(s == 0, 0.0, ((values[:, None] - values[None, :]) / s) ** 2)
        delta = np.broadcast_to(d, coinc.shape)
    else:  # ordinal: (Σ_{g=c..k} n_g − (n_c + n_k)/2)², per pair
        cum = np.concatenate([np.zeros((r_n, r_n, 1)), np.cumsum(n_c, axis=2)], axis=2)
        lo, hi = np.minimum.outer(np.arange(q), np.arange(q)), np.maximum.outer(np.arange(q), np.arange(q))
        between = cum[:, :, hi + 1] - cum[:, :, lo]
        delta = (between - (n_c[:, :, :, None] + n_c[:, :, None, :]) / 2) ** 2
    observed = (coinc * delta).sum(axis=(2, 3))
    expected = np.einsum("abc,abk,abck->ab", n_c, n_c, delta)
    with np.errstate(invalid="ignore", divide="ignore"):
        alphas = np.where((n >= 2) & (expected > 0), 1 - (n - 1) * observed / expected, np.nan)
    np.fill_diagonal(alphas, np.nan)
    return alphas, shared


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
