"""The tidy score table: one row per item × dimension × scorer (each judge model, each person),
with where the score came from. It is what ``rubricate export --format parquet`` writes and what
``export --to langfuse`` reads (docs/formats.md, "Tidy export"); a DataFrame of scores is these
rows too, so every reader of "the scores, one per row" reads this one rule.

Which scores stand is the fold's rule (:mod:`reviewer.domain`), as in the JSON Lines export: per
judge model its latest item-level score on the item's current content revision; per person
their standing scores (:func:`reviewer.domain.provenance.human_records`: the current revision's
votes and a lead's adjudication, then each earlier revision's).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypedDict

from reviewer.domain import NO_MODEL
from reviewer.domain.marks import Mark, mark_records
from reviewer.domain.provenance import as_utc, human_records

if TYPE_CHECKING:  # (the store's class, for its type alone: importing it loads SQLAlchemy)
    from reviewer.domain.item import ItemFold
    from reviewer.store import Store
    from reviewer.store.judge_details import JudgeDetail
    from rubrics.schema import Rubric

#: The item metadata key that names the item's trace in a tracing tool (Langfuse, LangSmith):
#: ``import --from langfuse`` writes it; any item file may carry it.
TRACE_KEY = "trace_id"

#: Items folded per batch: their judge details are read in one query per batch.
BATCH = 2000

#: The columns, in order: (name, Arrow type, meaning). docs/formats.md ("Tidy export") lists them.
TIDY_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("rubric", "string", "the rubric, ID@VERSION"),
    ("dataset", "string", "the item's dataset"),
    ("item_id", "string", "the item's id"),
    ("revision", "int64", "the item's content revision the score belongs to"),
    ("current_revision", "bool", "whether that is the item's current revision"),
    ("dimension", "string", "the dimension's id"),
    ("scorer_type", "string", "judge or human"),
    ("scorer", "string", "the judge model, or the reviewer (the score's author)"),
    ("kind", "string", "judge: the run's source (judge, import); human: score, agree, revision, import "
                       "or adjudication"),
    ("score", "float64", "the score on the dimension's raw scale; null for a judge error or not applicable"),
    ("normalised", "float64", "the score on [0, 1]"),
    ("reason", "string", "the judge's rationale or the person's reason; null when none"),
    ("error", "string", "judge: why it gave no score; else null"),
    ("not_applicable", "bool", "judge: the dimension does not apply to the item"),
    ("tags", "list<string>", "human: the quick tags; empty for the judge"),
    ("blind", "bool", "human: given before the judge was shown; null for the judge"),
    ("run", "int64", "judge: the run's key (`rubricate judge --report RUN`); null for people"),
    ("created_at", "timestamp[us, UTC]", "when the score was written"),
    ("trace_id", "string", "the item's `metadata.trace_id` when it is text, else null"),
    ("metadata", "string", "the item's metadata as JSON text"),
    ("marks", "string", "human: the person's span marks on the dimension on that revision, as JSON text "
                        "(a list of {start, end, text, dimension, author, revision, ...}); `[]` for the judge"),
)


class StoredItem(Protocol):
    """The item columns the tidy rows read (an item row of :meth:`Store.items.item_folds`)."""

    pk: int
    item_id: str
    dataset: str
    rubric_ref: str
    meta: object


class TidyRow(TypedDict):
    """One row of the tidy table (the columns of :data:`TIDY_COLUMNS`)."""

    rubric: str
    dataset: str
    item_id: str
    revision: int
    current_revision: bool
    dimension: str
    scorer_type: str
    scorer: str
    kind: str
    score: float | None
    normalised: float | None
    reason: str | None
    error: str | None
    not_applicable: bool
    tags: list[str]
    blind: bool | None
    run: int | None
    created_at: datetime | None
    trace_id: str | None
    metadata: str
    marks: str


def trace_id(meta: object) -> str | None:
    """The item's trace id: its metadata's ``trace_id`` when that is non-empty text."""
    value = meta.get(TRACE_KEY) if isinstance(meta, dict) else None
    return value if isinstance(value, str) and value else None


def tidy_rows(store: Store, rubric_ref: str | None = None, dataset: str | None = None) -> Iterator[TidyRow]:
    """The tidy rows of a rubric's items (every rubric's without one; ``dataset``: only its
    items), item by item in key order, each item's dimensions in the rubric's order."""
    batch: list[tuple[StoredItem, ItemFold]] = []
    for pair in store.items.item_folds(rubric_ref, dataset):
        batch.append(pair)
        if len(batch) >= BATCH:
            yield from _batch_rows(store, batch)
            batch = []
    yield from _batch_rows(store, batch)


def _batch_rows(store: Store, batch: list[tuple[StoredItem, ItemFold]]) -> Iterator[TidyRow]:
    details = store.runs.judge_details(r.pk for _, fold in batch for f in fold.dims.values()
                                  for r in f.judge.models.values())
    marks = store.marks.marks(it.pk for it, _ in batch)
    for it, fold in batch:
        yield from item_rows(it, fold, store.rubrics.get_rubric(it.rubric_ref), details, marks.get(it.pk, []))


def item_rows(it: StoredItem, fold: ItemFold, rubric: Rubric, details: dict[int, JudgeDetail],
              marks: list[Mark] | None = None) -> Iterator[TidyRow]:
    """One item's tidy rows (``it``: its stored row; ``details``: judge scores' provenance by key;
    ``marks``: its span marks, each on the row of its author, dimension and revision)."""
    meta = it.meta or {}
    records = mark_records(marks or [], fold.revision)
    trace, meta_text = trace_id(meta), json.dumps(meta, ensure_ascii=False, sort_keys=True)
    for dim in rubric.dimensions:
        f = fold.dims.get(dim.id)
        if f is None:
            continue
        scale = dim.judge_scale or dim.scale
        for model, j in sorted(f.judge.models.items()):
            d = details.get(j.pk)
            norm = j.normalised if j.normalised is not None else (
                scale.normalise(j.score) if j.score is not None else None)
            yield TidyRow(rubric=it.rubric_ref, dataset=it.dataset, item_id=it.item_id, revision=fold.revision, current_revision=True, dimension=dim.id,
                          scorer_type="judge", scorer=model or NO_MODEL, kind=d.source if d else "judge",
                          score=j.score, normalised=norm, reason=(d.rationale or None) if d else None,
                          error=j.error, not_applicable=j.not_applicable, tags=[], blind=None,
                          run=d.run if d else None, created_at=as_utc(d.created_at) if d else None,
                          trace_id=trace, metadata=meta_text, marks="[]")
        for h in human_records(fold, dim.id):
            own = [m for m in records if m["author"] == h["reviewer"] and m["dimension"] == dim.id
                   and m["revision"] == h["revision"]]
            score = h["score"]
            yield TidyRow(rubric=it.rubric_ref, dataset=it.dataset, item_id=it.item_id, revision=h["revision"], current_revision=h["current_revision"],
                          dimension=dim.id, scorer_type="human", scorer=h["reviewer"], kind=h["kind"],
                          score=score, normalised=dim.scale.normalise(score) if score is not None else None,
                          reason=h["reason"], error=None, not_applicable=False, tags=list(h["tags"]),
                          blind=h["blind"], run=None,
                          created_at=datetime.fromisoformat(h["created_at"]) if h["created_at"] else None,
                          trace_id=trace, metadata=meta_text, marks=json.dumps(own, ensure_ascii=False))


#: Rows per Parquet row group (and per Arrow table built in memory at a time).
ROW_GROUP = 50_000


def write_parquet(store: Store, out: Path, rubric_ref: str | None = None, dataset: str | None = None) -> int:
    """Write the tidy rows to ``out`` as Parquet (the column types of :data:`TIDY_COLUMNS`);
    the number of rows. The file appears whole or not at all: written beside ``out`` first,
    then renamed over it. pyarrow is imported here, only when Parquet is asked for."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_(),
             "list<string>": pa.list_(pa.string()), "timestamp[us, UTC]": pa.timestamp("us", tz="UTC")}
    schema = pa.schema([pa.field(name, types[kind]) for name, kind, _ in TIDY_COLUMNS])
    part = out.with_name(f".{out.name}.{os.getpid()}.part")
    n = 0
    try:
        with pq.ParquetWriter(part, schema) as writer:
            chunk: list[TidyRow] = []
            for row in tidy_rows(store, rubric_ref, dataset):
                chunk.append(row)
                if len(chunk) >= ROW_GROUP:
                    writer.write_table(pa.Table.from_pylist(chunk, schema=schema))
                    n += len(chunk)
                    chunk = []
            writer.write_table(pa.Table.from_pylist(chunk, schema=schema))  # (an empty table: the schema alone)
            n += len(chunk)
        part.replace(out)
    finally:
        part.unlink(missing_ok=True)
    return n
