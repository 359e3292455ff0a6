"""Comments on an item (table ``item_comment``, migration ``0008c_comments``): append-only like
every history table, signed like a score (the author bound to the acting login, see
:mod:`reviewer.store.roles`), stamped with the item's content revision."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import select

from reviewer.domain.comments import Comment
from reviewer.domain.itemlimits import comment_problem
from reviewer.errors import UserError
from reviewer.store.roles import RolesMixin
from reviewer.store.tables import Item, ItemComment


def comment_rows(conn: Any, item_pks: Iterable[int]) -> dict[int, list[Comment]]:
    """Per item key, its comments oldest first (every revision's)."""
    pks = sorted(set(item_pks))
    out: dict[int, list[Comment]] = {pk: [] for pk in pks}
    for i in range(0, len(pks), 5000):
        q = (select(ItemComment.pk, ItemComment.item_pk, ItemComment.reviewer, ItemComment.text,
                    ItemComment.revision, ItemComment.created_at)
             .where(ItemComment.item_pk.in_(pks[i:i + 5000])).order_by(ItemComment.pk))  # type: ignore[attr-defined]
        for pk, item_pk, who, text, rev, at in conn.execute(q):
            out[item_pk].append(Comment(pk, item_pk, who, text, int(rev or 1), at))
    return out


class CommentsMixin(RolesMixin):
    """Writing and reading comments."""

    def add_comment(self, item_pk: int, reviewer: str, text: str) -> int:
        """Append ``reviewer``'s comment on an item (durable when this returns); its key."""
        problem = comment_problem(text)
        if problem is not None:
            raise UserError(problem)
        with self.write() as conn:
            signed = self._sign(conn, reviewer)
            revision = conn.execute(select(Item.revision).where(Item.pk == item_pk)).scalar()
            if revision is None:
                raise UserError(f"no item with key {item_pk}")
            result = conn.execute(ItemComment.__table__.insert().values(  # type: ignore[attr-defined]
                item_pk=item_pk, revision=revision, reviewer=reviewer, text=text.strip(), **signed))
            return int(result.inserted_primary_key[0])

    def comments(self, item_pks: Iterable[int]) -> dict[int, list[Comment]]:
        """Per item key, its comments oldest first (of every content revision: each says which)."""
        with self.read() as conn:
            return comment_rows(conn, item_pks)
