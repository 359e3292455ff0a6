"""Span marks (table ``span_mark``, migration ``0013m_span_marks``): a person's mark on a span of
an item's text under review, attached to a dimension (:mod:`reviewer.domain.marks`). Append-only
like every history table, signed like a score (the author bound to the acting login, see
:mod:`reviewer.store.roles`; a link's session marks its rows ``via = 'link'``), stamped with the
item's content revision, and checked against that revision's text before it is written."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection, select
from sqlmodel import col

from reviewer.domain.marks import Mark, marked_source, span_problem
from reviewer.domain.rows import revision_of
from reviewer.errors import UserError
from reviewer.safetext import safe_line
from reviewer.store.base import inserted_pk, rows_by_item
from reviewer.store.db import Db
from reviewer.store.roles import Roles
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.tables import HumanScore, Item, SpanMark, table_of


def mark_rows(conn: Connection, item_pks: Iterable[int]) -> dict[int, list[Mark]]:
    """Per item key, its marks oldest first (every revision's)."""
    t = table_of(SpanMark)
    rows = rows_by_item(conn, t, (t.c.pk, t.c.revision, t.c.dimension, t.c.reviewer, t.c.start, t.c.end, t.c.quote,
                                  t.c.score_pk, t.c.created_at), item_pks)
    return {item_pk: [Mark(r.pk, item_pk, revision_of(r), r.dimension, r.reviewer, int(r.start), int(r.end), r.quote,
                           r.score_pk, r.created_at) for r in found]
            for item_pk, found in rows.items()}


class Marks:
    """Writing and reading span marks."""

    def __init__(self, db: Db, rubrics: Rubrics, roles: Roles) -> None:
        self.db = db
        self.rubrics = rubrics
        self.roles = roles

    def add_mark(self, item_pk: int, dimension: str, reviewer: str, start: int, end: int,
                 revision: int | None = None) -> int:
        """Append ``reviewer``'s mark on ``[start, end)`` of the item's current text under review,
        beside ``dimension`` (durable when this returns); its key. The mark belongs to the
        author's latest score row on the dimension of this revision, when there is one. Offsets
        outside the text, a dimension the item's rubric does not have, or a ``revision`` (the one
        the reviewer read) that is no longer the item's, are refused in one line."""
        with self.db.write() as conn:
            row = conn.execute(select(col(Item.item_id), col(Item.rubric_ref), col(Item.revision), col(Item.output),
                                      col(Item.conversation)).where(col(Item.pk) == item_pk)).first()
            if row is None:
                raise UserError(f"no item with key {item_pk}")
            item_id, ref, current, output, conversation = row
            if revision is not None and revision != current:
                raise UserError(safe_line(f"item {item_id} has changed since it was opened (revision {revision}, now "
                                          f"{current}): nothing was marked; open it again and mark the new text"))
            revision = int(current)
            if dimension not in {d.id for d in self.rubrics.get_rubric(ref).dimensions}:
                raise UserError(safe_line(f"item {item_id}: {ref} has no dimension {dimension!r} to mark beside"))
            text = marked_source(output, conversation)
            problem = span_problem(start, end, len(text))
            if problem is not None:
                raise UserError(safe_line(f"item {item_id}: {problem}"))
            signed = self.roles.sign(conn, reviewer)
            score_pk = conn.execute(select(col(HumanScore.pk)).where(
                col(HumanScore.item_pk) == item_pk, col(HumanScore.dimension) == dimension,
                col(HumanScore.reviewer) == reviewer, col(HumanScore.revision) == revision)
                .order_by(col(HumanScore.pk).desc()).limit(1)).scalar()
            result = conn.execute(table_of(SpanMark).insert().values(
                item_pk=item_pk, revision=revision, dimension=dimension, reviewer=reviewer, start=start, end=end,
                quote=text[start:end], score_pk=score_pk, **signed))
            return inserted_pk(result)

    def marks(self, item_pks: Iterable[int]) -> dict[int, list[Mark]]:
        """Per item key, its marks oldest first (of every content revision: each says which)."""
        with self.db.read() as conn:
            return mark_rows(conn, item_pks)
