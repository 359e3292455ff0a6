"""Reviewers' accuracy on known-answer (gold) items: the store's rows, the statistics of
:mod:`calibration.gold` (the store computes no statistics)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from calibration.gold import gold_accuracy as accuracy_of
from reviewer.services.reports import GoldAccuracy

if TYPE_CHECKING:  # (the store's class, for its type alone: importing it loads SQLAlchemy)
    from reviewer.store import Store


def gold_accuracy(store: Store, rubric_ref: str | None = None) -> list[GoldAccuracy]:
    """Per reviewer, over the gold items they scored (of one rubric, or all): how many, mean
    absolute error, exact and within-one shares, and the error per ISO week with its drift (the
    last week's MAE minus the first's)."""
    return cast(list[GoldAccuracy], accuracy_of(store.queue.gold_scores(rubric_ref)))  # calibration.gold's keys
