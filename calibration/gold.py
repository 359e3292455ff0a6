"""Reviewer accuracy on known-answer (gold) items, and its drift week by week.

Pure: the application reads each reviewer's current score on each gold item (from the item's
fold) and hands in (reviewer, score, expected, when) observations.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

#: Scores this close count as equal (exact) or as one level apart (within one).
_EPS = 1e-9


def gold_accuracy(observations: Iterable[tuple[str, float, float, datetime]]) -> list[dict[str, Any]]:
    """Per reviewer, by name, over (reviewer, score, gold score, when the score was given): how
    many, the mean absolute error, the exact and within-one shares, the MAE per ISO week
    (``mae_by_week``, rounded to 6 places) and ``drift``: the last week's MAE minus the first's
    (None within one week)."""
    errors: dict[str, list[tuple[float, datetime]]] = defaultdict(list)
    for who, score, expected, at in observations:
        errors[who].append((abs(float(score) - float(expected)), at))
    out = []
    for who in sorted(errors):
        errs = [e for e, _ in errors[who]]
        weeks: dict[str, list[float]] = defaultdict(list)
        for e, at in errors[who]:
            year, week, _ = at.isocalendar()
            weeks[f"{year}-W{week:02d}"].append(e)
        by_week = {w: round(sum(v) / len(v), 6) for w, v in sorted(weeks.items())}
        first, last = next(iter(by_week.values())), list(by_week.values())[-1]
        out.append({"reviewer": who, "n": len(errs), "mae": sum(errs) / len(errs),
                    "exact": sum(e < _EPS for e in errs) / len(errs),
                    "within_one": sum(e <= 1 + _EPS for e in errs) / len(errs),
                    "mae_by_week": by_week, "drift": last - first if len(by_week) > 1 else None})
    return out


__all__ = ["gold_accuracy"]
