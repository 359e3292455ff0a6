"""Corrected answers (table ``item_correction``, migration ``0013c_corrections``): append-only
like every history table, signed like a score (the author bound to the acting login, or the
link's person through a served link: see :mod:`reviewer.store.roles`), stamped with the content
revision whose output they correct. The rules are :mod:`reviewer.domain.corrections`'."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection, select
from sqlmodel import col

from reviewer.domain.corrections import Correction, correction_problem, unchanged
from reviewer.domain.rows import revision_of
from reviewer.errors import UserError
from reviewer.store.base import IN_CHUNK, inserted_pk, rows_by_item
from reviewer.store.db import Db
from reviewer.store.roles import Roles
from reviewer.store.tables import Item, ItemCorrection, table_of


def correction_rows(conn: Connection, item_pks: Iterable[int]) -> dict[int, list[Correction]]:
    """Per item key, its corrections oldest first (of every revision: each says which)."""
    t = table_of(ItemCorrection)
    rows = rows_by_item(conn, t, (t.c.pk, t.c.reviewer, t.c.text, t.c.revision, t.c.created_at), item_pks)
    return {item_pk: [Correction(r.pk, item_pk, r.reviewer, r.text, revision_of(r), r.created_at) for r in found]
            for item_pk, found in rows.items()}


def latest_on_current(conn: Connection, item_pks: Iterable[int]) -> dict[int, str]:
    """Per item key, the text of its newest correction of its current content (items without one
    left out): a correction of earlier content is never paired with the output as it is now."""
    pks = sorted(set(item_pks))
    out: dict[int, str] = {}
    for i in range(0, len(pks), IN_CHUNK):
        q = (select(col(ItemCorrection.item_pk), col(ItemCorrection.text))
             .join(Item, (col(Item.pk) == col(ItemCorrection.item_pk))
                   & (col(Item.revision) == col(ItemCorrection.revision)))
             .where(col(ItemCorrection.item_pk).in_(pks[i:i + IN_CHUNK])).order_by(col(ItemCorrection.pk)))
        out.update((int(pk), str(text)) for pk, text in conn.execute(q))
    return out


class Corrections:
    """Writing and reading corrected answers."""

    def __init__(self, db: Db, roles: Roles) -> None:
        self.db = db
        self.roles = roles

    def add_correction(self, item_pk: int, reviewer: str, text: str) -> int | None:
        """Append ``reviewer``'s corrected answer for the item's current output (durable when
        this returns); its key, or None when it is the output or the reviewer's last correction
        of this content (nothing is stored: :func:`reviewer.domain.corrections.unchanged`)."""
        problem = correction_problem(text)
        if problem is not None:
            raise UserError(problem)
        with self.db.write() as conn:
            row = conn.execute(select(col(Item.output), col(Item.revision)).where(col(Item.pk) == item_pk)).first()
            if row is None:
                raise UserError(f"no item with key {item_pk}")
            output, revision = str(row[0] or ""), int(row[1])
            if unchanged(text, output, correction_rows(conn, [item_pk])[item_pk], reviewer, revision) is not None:
                return None
            signed = self.roles.sign(conn, reviewer)
            result = conn.execute(table_of(ItemCorrection).insert().values(
                item_pk=item_pk, revision=revision, reviewer=reviewer, text=text, **signed))
            return inserted_pk(result)

    def corrections(self, item_pks: Iterable[int]) -> dict[int, list[Correction]]:
        """Per item key, its corrections oldest first (of every content revision: each says which)."""
        with self.db.read() as conn:
            return correction_rows(conn, item_pks)


def correction_guards(conn: Connection) -> None:
    """``0013c_corrections``: the table (for databases made before it), append-only like the
    other history and signed like a score (:func:`reviewer.store.guards.signed_history`); on
    PostgreSQL the people who may write scores (granted INSERT on ``human_score`` by ``db roles``)
    may write corrections too, without running ``db roles`` again."""
    from reviewer.store.guards import CORRECTIONS, grant_to_scorers, signed_history

    table_of(ItemCorrection).create(conn, checkfirst=True)
    signed_history(conn, CORRECTIONS)
    grant_to_scorers(conn, "item_correction")
