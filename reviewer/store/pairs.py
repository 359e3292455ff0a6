"""Pair choices: which of two items sharing a ``group`` a reviewer judged better, or a tie, with
an optional reason and quick tags.

A group of more than two items is compared a pair at a time (the review screen cycles through the
partners), so each choice names the two items it was made on; rows from before that (no pair
named) belong to the group's first pair, its first two items by variant and key. Choices are
append-only (a trigger refuses UPDATE and DELETE): a reviewer who changes their mind, or adds a
reason, adds a row, and their current choice on a pair is their latest one for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import func, select
from sqlmodel import col

from reviewer.domain.provenance import iso
from reviewer.errors import UserError
from reviewer.store.base import inserted_pk, records
from reviewer.store.roles import RolesMixin
from reviewer.store.tables import Item, PairChoice, table_of
from reviewer.store.views import PairChoiceRecord


class PairsMixin(RolesMixin):
    """Pairwise preferences between the items of a group."""

    def add_pair_choice(self, item_pk: int, reviewer: str, winner_item_pk: int | None,
                        reason: str | None = None, tags: Iterable[str] = (),
                        partner_pk: int | None = None) -> int:
        """Record that ``reviewer`` prefers ``winner_item_pk`` (None: a tie) of ``item_pk`` and
        ``partner_pk``, two items of one group (``partner_pk`` may be left out in a group of
        two); ``reason`` and ``tags`` say why."""
        tags = [str(t) for t in tags]
        with self.write() as conn:
            signed = self._sign(conn, reviewer)
            row = conn.execute(select(col(Item.grp), col(Item.rubric_ref)).where(col(Item.pk) == item_pk)).first()
            if row is None:
                raise UserError(f"no item with key {item_pk}")
            grp, ref = row
            if grp is None:
                raise UserError(f"item {item_pk} has no group: there is no pair to choose from")
            members = _members(conn, ref, [grp])[grp]
            if winner_item_pk is not None and winner_item_pk not in members:
                raise UserError(f"item {winner_item_pk} is not in group {grp!r}")
            if partner_pk is None:
                others = [pk for pk in members if pk != item_pk]
                if len(others) != 1:
                    raise UserError(f"group {grp!r} has {len(members)} items: name the partner the choice was made on")
                partner_pk = others[0]
            if partner_pk == item_pk or partner_pk not in members:
                raise UserError(f"item {partner_pk} is not another item of group {grp!r}")
            if winner_item_pk is not None and winner_item_pk not in (item_pk, partner_pk):
                raise UserError(f"item {winner_item_pk} is not one of the pair compared ({item_pk}, {partner_pk})")
            a, b = sorted((item_pk, partner_pk))
            result = conn.execute(table_of(PairChoice).insert().values(
                grp=grp, rubric_ref=ref, reviewer=reviewer, winner_item_pk=winner_item_pk, reason=reason or None,
                tags=tags, item_a_pk=a, item_b_pk=b, revision=_group_revision(conn, ref, grp), **signed))
            return inserted_pk(result)

    def pair_choice_rows(self, rubric_ref: str, group: str | None = None,
                         all_revisions: bool = False) -> list[PairChoiceRecord]:
        """Each reviewer's current choice on each pair (their latest row for it), oldest first.
        Choices made before any item of the group changed are left out unless ``all_revisions``."""
        q = select(PairChoice).where(col(PairChoice.rubric_ref) == rubric_ref)
        if group is not None:
            q = q.where(col(PairChoice.grp) == group)
        latest: dict[tuple[str, int, int, str], PairChoiceRecord] = {}
        with self.read() as conn:
            rows = records(conn, q.order_by(col(PairChoice.pk)))
            groups = sorted({r.grp for r in rows})
            current = {} if all_revisions else {g: _group_revision(conn, rubric_ref, g) for g in groups}
            first = {g: m[:2] for g, m in _members(conn, rubric_ref, groups).items()}
            for r in rows:
                if not all_revisions and r.revision != current[r.grp]:
                    continue
                if r.item_a_pk is not None and r.item_b_pk is not None:
                    a, b = r.item_a_pk, r.item_b_pk
                elif len(first.get(r.grp, [])) == 2:  # from before pairs were named: the first pair
                    a, b = sorted(first[r.grp])
                else:
                    continue
                latest[(r.grp, a, b, r.reviewer)] = PairChoiceRecord(
                    r.pk, r.grp, r.reviewer, a, b, r.winner_item_pk, r.reason, tuple(r.tags or ()), r.created_at,
                    r.kind)
        return sorted(latest.values(), key=lambda c: c.pk)

    def pair_choices(self, rubric_ref: str, group: str | None = None,
                     all_revisions: bool = False) -> dict[str, dict[str, int | None]]:
        """Per group, each reviewer's latest choice on any of its pairs: the winner's item key, or
        None for a tie (in a group of two, their choice on the pair)."""
        out: dict[str, dict[str, int | None]] = {}
        for c in self.pair_choice_rows(rubric_ref, group, all_revisions):  # oldest first: later rows win
            out.setdefault(c.group, {})[c.reviewer] = c.winner_item_pk
        return out

    def pair_choices_by_item(self, rubric_refs: Iterable[str]) -> dict[int, list[dict[str, Any]]]:
        """For the export: per item key, the current choices on the pairs it is in, as
        ``{reviewer, partner, winner, reason, tags, created_at, kind}`` (``partner`` and ``winner``
        are item ids, ``winner`` null for a tie; ``created_at`` ISO 8601, UTC; ``kind``
        ``choice`` when made in the review screen, ``import`` when an item file carried it)."""
        choices = [c for ref in sorted(set(rubric_refs)) for c in self.pair_choice_rows(ref)]
        pks = sorted({pk for c in choices for pk in (c.item_a_pk, c.item_b_pk)})
        with self.read() as conn:
            ids = item_ids(conn, pks)
        out: dict[int, list[dict[str, Any]]] = {}
        for c in choices:
            for me, other in ((c.item_a_pk, c.item_b_pk), (c.item_b_pk, c.item_a_pk)):
                out.setdefault(me, []).append({
                    "reviewer": c.reviewer, "partner": ids.get(other),
                    "winner": None if c.winner_item_pk is None else ids.get(c.winner_item_pk),
                    "reason": c.reason, "tags": list(c.tags),
                    "created_at": iso(c.created_at), "kind": c.kind})
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
