"""What a queue is, as plain SQL text: the one statement of each queue's condition and of the
columns and order of a queue page.

Both reads of a queue page are driven by this table: the store's (:meth:`reviewer.store.queue.
Queue.queue_page`, through SQLAlchemy, both backends) and the standard-library read of the
first page while the TUI starts (:mod:`reviewer.store.lite`, SQLite). It imports nothing but the
standard library, so the second stays quick to load.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from reviewer.store.sorting import QueueCursor
from reviewer.store.views import REVIEW_COUNTS, QueueRow

QUEUES = ("triage", "audit", "safety")
#: Each queue's condition on the ``item`` table (None: every item), beside the rubric and
#: dataset asked for.
QUEUE_CONDITIONS: dict[str, str | None] = {
    "triage": None,
    "audit": "EXISTS (SELECT 1 FROM audit_sample WHERE audit_sample.item_pk = item.pk)",
    # the item's safety status derived from its flags' decisions (reviewer.domain.safety)
    "safety": "item.safety IN ('open', 'escalated')",
}
#: The ``item`` columns of a queue row, in :class:`QueueRow`'s order (``n_reviewed`` stands for
#: the queue's own count of reviews: :func:`row_columns`); a page is in ``pk`` order (the row's
#: keyset position).
ROW_COLUMNS = ("pk", "item_id", "dataset", "rubric_ref", "judge_overall", "judge_band", "judge_passed", "flagged",
               "n_errors", "n_reviewed", "lease_reviewer", "lease_until", "judge_headline")
ORDER_COLUMN = "pk"


def row_columns(queue: str) -> tuple[str, ...]:
    """:data:`ROW_COLUMNS` as ``queue`` reads them: its reviews counted by its own column
    (:data:`reviewer.store.views.REVIEW_COUNTS`; the audit queue counts labels)."""
    reviewed = REVIEW_COUNTS[queue]
    return tuple(reviewed if c == "n_reviewed" else c for c in ROW_COLUMNS)


def queue_row(r: Sequence[Any], t: datetime) -> QueueRow:
    """A queue row from the :data:`ROW_COLUMNS` values read at time ``t`` (naive UTC): a lease
    that ran out names nobody."""
    until = r[11]
    if isinstance(until, str):  # the standard-library read gets SQLite's text
        until = datetime.fromisoformat(until)
    return QueueRow(r[0], r[1], r[2], r[3], r[4], r[5], None if r[6] is None else bool(r[6]), bool(r[7]), r[8], r[9],
                    r[10] if until is not None and until > t else None, QueueCursor.at(r[0]), r[12])


__all__ = ["ORDER_COLUMN", "QUEUES", "QUEUE_CONDITIONS", "ROW_COLUMNS", "queue_row", "row_columns"]
