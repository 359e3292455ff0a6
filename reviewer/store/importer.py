"""Import and export helpers of the items door (:class:`reviewer.store.items.Items`): one
transaction per file, bulk inserts through SQLAlchemy Core, an item's export record from its fold."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import select
from sqlmodel import col

from reviewer.store.tables import Item
from rubrics.aggregate import ItemScore
from rubrics.schema import Rubric

Progress = Callable[[int, int], None]
#: The tables an import writes most rows into, its scores (their plain indexes built at the end:
#: :func:`deferred_indexes`). The item table's indexes are kept up to date as the rows go in: a
#: fifth as many rows, written while the reader process reads the next batch anyway, where a
#: rebuild would add to the time after the last one.
IMPORTED_TABLES = ("judge_score", "human_score")


def turn_rows(by_turn: dict[tuple[str | None, int], Any], how: str = "mean") -> list[dict[str, Any]]:
    """A turn-level dimension's turn scores for export: per turn, the panel's models' scores and
    the panel's score on the turn (the one panel rule, ``how``: the rubric's
    ``judge.panel_aggregate``; one model: its score), or the error, or not applicable."""
    from reviewer.domain import NO_MODEL
    from rubrics.aggregate import panel_score

    out: dict[int, dict[str, Any]] = {}
    for (model, turn), j in sorted(by_turn.items(), key=lambda kv: (kv[0][1], kv[0][0] or "")):
        row = out.setdefault(turn, {"turn": turn, "scores": {}})
        if j.score is not None:
            row["scores"][model or NO_MODEL] = j.score
        elif j.error:
            row["error"] = j.error
        else:
            row["not_applicable"] = True
    rows = list(out.values())
    for row in rows:
        row["score"] = panel_score(list(row["scores"].values()), how)
    return rows


def headline_of(agg: ItemScore) -> dict[str, Any]:
    """The rubric's headline as the item's top-level score (on [0, 1]) and band, as the item's
    aggregate (:func:`rubrics.aggregate.score_item`) worked it out."""
    return {"dimension": agg.headline_dim, "score": agg.headline,
            "band": agg.headline_band.label if agg.headline_band else None}


def _no_check() -> None:
    return None


@contextmanager
def paused_gc() -> Iterator[None]:
    """Hold the cyclic garbage collector while a large file is read and written: the rows are
    long-lived, and repeated full collections over them cost more than the import itself."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def export_row(it: Any, fold: Any, rubric: Rubric,
               turns: dict[str, dict[tuple[str | None, int], Any]] | None = None,
               comments: list[Any] | None = None, stated: dict[str, float] | None = None,
               corrections: list[Any] | None = None) -> dict[str, Any]:
    """One item's export record from its fold (``turns``: its turn-level judge rows;
    ``comments``: its comments, oldest first; ``stated``: per model, the overall the judge stated
    itself, exported beside the computed overall as ``judge_stated_overall``; ``corrections``:
    its corrected answers, oldest first)."""
    from reviewer.domain import judge_only
    from reviewer.domain.provenance import comment_records, correction_records, human_records

    dims = {}
    turns = turns or {}
    for dim_id, f in fold.dims.items():
        judge = f.judge
        dims[dim_id] = {"effective": f.effective, "source": f.source, "state": f.state, "judge": judge.panel,
                        "judge_error": judge.error,
                        "human": {w: v.score for w, v in sorted(f.human.votes.items())},
                        "adjudication": f.human.adjudication.score if f.human.adjudication else None,
                        "bias": f.bias, "human_scores": human_records(fold, dim_id)}
        if len(judge.models) > 1:  # a panel: each model's score and how far apart (normalised)
            dims[dim_id].update(judge_models=judge.scores, judge_spread=judge.spread)
        by_turn = turns.get(dim_id)
        if by_turn:  # a turn-level dimension: each turn's score and the rule that rolled them up
            dims[dim_id].update(turns=turn_rows(by_turn, rubric.judge.panel_aggregate), turn_aggregate=rubric.dimension(dim_id).turn_aggregate)
    agg, alone = fold.score, judge_only(rubric, fold)
    return {"id": it.item_id, "dataset": it.dataset, "rubric": it.rubric_ref, "revision": fold.revision,
            "dimensions": dims, "overall": agg.overall, "band": agg.band.label if agg.band else None,
            "passed": agg.passed, "incomplete": agg.reason if agg.overall is None else None,
            "capped_by": list(agg.capped_by), "judge_overall": alone.overall,
            "safety": fold.safety.status, "metadata": it.meta or {}, "group": it.grp,
            "comments": comment_records(comments or [], fold.revision),
            "corrections": correction_records(corrections or [], fold.revision),
            **({"headline": headline_of(agg)} if agg.headline_dim is not None else {}),
            **({"judge_stated_overall": dict(sorted(stated.items()))} if stated else {})}


def _stored_content(conn: Any, pks: list[int]) -> dict[int, tuple[Any, ...]]:
    """The stored content of these items, in CONTENT_COLUMNS order (see :func:`build_batches`)."""
    q = select(col(Item.pk), col(Item.input), col(Item.output), col(Item.context), col(Item.reference),
               col(Item.conversation), col(Item.grp), col(Item.variant), col(Item.meta), col(Item.gold)
               ).where(col(Item.pk).in_(pks))
    return {row[0]: tuple(row[1:]) for row in conn.execute(q)}


def _existing(conn: Any, ref: str, ds: str, ids: list[str]) -> dict[str, tuple[int, str, int]]:
    """(pk, content hash, revision) of the ids already stored in this rubric and dataset."""
    q = select(col(Item.item_id), col(Item.pk), col(Item.content_hash), col(Item.revision)).where(
        col(Item.rubric_ref) == ref, col(Item.dataset) == ds, col(Item.item_id).in_(ids))
    return {a: (b, c, d) for a, b, c, d in conn.execute(q)}
