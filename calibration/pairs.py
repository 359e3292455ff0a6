"""Judge–human agreement on pairs: which of two items is better, or a tie.

A pair's judge preference comes from the two items' judge overalls (within ``tie_margin`` of each
other: a tie); the human side is the plurality of the reviewers' current choices (no single
plurality: a split, counted but not compared). Pure: sides are 0 (A), 1 (B) and -1 (a tie).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

TIE = -1


@dataclass(frozen=True)
class PairObservation:
    """One group of two: the judge's overall for each side, and each reviewer's choice."""

    judge_a: float | None
    judge_b: float | None
    choices: Sequence[int]


def judge_preference(a: float | None, b: float | None, tie_margin: float) -> int | None:
    """0 if A's overall is higher by more than ``tie_margin``, 1 if B's, -1 within it; None when
    either side has no judge overall."""
    if a is None or b is None:
        return None
    if abs(a - b) <= tie_margin:
        return TIE
    return 0 if a > b else 1


def plurality(choices: Sequence[int]) -> int | None:
    """The most common choice, or None when two or more share the top count."""
    counts = Counter(choices).most_common()
    if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float] | None:
    """Wilson score interval for a proportion (None for n = 0)."""
    if n == 0:
        return None
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def pair_figures(pairs: Sequence[PairObservation], tie_margin: float = 0.05) -> dict[str, Any]:
    """Agreement of the judge's preference with the reviewers', over pairs with a human choice.

    Keys: ``n_pairs`` (pairs with both a judge preference and a human plurality), ``split`` (pairs
    whose reviewers split evenly), ``agreement`` and ``agreement_ci`` (share where the judge's
    preference equals the humans', Wilson 95%), ``human_ties`` and ``judge_ties`` (shares of ties
    on each side), ``reviewer_agreement`` (share of agreeing reviewer pairs, over pairs with two or
    more reviewers; None without any), ``n_choices``.
    """
    compared = agreed = split = judge_ties = 0
    agreeing = reviewer_pairs = 0
    all_choices = [c for p in pairs for c in p.choices]
    for p in pairs:
        if not p.choices:
            continue
        for x, y in combinations(p.choices, 2):
            reviewer_pairs += 1
            agreeing += x == y
        judge = judge_preference(p.judge_a, p.judge_b, tie_margin)
        human = plurality(p.choices)
        if human is None:
            split += 1
            continue
        if judge is None:
            continue
        compared += 1
        agreed += judge == human
        judge_ties += judge == TIE
    return {
        "n_pairs": compared,
        "n_choices": len(all_choices),
        "split": split,
        "agreement": agreed / compared if compared else None,
        "agreement_ci": wilson(agreed, compared),
        "human_ties": sum(c == TIE for c in all_choices) / len(all_choices) if all_choices else None,
        "judge_ties": judge_ties / compared if compared else None,
        "reviewer_agreement": agreeing / reviewer_pairs if reviewer_pairs else None,
        "tie_margin": tie_margin,
    }
