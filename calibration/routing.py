"""Per-item review priority: send people the items where the judge is least to be trusted.

Everything is on [0, 1] and added up per item: the untrust of each dimension's status, how close
the judge's score sits to the pass threshold, the spread of its samples, its own stated lack of
confidence, and disagreement between judge models. Judge errors go first (the queue's triage key
puts open safety flags ahead of every priority).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: How much a dimension's status adds: an untrusted dimension needs people.
UNTRUST = {"trusted": 0.0, "tentative": 0.4, "low_confidence": 0.8, "insufficient_data": 1.0}
ERROR_BONUS = 10.0


@dataclass(frozen=True)
class DimSignal:
    """What the judge said about one dimension of one item (all optional but the status)."""

    status: str
    score_normalised: float | None = None
    threshold_normalised: float | None = None
    sample_std_normalised: float | None = None
    confidence: float | None = None
    model_spread_normalised: float | None = None
    error: bool = False


def dimension_priority(s: DimSignal) -> float:
    """One dimension's contribution to the item's priority."""
    if s.error:
        return ERROR_BONUS
    p = UNTRUST.get(s.status, 1.0)
    if s.score_normalised is not None and s.threshold_normalised is not None:
        p += max(0.0, 1.0 - abs(s.score_normalised - s.threshold_normalised) * 5.0)
    if s.sample_std_normalised is not None:
        p += min(1.0, s.sample_std_normalised * 4.0)
    if s.confidence is not None:
        p += max(0.0, 1.0 - s.confidence)
    if s.model_spread_normalised is not None:
        p += min(1.0, s.model_spread_normalised * 4.0)
    return p


def item_priority(dims: Mapping[str, DimSignal]) -> float:
    """The item's priority: the sum over its dimensions."""
    return sum(dimension_priority(s) for s in dims.values())
