"""Which items a queue holds and how many reviews each needs, as SQL conditions: the one
statement of them that serving (:mod:`reviewer.store.queue`) and the list's reads
(its list reads) both build on."""

from __future__ import annotations

from sqlalchemy import Boolean, ColumnElement, ScalarSelect, func, literal_column, select
from sqlalchemy.orm import Mapped
from sqlmodel import col

from reviewer.errors import UserError
from reviewer.store.queue_sql import QUEUE_CONDITIONS, QUEUES
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.tables import Item, QueueSetting
from reviewer.store.views import REVIEW_COUNTS


def queue_conditions(rubrics: Rubrics, queue: str, rubric_ref: str | None,
                     dataset: str | None) -> list[ColumnElement[bool]]:
    """The conditions of ``queue``'s items, within a rubric and dataset when given."""
    if queue not in QUEUES:
        raise UserError(f"unknown queue {queue!r}; use {', '.join(QUEUES)}")
    conds: list[ColumnElement[bool]] = []
    if rubric_ref:
        conds.append(col(Item.rubric_ref) == rubrics.get_rubric(rubric_ref).ref)
    if dataset:
        conds.append(col(Item.dataset) == dataset)
    own = QUEUE_CONDITIONS[queue]
    if own is not None:
        conds.append(literal_column(f"({own})", Boolean()))
    return conds


def needed(queue: str, default: int) -> ColumnElement[int]:
    """Distinct reviewers an item needs: its rubric's setting, else the ``*`` one, else ``default``."""
    def setting(ref: Mapped[str] | str) -> ScalarSelect[int]:
        return (select(col(QueueSetting.reviewers_per_item))
                .where(col(QueueSetting.rubric_ref) == ref, col(QueueSetting.queue) == queue).scalar_subquery())
    return func.coalesce(setting(col(Item.rubric_ref)), setting("*"), default)


def reviews_of(queue: str) -> Mapped[int]:
    """The item's count of complete reviews as ``queue`` counts them (:data:`REVIEW_COUNTS`)."""
    return col(getattr(Item, REVIEW_COUNTS[queue]))


__all__ = ["needed", "queue_conditions", "reviews_of"]
