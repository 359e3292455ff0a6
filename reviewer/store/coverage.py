"""Coverage: who has reviewed an item's current content, whether they entered the scores in the
review screen or they came in with an import.

A person's review of an item is complete when they have a current score on every dimension a
person scores (``Rubric.review_complete``; ``review: partial: true`` relaxes it to any one). The
item's ``n_reviewed`` counts the people with a complete review of its current content revision,
and the queues serve it until it has as many as the queue asks for.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlmodel import col

from reviewer.domain import HumanDim, HumanRow, complete_reviews, fold_human, scored_by
from reviewer.store.queue import refresh_triage_keys
from reviewer.store.tables import HumanScore, Item


def _humans(conn: Any, item_pk: int) -> dict[str, HumanDim]:
    """People's side of the item's fold (its current content revision's human rows)."""
    rows = conn.execute(
        select(col(HumanScore.pk), col(HumanScore.reviewer), col(HumanScore.dimension), col(HumanScore.score), col(HumanScore.kind))
        .join(Item, (col(Item.pk) == col(HumanScore.item_pk)) & (col(Item.revision) == col(HumanScore.revision)))
        .where(col(HumanScore.item_pk) == item_pk).order_by(col(HumanScore.pk))).all()
    return fold_human(HumanRow(pk, dim, who, score, kind) for pk, who, dim, score, kind in rows)


def scored_dimensions(conn: Any, item_pk: int) -> dict[str, set[str]]:
    """Per person, the dimensions they hold a current score on (on the item's current content),
    as the item's fold has them (:func:`reviewer.domain.scored_by`: an undo takes back the latest
    standing row; a lead's adjudication settles a dimension but is not a review)."""
    return scored_by(_humans(conn, item_pk))


def refresh_coverage(conn: Any, rubric: Any, item_pk: int) -> dict[str, set[str]]:
    """Recount the item's complete reviews (:func:`reviewer.domain.complete_reviews`) into
    ``n_reviewed`` (and its triage key); returns what :func:`scored_dimensions` finds."""
    humans = _humans(conn, item_pk)
    n = complete_reviews(rubric, humans)
    conn.execute(update(Item).where(col(Item.pk) == item_pk, col(Item.n_reviewed) != n).values(n_reviewed=n))
    refresh_triage_keys(conn, "pk = :pk", {"pk": item_pk})
    return scored_by(humans)


def recount_all(conn: Any) -> None:
    """Every item's ``n_reviewed`` from its human scores (a migration step: databases from before
    imported reviews counted hold 0 for items people already scored in an import)."""
    from reviewer.store.tables import RubricVersion
    from rubrics.loader import load_rubric_text

    texts = {f"{rid}@{v}": t for rid, v, t in conn.execute(
        select(col(RubricVersion.rubric_id), col(RubricVersion.version), col(RubricVersion.yaml_text)))}
    rows_of: dict[int, list[HumanRow]] = {}
    refs: dict[int, str] = {}
    rows = conn.execute(
        select(col(HumanScore.item_pk), col(HumanScore.pk), col(HumanScore.reviewer), col(HumanScore.dimension), col(HumanScore.score),
               col(HumanScore.kind), col(Item.rubric_ref))
        .join(Item, (col(Item.pk) == col(HumanScore.item_pk)) & (col(Item.revision) == col(HumanScore.revision)))
        .order_by(col(HumanScore.pk)))
    for item_pk, pk, who, dim, score, kind, ref in rows:
        refs[item_pk] = ref
        rows_of.setdefault(item_pk, []).append(HumanRow(pk, dim, who, score, kind))
    rubrics = {ref: load_rubric_text(texts[ref], ref) for ref in set(refs.values()) if ref in texts}
    for pk, hr in rows_of.items():
        rubric = rubrics.get(refs[pk])
        if rubric is None:
            continue
        n = complete_reviews(rubric, fold_human(hr))
        conn.execute(update(Item).where(col(Item.pk) == pk, col(Item.n_reviewed) < n).values(n_reviewed=n))
    if rows_of:
        refresh_triage_keys(conn, "1 = 1", {})
