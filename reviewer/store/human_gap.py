"""The backfills of the item's stored judge–people gap (``item.human_gap``,
:func:`reviewer.domain.human_gap` of its fold) for databases from before it. From then on it is
written with every write that can change it: a person's score, undo or adjudication
(:func:`reviewer.store.coverage.refresh_coverage`), a judge run
(:meth:`reviewer.store.judging.Runs.refresh_summaries`) and an import, from the file's own
rows (:func:`reviewer.store.import_values.people_gap`). The judge's headline score
(``item.judge_headline``) is backfilled the same way and written with the judge's overall."""

from __future__ import annotations

from typing import Any

from sqlalchemy import exists, select, update
from sqlmodel import col

from reviewer.domain import fold_item, human_gap
from reviewer.store.fold import item_rows
from reviewer.store.tables import HumanScore, Item, RubricVersion
from rubrics.schema import Rubric

#: Items folded per read.
CHUNK = 1000


def backfill_gaps(conn: Any) -> int:
    """Every item's ``human_gap`` from its fold, a chunk of items at a time, by key (a migration
    step; only an item with a human score can have one). Returns how many items were folded."""
    from rubrics.loader import load_rubric_text

    texts = {f"{rid}@{v}": t for rid, v, t in conn.execute(
        select(col(RubricVersion.rubric_id), col(RubricVersion.version), col(RubricVersion.yaml_text)))}
    loaded: dict[str, Rubric] = {}
    scored = exists().where(col(HumanScore.item_pk) == col(Item.pk))
    last, n = 0, 0
    while True:
        items = conn.execute(select(col(Item.pk), col(Item.revision), col(Item.rubric_ref))
                             .where(col(Item.pk) > last, scored, col(Item.rubric_ref).in_(list(texts)))
                             .order_by(col(Item.pk)).limit(CHUNK)).all()
        if not items:
            return n
        rows = item_rows(conn, [(pk, rev) for pk, rev, _ in items], flags=False)
        for pk, _, ref in items:
            if ref not in loaded:
                loaded[ref] = load_rubric_text(texts[ref], ref)
            gap = human_gap(loaded[ref], fold_item(loaded[ref], rows[pk]).dims)
            if gap is not None:
                conn.execute(update(Item).where(col(Item.pk) == pk).values(human_gap=gap))
        last, n = items[-1][0], n + len(items)


def backfill_headlines(conn: Any) -> int:
    """Every item's ``judge_headline`` (its judge-only fold's headline score) and ``judge_band``
    (that score's band; both None where the item has no headline score, as a judge run writes
    them) in the rubrics that name a headline, a chunk of items at a time, by key (a migration
    step). Returns how many items were folded."""
    from reviewer.domain import judge_only
    from rubrics.loader import load_rubric_text

    loaded = {f"{rid}@{v}": load_rubric_text(t, f"{rid}@{v}") for rid, v, t in conn.execute(
        select(col(RubricVersion.rubric_id), col(RubricVersion.version), col(RubricVersion.yaml_text)))}
    named = {ref: r for ref, r in loaded.items() if r.headline is not None}
    last, n = 0, 0
    while named:
        items = conn.execute(select(col(Item.pk), col(Item.revision), col(Item.rubric_ref))
                             .where(col(Item.pk) > last, col(Item.rubric_ref).in_(list(named)))
                             .order_by(col(Item.pk)).limit(CHUNK)).all()
        if not items:
            break
        rows = item_rows(conn, [(pk, rev) for pk, rev, _ in items], flags=False)
        for pk, _, ref in items:
            agg = judge_only(named[ref], fold_item(named[ref], rows[pk]))
            # written when None too: a live judge run writes no headline and no band then, and
            # the band left from before would be the overall's
            conn.execute(update(Item).where(col(Item.pk) == pk).values(
                judge_headline=agg.headline, judge_band=agg.item_band.label if agg.item_band else None))
        last, n = items[-1][0], n + len(items)
    return n
