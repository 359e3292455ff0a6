"""How each queue serves a rubric's items, and what the known-answer (gold) items say of reviewers.

A setting names a rubric (or ``*`` for every rubric without its own) and a queue: how many
distinct reviewers each item needs, the share of claims that serve a gold item instead, and
whether the queue is blind. Gold items carry expected scores; the store hands out each
reviewer's current score beside the expected one, and the services compute accuracy and drift
from those rows (the store computes no statistics).
"""

from __future__ import annotations

from dataclasses import dataclass

ANY_RUBRIC = "*"


@dataclass(frozen=True)
class QueueSettings:
    """One queue's rules for one rubric."""

    rubric_ref: str
    queue: str
    reviewers_per_item: int = 1
    gold_rate: float = 0.0
    blind: bool = False


