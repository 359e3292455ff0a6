"""Finding an item by the id people know it by (unique only within a rubric and dataset)."""

from __future__ import annotations

from sqlalchemy import select
from sqlmodel import col

from reviewer.store.base import StoreBase
from reviewer.store.tables import Item


class LookupMixin(StoreBase):
    """Items by their id."""

    def items_by_id(self, item_id: str, dataset: str | None = None,
                    rubric_ref: str | None = None) -> list[tuple[int, str, str]]:
        """(key, dataset, rubric) of every item with this exact id (in ``dataset`` / ``rubric_ref``
        when given), by key."""
        q = select(col(Item.pk), col(Item.dataset), col(Item.rubric_ref)).where(col(Item.item_id) == item_id)
        if dataset is not None:
            q = q.where(col(Item.dataset) == dataset)
        if rubric_ref is not None:
            q = q.where(col(Item.rubric_ref) == self.get_rubric(rubric_ref).ref)
        with self.read() as conn:
            return [(int(pk), str(ds), str(ref)) for pk, ds, ref in conn.execute(q.order_by(col(Item.pk)))]
