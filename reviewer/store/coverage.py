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

from reviewer.store.queue import refresh_triage_keys
from reviewer.store.tables import HumanScore, Item


def scored_dimensions(conn: Any, item_pk: int) -> dict[str, set[str]]:
    """Per person, the dimensions they hold a current score on (on the item's current content;
    an undo takes one back; a lead's adjudication settles a dimension but is not a review)."""
    rows = conn.execute(
        select(col(HumanScore.reviewer), col(HumanScore.dimension), col(HumanScore.score), col(HumanScore.kind))
        .join(Item, (col(Item.pk) == col(HumanScore.item_pk)) & (col(Item.revision) == col(HumanScore.revision)))
        .where(col(HumanScore.item_pk) == item_pk).order_by(col(HumanScore.pk))).all()
    out: dict[str, set[str]] = {}
    for who, dim, score, kind in rows:
        if kind == "adjudication":
            continue
        if kind == "undo" or score is None:
            out.get(who, set()).discard(dim)
        else:
            out.setdefault(who, set()).add(dim)
    return out


def refresh_coverage(conn: Any, rubric: Any, item_pk: int) -> dict[str, set[str]]:
    """Recount the item's complete reviews into ``n_reviewed`` (and its triage key); returns
    what :func:`scored_dimensions` found."""
    scored = scored_dimensions(conn, item_pk)
    n = sum(1 for dims in scored.values() if rubric.review_complete(dims))
    conn.execute(update(Item).where(col(Item.pk) == item_pk, col(Item.n_reviewed) != n).values(n_reviewed=n))
    refresh_triage_keys(conn, "pk = :pk", {"pk": item_pk})
    return scored


def recount_all(conn: Any) -> None:
    """Every item's ``n_reviewed`` from its human scores (a migration step: databases from before
    imported reviews counted hold 0 for items people already scored in an import)."""
    from reviewer.store.tables import RubricVersion
    from rubrics.loader import load_rubric_text

    texts = {f"{rid}@{v}": t for rid, v, t in conn.execute(
        select(col(RubricVersion.rubric_id), col(RubricVersion.version), col(RubricVersion.yaml_text)))}
    scored: dict[int, dict[str, set[str]]] = {}
    refs: dict[int, str] = {}
    rows = conn.execute(
        select(col(HumanScore.item_pk), col(HumanScore.reviewer), col(HumanScore.dimension),
               col(HumanScore.score), col(HumanScore.kind), col(Item.rubric_ref))
        .join(Item, (col(Item.pk) == col(HumanScore.item_pk)) & (col(Item.revision) == col(HumanScore.revision)))
        .order_by(col(HumanScore.pk)))
    for pk, who, dim, score, kind, ref in rows:
        refs[pk] = ref
        if kind == "adjudication":
            continue
        mine = scored.setdefault(pk, {}).setdefault(who, set())
        if kind == "undo" or score is None:
            mine.discard(dim)
        else:
            mine.add(dim)
    rubrics = {ref: load_rubric_text(texts[ref], ref) for ref in set(refs.values()) if ref in texts}
    for pk, by in scored.items():
        rubric = rubrics.get(refs[pk])
        if rubric is None:
            continue
        n = sum(1 for dims in by.values() if rubric.review_complete(dims))
        conn.execute(update(Item).where(col(Item.pk) == pk, col(Item.n_reviewed) < n).values(n_reviewed=n))
    if scored:
        refresh_triage_keys(conn, "1 = 1", {})
