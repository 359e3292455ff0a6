"""Comments on an item (table ``item_comment``, migration ``0008c_comments``): append-only like
every history table, signed like a score (the author bound to the acting login, see
:mod:`reviewer.store.roles`), stamped with the item's content revision."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection

from reviewer.domain.comments import Comment
from reviewer.domain.itemlimits import comment_problem
from reviewer.domain.rows import revision_of
from reviewer.errors import UserError
from reviewer.store.base import current_revision, inserted_pk, rows_by_item
from reviewer.store.db import Db
from reviewer.store.roles import Roles
from reviewer.store.tables import ItemComment, table_of


def comment_rows(conn: Connection, item_pks: Iterable[int]) -> dict[int, list[Comment]]:
    """Per item key, its comments oldest first (every revision's)."""
    t = table_of(ItemComment)
    rows = rows_by_item(conn, t, (t.c.pk, t.c.reviewer, t.c.text, t.c.revision, t.c.created_at), item_pks)
    return {item_pk: [Comment(r.pk, item_pk, r.reviewer, r.text, revision_of(r), r.created_at) for r in found]
            for item_pk, found in rows.items()}


class Comments:
    """Writing and reading comments."""

    def __init__(self, db: Db, roles: Roles) -> None:
        self.db = db
        self.roles = roles

    def add_comment(self, item_pk: int, reviewer: str, text: str) -> int:
        """Append ``reviewer``'s comment on an item (durable when this returns); its key."""
        problem = comment_problem(text)
        if problem is not None:
            raise UserError(problem)
        with self.db.write() as conn:
            signed = self.roles.sign(conn, reviewer)
            result = conn.execute(table_of(ItemComment).insert().values(
                item_pk=item_pk, revision=current_revision(conn, item_pk), reviewer=reviewer, text=text.strip(), **signed))
            return inserted_pk(result)

    def comments(self, item_pks: Iterable[int]) -> dict[int, list[Comment]]:
        """Per item key, its comments oldest first (of every content revision: each says which)."""
        with self.db.read() as conn:
            return comment_rows(conn, item_pks)
