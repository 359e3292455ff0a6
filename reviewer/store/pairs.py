"""Pair choices: which of two items sharing a ``group`` a reviewer judged better, or a tie.

Choices are append-only (a trigger refuses UPDATE and DELETE): a reviewer who changes their mind
adds a row, and their current choice is their latest one.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlmodel import col

from reviewer.errors import UserError
from reviewer.store.base import inserted_pk
from reviewer.store.roles import RolesMixin
from reviewer.store.tables import Item, PairChoice, table_of


class PairsMixin(RolesMixin):
    """Pairwise preferences between the items of a group."""

    def add_pair_choice(self, item_pk: int, reviewer: str, winner_item_pk: int | None,
                        reason: str | None = None) -> int:
        """Record that ``reviewer`` prefers ``winner_item_pk`` (None: a tie) within ``item_pk``'s
        group; the winner must belong to that group."""
        with self.write() as conn:
            signed = self._sign(conn, reviewer)
            row = conn.execute(select(col(Item.grp), col(Item.rubric_ref)).where(col(Item.pk) == item_pk)).first()
            if row is None:
                raise UserError(f"no item with key {item_pk}")
            grp, ref = row
            if grp is None:
                raise UserError(f"item {item_pk} has no group: there is no pair to choose from")
            if winner_item_pk is not None:
                winner = conn.execute(select(col(Item.grp), col(Item.rubric_ref)).where(col(Item.pk) == winner_item_pk)).first()
                if winner is None or tuple(winner) != (grp, ref):
                    raise UserError(f"item {winner_item_pk} is not in group {grp!r}")
            revision = _group_revision(conn, ref, grp)
            result = conn.execute(table_of(PairChoice).insert().values(
                grp=grp, rubric_ref=ref, reviewer=reviewer, winner_item_pk=winner_item_pk, reason=reason,
                revision=revision, **signed))
            return inserted_pk(result)

    def pair_choices(self, rubric_ref: str, group: str | None = None,
                     all_revisions: bool = False) -> dict[str, dict[str, int | None]]:
        """Per group, each reviewer's current choice: the winner's item key, or None for a tie.
        Choices made before either side's content changed are left out unless ``all_revisions``."""
        q = select(col(PairChoice.grp), col(PairChoice.reviewer), col(PairChoice.winner_item_pk),
                   col(PairChoice.revision)).where(col(PairChoice.rubric_ref) == rubric_ref)
        if group is not None:
            q = q.where(col(PairChoice.grp) == group)
        out: dict[str, dict[str, int | None]] = {}
        with self.read() as conn:
            rows = conn.execute(q.order_by(col(PairChoice.pk))).all()
            current = {} if all_revisions else {g: _group_revision(conn, rubric_ref, g) for g in {r[0] for r in rows}}
            for grp, who, winner, revision in rows:
                if all_revisions or revision == current[grp]:
                    out.setdefault(grp, {})[who] = winner  # later rows win
        return out

    def group_overalls(self, rubric_ref: str) -> dict[str, list[tuple[int, str | None, float | None]]]:
        """Per group of the rubric, its items as (key, variant, judge overall), by variant."""
        out: dict[str, list[tuple[int, str | None, float | None]]] = {}
        with self.read() as conn:
            rows: Any = conn.execute(
                select(col(Item.grp), col(Item.pk), col(Item.variant), col(Item.judge_overall))
                .where(col(Item.rubric_ref) == rubric_ref, col(Item.grp).is_not(None))
                .order_by(col(Item.grp), col(Item.variant), col(Item.pk)))
            for grp, pk, variant, overall in rows:
                out.setdefault(grp, []).append((pk, variant, overall))
        return out


def _group_revision(conn: Any, rubric_ref: str, grp: str) -> int:
    """A group's content revision: the sum of its items' revisions (it grows whenever any of them
    is updated with new content)."""
    return int(conn.execute(select(func.coalesce(func.sum(col(Item.revision)), 0)).where(
        col(Item.rubric_ref) == rubric_ref, col(Item.grp) == grp)).scalar_one())
