"""Reveals of the judge in a blind session (table ``item_reveal``, migration ``0010c_reveals``):
append-only like every history table, signed like a score (the reviewer bound to the acting
login, see :mod:`reviewer.store.roles`), stamped with the item's content revision. A reveal is
read on every open of the item (:meth:`reviewer.store.items.Items.item_view`): the judge
stays shown to the person who saw it, and their later scores there are not blind."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlmodel import col

from reviewer.store.tables import ItemReveal


def revealed_to(conn: Any, item_pk: int, revision: int, reviewer: str) -> bool:
    """Whether ``reviewer`` has revealed the judge on this content revision of the item."""
    return conn.execute(select(col(ItemReveal.pk)).where(
        col(ItemReveal.item_pk) == item_pk, col(ItemReveal.reviewer) == reviewer,
        col(ItemReveal.revision) == revision).limit(1)).first() is not None


