"""Pair choices: which of two items sharing a ``group`` a reviewer judged better, or a tie.

Choices are append-only (a trigger refuses UPDATE and DELETE): a reviewer who changes their mind
adds a row, and their current choice is their latest one.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from reviewer.errors import UserError
from reviewer.store.roles import RolesMixin
from reviewer.store.tables import Item, PairChoice


class PairsMixin(RolesMixin):
    """Pairwise preferences between the items of a group."""

    def add_pair_choice(self, item_pk: int, reviewer: str, winner_item_pk: int | None,
                        reason: str | None = None) -> int:
        """Record that ``reviewer`` prefers ``winner_item_pk`` (None: a tie) within ``item_pk``'s
        group; the winner must belong to that group."""
        with self.write() as conn:
            signed = self._sign(conn, reviewer)
            row = conn.execute(select(Item.grp, Item.rubric_ref).where(Item.pk == item_pk)).first()
            if row is None:
                raise UserError(f"no item with key {item_pk}")
            grp, ref = row
            if grp is None:
                raise UserError(f"item {item_pk} has no group: there is no pair to choose from")
            if winner_item_pk is not None:
                winner = conn.execute(select(Item.grp, Item.rubric_ref).where(Item.pk == winner_item_pk)).first()
                if winner is None or tuple(winner) != (grp, ref):
                    raise UserError(f"item {winner_item_pk} is not in group {grp!r}")
            revision = _group_revision(conn, ref, grp)
            result = conn.execute(PairChoice.__table__.insert().values(  # type: ignore[attr-defined]
                grp=grp, rubric_ref=ref, reviewer=reviewer, winner_item_pk=winner_item_pk, reason=reason,
                revision=revision, **signed))
            return int(result.inserted_primary_key[0])

    def pair_choices(self, rubric_ref: str, group: str | None = None,
                     all_revisions: bool = False) -> dict[str, dict[str, int | None]]:
        """Per group, each reviewer's current choice: the winner's item key, or None for a tie.
        Choices made before either side's content changed are left out unless ``all_revisions``."""
        q = select(PairChoice.grp, PairChoice.reviewer, PairChoice.winner_item_pk, PairChoice.revision).where(
            PairChoice.rubric_ref == rubric_ref)
        if group is not None:
            q = q.where(PairChoice.grp == group)
        out: dict[str, dict[str, int | None]] = {}
        with self.read() as conn:
            rows = conn.execute(q.order_by(PairChoice.pk)).all()
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
                select(Item.grp, Item.pk, Item.variant, Item.judge_overall)
                .where(Item.rubric_ref == rubric_ref, Item.grp.is_not(None))  # type: ignore[union-attr]
                .order_by(Item.grp, Item.variant, Item.pk))
            for grp, pk, variant, overall in rows:
                out.setdefault(grp, []).append((pk, variant, overall))
        return out


def _group_revision(conn: Any, rubric_ref: str, grp: str) -> int:
    """A group's content revision: the sum of its items' revisions (it grows whenever any of them
    is updated with new content)."""
    return int(conn.execute(select(func.coalesce(func.sum(Item.revision), 0)).where(
        Item.rubric_ref == rubric_ref, Item.grp == grp)).scalar_one())
