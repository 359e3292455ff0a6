"""The tidy score table: one row per item × dimension × scorer (each judge model, each person),
with where the score came from. It is what ``rubricate export --format parquet`` writes and what
``export --to langfuse`` reads (docs/formats.md, "Tidy export"); a DataFrame of scores is these
rows too, so every reader of "the scores, one per row" reads this one rule.

Which scores stand is the fold's rule (:mod:`reviewer.domain`), as in the JSON Lines export: per
judge model its latest item-level score on the item's current content revision; per person
their standing scores (the current revision's votes and a lead's adjudication, then each earlier
revision's). The table is built as columns, a batch of items at a time
(:mod:`reviewer.services.tidy_build`): a million scores take seconds, not a Python object each.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, cast

if TYPE_CHECKING:  # (the store's class, for its type alone: importing it loads SQLAlchemy)
    import pyarrow as pa

    from reviewer.store import Store

#: The item metadata key that names the item's trace in a tracing tool (Langfuse, LangSmith):
#: ``import --from langfuse`` writes it; any item file may carry it.
TRACE_KEY = "trace_id"

#: Items per batch: their rows are read and built into one Arrow table at a time.
BATCH = 20_000

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


def tidy_schema() -> pa.Schema:
    """The Arrow schema of :data:`TIDY_COLUMNS`."""
    import pyarrow as pa

    types = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_(),
             "list<string>": pa.list_(pa.string()), "timestamp[us, UTC]": pa.timestamp("us", tz="UTC")}
    return pa.schema([pa.field(name, types[kind]) for name, kind, _ in TIDY_COLUMNS])


def tidy_tables(store: Store, rubric_ref: str | None = None, dataset: str | None = None) -> Iterator[pa.Table]:
    """The tidy table of a rubric's items (every rubric's without one; ``dataset``: only its
    items) as Arrow tables, one per batch of :data:`BATCH` items, in the order of
    :mod:`reviewer.services.tidy_build`. pyarrow is imported here, when the table is asked for."""
    from reviewer.services.tidy_build import batch_table

    schema = tidy_schema()
    for batch in store.tidy.tidy_batches(rubric_ref, dataset, BATCH):
        yield batch_table(batch, store.rubrics.get_rubric, schema, store.marks.marks(batch.items.pk.tolist()))


def tidy_rows(store: Store, rubric_ref: str | None = None, dataset: str | None = None) -> Iterator[TidyRow]:
    """The tidy table's rows one by one (what a row-by-row reader such as the Langfuse export
    takes), from :func:`tidy_tables`."""
    for table in tidy_tables(store, rubric_ref, dataset):
        for row in table.to_pylist():
            yield cast(TidyRow, row)


#: Rows per Parquet row group.
ROW_GROUP = 50_000


def write_parquet(store: Store, out: Path, rubric_ref: str | None = None, dataset: str | None = None) -> int:
    """Write the tidy rows to ``out`` as Parquet (the column types of :data:`TIDY_COLUMNS`);
    the number of rows. The file appears whole or not at all: written beside ``out`` first,
    then renamed over it. pyarrow is imported here, only when Parquet is asked for."""
    import pyarrow.parquet as pq

    schema = tidy_schema()
    part = out.with_name(f".{out.name}.{os.getpid()}.part")
    n = 0
    try:
        with pq.ParquetWriter(part, schema) as writer:
            for table in tidy_tables(store, rubric_ref, dataset):
                writer.write_table(table, row_group_size=ROW_GROUP)
                n += table.num_rows
            if not n:
                writer.write_table(schema.empty_table())  # (the schema alone: no item)
        part.replace(out)
    finally:
        part.unlink(missing_ok=True)
    return n
