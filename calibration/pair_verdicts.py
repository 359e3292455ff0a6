"""A judge's verdicts on pairs against people's: agreement with the people's majority, Cohen's
κ, the judge's tie rate and its position bias. Pure: items are plain integer keys.

Each verdict is one comparison: a judge that saw a pair in both orders gives two. A verdict and
the people's majority on its pair are coded in the order the judge saw the pair (``a`` = the item
shown first, ``b``, ``tie``) for κ; people's verdicts name items, so the same majority reads as
``a`` for one order and ``b`` for the other. A pair whose people split (no single most common
verdict) or that no person judged is counted but not compared.

Position bias: the share of ``a`` among the judge's verdicts that pick an item (0.5 is none),
and, over the pairs the judge saw in both orders, the share of flips — the two verdicts do not
name the same winner (or both a tie). Intervals: Wilson 95 % for the shares, a seeded percentile
bootstrap over the compared verdicts for κ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from calibration.pairs import TIE, plurality, wilson

#: Bootstrap draws made at once (memory: draws × verdicts integers).
_CHUNK = 100


@dataclass(frozen=True)
class JudgedPair:
    """One judge verdict: the item shown first and second, the item it picked (None: a tie),
    and the people's current verdicts on the pair (the winning item each, None for a tie)."""

    first: int
    second: int
    pick: int | None
    people: Sequence[int | None]


def _code(first: int, second: int, winner: int | None) -> int:
    """0: the item shown first, 1: the second, 2: a tie."""
    return 2 if winner is None else 0 if winner == first else 1


def kappa_of(counts: Any) -> Any:
    """Cohen's κ of 3 × 3 tables given flat (…, 9) counts, row = judge, column = people; NaN
    where chance agreement is total."""
    t = np.asarray(counts, dtype=np.float64).reshape(*np.shape(counts)[:-1], 3, 3)
    n = t.sum(axis=(-2, -1))
    po = np.trace(t, axis1=-2, axis2=-1) / n
    pe = (t.sum(axis=-1) * t.sum(axis=-2)).sum(axis=-1) / (n * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.isclose(pe, 1.0), np.nan, (po - pe) / (1.0 - pe))


def _kappa_interval(codes: Any, draws: int, seed: int) -> list[float] | None:
    """95 % percentile bootstrap of κ over the compared verdicts (None without draws or spread)."""
    n = len(codes)
    if draws <= 0 or n < 2:
        return None
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, draws, _CHUNK):
        k = min(_CHUNK, draws - start)
        picked = codes[rng.integers(0, n, size=(k, n))]
        flat = (np.arange(k)[:, None] * 9 + picked).ravel()
        out.append(kappa_of(np.bincount(flat, minlength=k * 9).reshape(k, 9)))
    values = np.concatenate(out)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return None
    lo, hi = np.percentile(values, [2.5, 97.5])
    return [float(lo), float(hi)]


def _share(k: int, n: int) -> tuple[float | None, list[float] | None]:
    interval = wilson(k, n)
    return (k / n if n else None), (list(interval) if interval else None)


def verdict_figures(verdicts: Sequence[JudgedPair], draws: int = 1000, seed: int = 0) -> dict[str, Any]:
    """One judge model's figures over its verdicts (module docstring). Keys: ``n_verdicts``;
    ``n_compared``, ``split``, ``unjudged`` (verdicts on pairs with a people's majority, with
    people split, with no person's verdict); ``agreement``/``agreement_ci``; ``kappa``/``kappa_ci``;
    ``tie_rate``/``tie_rate_ci`` (the judge's ties over its verdicts); ``n_decisive``,
    ``a_share``/``a_share_ci``; ``n_both_orders``, ``flips``, ``flip_rate``/``flip_rate_ci``."""
    compared: list[int] = []
    agreed = split = unjudged = ties = a_picks = decisive = 0
    orders: dict[tuple[int, int], dict[tuple[int, int], int | None]] = {}
    for v in verdicts:
        ties += v.pick is None
        if v.pick is not None:
            decisive += 1
            a_picks += v.pick == v.first
        orders.setdefault((min(v.first, v.second), max(v.first, v.second)), {})[(v.first, v.second)] = v.pick
        if not v.people:
            unjudged += 1
            continue
        majority = plurality([TIE if w is None else w for w in v.people])
        if majority is None:
            split += 1
            continue
        people = None if majority == TIE else majority
        agreed += people == v.pick
        compared.append(_code(v.first, v.second, v.pick) * 3 + _code(v.first, v.second, people))
    codes = np.asarray(compared, dtype=np.int64)
    kappa = kappa_of(np.bincount(codes, minlength=9)) if compared else np.nan
    both = [seen for seen in orders.values() if len(seen) == 2]
    flips = sum(len(set(seen.values())) > 1 for seen in both)
    agreement, agreement_ci = _share(agreed, len(compared))
    tie_rate, tie_rate_ci = _share(ties, len(verdicts))
    a_share, a_share_ci = _share(a_picks, decisive)
    flip_rate, flip_rate_ci = _share(flips, len(both))
    return {
        "n_verdicts": len(verdicts), "n_compared": len(compared), "split": split, "unjudged": unjudged,
        "agreement": agreement, "agreement_ci": agreement_ci,
        "kappa": None if np.isnan(kappa) else float(kappa), "kappa_ci": _kappa_interval(codes, draws, seed),
        "tie_rate": tie_rate, "tie_rate_ci": tie_rate_ci,
        "n_decisive": decisive, "a_share": a_share, "a_share_ci": a_share_ci,
        "n_both_orders": len(both), "flips": flips, "flip_rate": flip_rate, "flip_rate_ci": flip_rate_ci,
    }


__all__ = ["JudgedPair", "kappa_of", "verdict_figures"]
