"""A dimension seen close up: which panel model agrees best with the people, the judge × human
confusion table with its reliability view (per judge level, the people's mean score), and each
reviewer's offset from the judge.

Pure statistics on arrays and plain figures; the application (``reviewer.services``) reads the
scores from the store and hands them in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.agreement import nearest_levels, table
from calibration.ppi import classical_interval

#: The confidence of a reliability point's interval.
RELIABILITY_CONFIDENCE = 0.95


def best_model(per_model: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The panel model whose scores agree best with the humans on a dimension (``per_model``:
    model → its figures, with ``alpha`` and ``mae``): highest alpha; ties go to the lower MAE,
    then the name. None when no model's alpha could be computed."""
    ranked = [(-float(f["alpha"]), float(f["mae"]) if f.get("mae") is not None else math.inf, m)
              for m, f in per_model.items() if f.get("alpha") is not None]
    return min(ranked)[2] if ranked else None


def confusion(judge: Sequence[float] | NDArray[np.float64], human: Sequence[float] | NDArray[np.float64],
              levels: Sequence[float]) -> dict[str, Any]:
    """The judge × human confusion table on a dimension's ``levels`` (rows: the judge's level,
    columns: the people's; each score goes to its nearest level) and ``n``, the items in it."""
    j = np.asarray(judge, dtype=np.float64)
    h = np.asarray(human, dtype=np.float64)
    if j.shape != h.shape:
        raise ValueError(f"judge and human scores differ in length ({j.size} vs {h.size})")
    counts = table(j, h, levels) if j.size else np.zeros((len(levels), len(levels)))
    return {"levels": list(levels), "table": counts.tolist(), "n": int(j.size),
            "reliability": reliability(j, h, levels)}


def reliability(judge: NDArray[np.float64], human: NDArray[np.float64], levels: Sequence[float]) -> list[dict[str, Any]]:
    """Per judge level (each judge score at its nearest level, as in the confusion table) that
    holds an item: how many items, the people's mean score on them (their score as given, not
    rounded to a level) and its 95 % interval, mean ± z·s/√n (the normal approximation; None
    below two items). A judge to be trusted has each level's mean near the level itself."""
    if not judge.size:
        return []
    at = nearest_levels(judge, levels)
    out: list[dict[str, Any]] = []
    for k, level in enumerate(levels):
        h = human[at == k]
        if not h.size:
            continue
        ci = list(classical_interval(h, RELIABILITY_CONFIDENCE, ddof=1)) if h.size >= 2 else None
        out.append({"level": float(level), "n": int(h.size), "mean_human": float(h.mean()), "ci": ci})
    return out


def reviewer_offsets(pairs: Mapping[str, Sequence[tuple[float, float]]]) -> list[dict[str, Any]]:
    """Per reviewer (``pairs``: reviewer → (judge score, their score) on the items they scored):
    how many, the bias (judge minus human, the one sign everywhere) and the mean absolute error,
    by reviewer name."""
    out = []
    for who in sorted(pairs):
        if not pairs[who]:
            continue
        d = np.array([j - h for j, h in pairs[who]], dtype=np.float64)
        out.append({"reviewer": who, "n": int(d.size), "bias": float(d.mean()), "mae": float(np.abs(d).mean())})
    return out


__all__ = ["best_model", "confusion", "reliability", "reviewer_offsets"]
