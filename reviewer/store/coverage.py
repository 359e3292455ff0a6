"""Coverage: who has reviewed an item's current content, whether they entered the scores in the
review screen or they came in with an import; and, from the same fold, how far the judge is from
the people on it.

A person's review of an item is complete when they have a current score on every dimension a
person scores (``Rubric.review_complete``; ``review: partial: true`` relaxes it to any one). The
item's ``n_reviewed`` counts the people with a complete review of its current content revision,
and the queues serve it until it has as many as the queue asks for. Its ``n_labelled`` counts
the same of the reviews made of labels alone (:mod:`reviewer.domain.labels`: a score given in
triage is not one), which the audit queue counts instead. Its ``human_gap``
(:func:`reviewer.domain.human_gap`: the largest |judge − people| on a dimension, normalised) is
rewritten with it after every person's write, for the queue list's "judge and people disagree"
filter.
"""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import Float, Integer, bindparam, or_, select, update
from sqlmodel import col

from reviewer.domain import (
    HumanRow,
    complete_reviews,
    dim_folds,
    fold_human,
    human_gap,
    scored_by,
    sides,
)
from reviewer.store.fold import current_rows, label_rows
from reviewer.store.queue import refresh_triage_keys
from reviewer.store.tables import HumanScore, Item


def refresh_coverage(conn: Any, rubric: Any, item_pk: int, revision: int | None = None) -> dict[str, set[str]]:
    """Recount the item's complete reviews (:func:`reviewer.domain.complete_reviews`) into
    ``n_reviewed`` (and its triage key), those of its labels alone into ``n_labelled``, and its
    judge–people gap into ``human_gap``, all from the
    fold of its current content (``revision``: the item's, when the caller has read it); returns
    per person the dimensions they hold a current score on (:func:`reviewer.domain.scored_by`: an
    undo takes back the latest standing row; a lead's adjudication settles a dimension but is not
    a review)."""
    if revision is None:
        revision = conn.execute(select(col(Item.revision)).where(col(Item.pk) == item_pk)).scalar_one()
    rows, labels = current_rows(conn, item_pk, revision)
    humans, judges = sides(rubric, rows)
    n = complete_reviews(rubric, humans)
    # the labels' own fold, unless they are none or all of the rows (the usual cases: a triage
    # item, an audit one): then it is the empty fold's 0 or the one just counted
    labelled = (0 if not labels else n if len(labels) == len(rows.human)
                else complete_reviews(rubric, fold_human(r for r in rows.human if r.pk in labels)))
    gap = human_gap(rubric, dim_folds(rubric, humans, judges))
    conn.execute(_write_statement(), {"item": item_pk, "new_n": n, "new_labelled": labelled, "new_gap": gap})
    refresh_triage_keys(conn, "pk = :pk", {"pk": item_pk})
    return scored_by(humans)


@functools.cache
def _write_statement() -> Any:
    """The item's ``n_reviewed``, ``n_labelled`` and ``human_gap``, where any changed (built once:
    it runs on every person's write, and building it costs more than running it)."""
    n, gap = bindparam("new_n", type_=Integer), bindparam("new_gap", type_=Float)
    labelled = bindparam("new_labelled", type_=Integer)
    return (update(Item).where(col(Item.pk) == bindparam("item"),
                               or_(col(Item.n_reviewed) != n, col(Item.n_labelled) != labelled,
                                   col(Item.human_gap).is_distinct_from(gap)))
            .values(n_reviewed=n, n_labelled=labelled, human_gap=gap))


def recount_all(conn: Any, labels: bool = False) -> None:
    """Every item's ``n_reviewed`` from its human scores (a migration step: databases from before
    imported reviews counted hold 0 for items people already scored in an import); ``labels``:
    its ``n_labelled`` from its labels alone (:func:`label_rows`; databases from before the audit
    queue counted labels hold 0)."""
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
        .where(*([label_rows()] if labels else []))
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
        count = col(Item.n_labelled) if labels else col(Item.n_reviewed)
        conn.execute(update(Item).where(col(Item.pk) == pk, count < n).values({count: n}))
    if rows_of and not labels:  # the triage key reads n_reviewed only
        refresh_triage_keys(conn, "1 = 1", {})
