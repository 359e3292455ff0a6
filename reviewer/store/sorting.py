"""The orders the queue list can be sorted in (``o`` on the queue screen), as plain data.

Standard library only: the queue screen holds a :class:`QueueOrder` from its first frame, before
SQLAlchemy has loaded. The SQL of each order is :mod:`reviewer.store.queue_order`'s. Only the list
is sorted: claiming the next item (``g``, ``n``) keeps the queue's own order.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from reviewer.errors import UserError

#: A value a row is sorted by: a score or gap, a time added, a metadata key's number (a Decimal
#: on PostgreSQL) or text; None where the row has none.
SortValue = float | Decimal | str | datetime | None

#: Each order's name and how the dialog and the queue's header say it.
ORDERS: dict[str, str] = {
    "queue": "queue order",
    "judge": "judge's score",
    "people": "disagreement: judge vs people",
    "panel": "disagreement: judge panel",
    "age": "age (time added)",
    "metadata": "metadata key",
}
#: The orders that tell what the judge said: never offered in a blind session.
JUDGE_ORDERS = ("judge", "people", "panel")


@dataclass(frozen=True)
class QueueOrder:
    """How the queue list is sorted: ``by`` one of :data:`ORDERS`, ``key`` the metadata key
    (``by="metadata"`` only). Ties keep the queue's order (item key, ascending)."""

    by: str = "queue"
    descending: bool = False
    key: str | None = None

    def __post_init__(self) -> None:
        if self.by not in ORDERS:
            raise UserError(f"unknown sort {self.by!r}; use {', '.join(ORDERS)}")
        if self.by == "metadata":
            if not self.key or not self.key.strip():
                raise UserError("sort by metadata: type the key to sort by")
            bad = next((ch for ch in self.key if ch == '"' or ord(ch) < 32 or 0xD800 <= ord(ch) <= 0xDFFF), None)
            if bad is not None:
                raise UserError(f"sort by metadata: the key {self.key!r} holds {bad!r}, which a key to sort "
                                "by may not; give a key without double quotes or control characters")
        elif self.key is not None:
            raise UserError(f"sort by {self.by}: a key is only given to sort by metadata")

    @property
    def active(self) -> bool:
        """Whether the list is in another order than the queue's own."""
        return self.by != "queue" or self.descending

    @property
    def reveals_judge(self) -> bool:
        """Whether the order tells what the judge said (refused while blind)."""
        return self.by in JUDGE_ORDERS

    def describe(self) -> str:
        """The order in words, as the queue's header says it (the key is data: the caller draws
        this as plain text)."""
        if self.by == "age":
            return "age, " + ("newest first" if self.descending else "oldest first")
        way = "high to low" if self.descending else "low to high"
        if self.by == "queue":
            return "queue order, reversed" if self.descending else "queue order"
        if self.by == "metadata":
            return f'metadata "{self.key}", {way}'
        return f"{ORDERS[self.by]}, {way}"


@dataclass(frozen=True)
class QueueCursor:
    """A place in the queue list: a row's values in ``order`` (none in the queue's own order)
    and its key. Given as ``after``, the page starts at the row after it
    (:meth:`reviewer.store.queue.Queue.queue_page`)."""

    order: QueueOrder
    values: tuple[SortValue, ...]
    pk: int

    @classmethod
    def at(cls, pk: int) -> QueueCursor:
        """The place of item ``pk`` in the queue's own order."""
        return cls(QueueOrder(), (), pk)


__all__ = ["JUDGE_ORDERS", "ORDERS", "QueueCursor", "QueueOrder", "SortValue"]
