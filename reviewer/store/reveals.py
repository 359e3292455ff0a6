"""Reveals of the judge in a blind session (table ``item_reveal``, migration ``0010c_reveals``):
append-only like every history table, signed like a score (the reviewer bound to the acting
login, see :mod:`reviewer.store.roles`), stamped with the item's content revision. A reveal is
read on every open of the item (:meth:`reviewer.store.people.PeopleMixin.item_view`): the judge
stays shown to the person who saw it, and their later scores there are not blind."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlmodel import col

from reviewer.errors import UserError
from reviewer.store.base import current_revision, inserted_pk
from reviewer.store.roles import RolesMixin
from reviewer.store.tables import ItemReveal, table_of


def revealed_to(conn: Any, item_pk: int, revision: int, reviewer: str) -> bool:
    """Whether ``reviewer`` has revealed the judge on this content revision of the item."""
    return conn.execute(select(col(ItemReveal.pk)).where(
        col(ItemReveal.item_pk) == item_pk, col(ItemReveal.reviewer) == reviewer,
        col(ItemReveal.revision) == revision).limit(1)).first() is not None


class RevealsMixin(RolesMixin):
    """Writing reveals, and asking whether someone has revealed."""

    def add_reveal(self, item_pk: int, reviewer: str) -> int:
        """Append ``reviewer``'s reveal of the judge on the item's current revision (durable when
        this returns); its key."""
        with self.write() as conn:
            signed = self._sign(conn, reviewer)
            result = conn.execute(table_of(ItemReveal).insert().values(
                item_pk=item_pk, revision=current_revision(conn, item_pk), reviewer=reviewer, **signed))
            return inserted_pk(result)

    def revealed(self, item_pk: int, reviewer: str) -> bool:
        """Whether ``reviewer`` has revealed the judge on the item's current revision (False for
        an item that is not there)."""
        with self.read() as conn:
            try:
                revision = current_revision(conn, item_pk)
            except UserError:
                return False
            return revealed_to(conn, item_pk, revision, reviewer)
