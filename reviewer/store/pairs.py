"""Pair choices: which of two items sharing a ``group`` a reviewer judged better, or a tie, with
an optional reason and quick tags.

A group of more than two items is compared a pair at a time (the review screen cycles through the
partners), so each choice names the two items it was made on; rows from before that (no pair
named) belong to the group's first pair, its first two items by variant and key. Choices are
append-only (a trigger refuses UPDATE and DELETE): a reviewer who changes their mind, or adds a
reason, adds a row, and their current choice on a pair is their latest one for it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlmodel import col

from reviewer.store.tables import Item


def item_ids(conn: Any, pks: list[int]) -> dict[int, str]:
    """item key → item id, for the keys given."""
    ids: dict[int, str] = {}
    for i in range(0, len(pks), 500):
        ids.update(conn.execute(select(col(Item.pk), col(Item.item_id)).where(col(Item.pk).in_(pks[i:i + 500]))).all())
    return ids


def _members(conn: Any, rubric_ref: str, groups: list[str]) -> dict[str, list[int]]:
    """The keys of each group's items, by variant then key."""
    out: dict[str, list[int]] = {g: [] for g in groups}
    for i in range(0, len(groups), 500):
        for grp, pk in conn.execute(select(col(Item.grp), col(Item.pk)).where(
                col(Item.rubric_ref) == rubric_ref, col(Item.grp).in_(groups[i:i + 500]))
                .order_by(col(Item.grp), col(Item.variant), col(Item.pk))):
            out[grp].append(pk)
    return out


def _group_revision(conn: Any, rubric_ref: str, grp: str) -> int:
    """A group's content revision: the sum of its items' revisions (it grows whenever any of them
    is updated with new content)."""
    return int(conn.execute(select(func.coalesce(func.sum(col(Item.revision)), 0)).where(
        col(Item.rubric_ref) == rubric_ref, col(Item.grp) == grp)).scalar_one())
