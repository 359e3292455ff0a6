"""The read side of an import: checked rows (handed in by an :class:`ItemSource`, e.g.
:class:`reviewer.io.itemfile.ItemFile`; the store never parses a file) turned into batches of
database-ready tuples.

A large first import into SQLite reads and checks the file in a forked child process while this
process writes the batches it sends: parsing JSON and inserting rows each take about half the
time, and SQLite cannot share a connection across processes, so the work splits along that line.
The child only reads the file; everything is written by the parent, in one transaction.
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from reviewer.domain.records import Row
from reviewer.store.bulk import json_text
from rubrics.schema import Dimension, Rubric

CHUNK = 5000
#: Below this many lines a child process costs more than it saves.
PARALLEL_FROM_LINES = 20_000
#: Distinct (dimension, judge, people) scores whose gap an import remembers (then it starts again).
GAP_CACHE = 100_000
#: ids → (pk, content hash, revision) of the items already stored; None on a first import.
Lookup = Callable[[list[str]], dict[str, tuple[int, str, int]]]
Reserve = Callable[[int], list[int]]


class ItemSource(Protocol):
    """Where an import's rows come from: checked rows and the file they came from (for messages)."""

    @property
    def path(self) -> Path: ...

    def rows(self, rubric: Rubric, errs: list[str]) -> Iterator[Row]:
        """The good rows in order; each bad line appended to ``errs`` as ``FILE:LINE: what``."""
        ...

    def count_lines(self) -> int:
        """About how many rows there are (a progress bar's total; 0 when unknown)."""
        ...


ITEM_COLUMNS = ("pk", "judge_overall", "judge_band", "judge_passed", "n_errors", "item_id",
                "content_hash", "input", "output", "context", "reference", "conversation", "grp",
                "variant", "metadata", "gold", "is_gold", "n_reviewed", "human_gap")
JUDGE_COLUMNS = ("item_pk", "dimension", "method", "score", "normalised", "samples", "std", "rationale",
                 "evidence", "confidence", "error", "raw_reply")
#: Most imported judge scores carry a number and nothing else: those go in with three parameters.
JUDGE_SCORE_ONLY = ("item_pk", "score", "normalised")
HUMAN_COLUMNS = ("item_pk", "dimension", "reviewer", "score", "reason", "tags", "blind")


@dataclass
class Batch:
    """One chunk of the file, ready to write, and what it counted."""

    rows: int = 0
    unchanged: int = 0
    items: list[tuple[Any, ...]] = field(default_factory=list)
    #: (item pk, revision before, hash before, the new values) for ``--update``
    changed: list[tuple[int, int, str, dict[str, Any]]] = field(default_factory=list)
    #: (model, dimension) → (item_pk, score, normalised)
    judge_plain: dict[tuple[str | None, str], list[tuple[Any, ...]]] = field(default_factory=dict)
    #: model → rows in JUDGE_COLUMNS order
    judge_full: dict[str | None, list[tuple[Any, ...]]] = field(default_factory=dict)
    human: list[tuple[Any, ...]] = field(default_factory=list)
    #: ``--update`` with new content: the scores given with it belong to the item's next
    #: revision; rows in JUDGE_COLUMNS / HUMAN_COLUMNS order plus that revision (few: no fast path)
    judge_revised: dict[str | None, list[tuple[Any, ...]]] = field(default_factory=dict)
    human_revised: list[tuple[Any, ...]] = field(default_factory=list)
    #: item pks marked ``"audit": true`` (new, changed or unchanged items alike)
    audit: list[int] = field(default_factory=list)


class Overall:
    """The judge's overall, band and verdict per distinct set of scores, from the item's fold
    (:func:`reviewer.domain.judge_only`, the rule a judge run's refresh applies too): the file's
    judge scores, and people's scores on the dimensions only people score (``method: human``).
    Items of one file share few distinct score combinations (scales have a handful of levels), so
    each is computed once."""

    def __init__(self, rubric: Rubric) -> None:
        self.rubric = rubric
        self.human_only = {d.id for d in rubric.dimensions if d.method == "human"}
        self.seen: dict[tuple[Any, ...], tuple[float | None, str | None, bool | None]] = {}
        #: :func:`people_gap`'s results by the scores they came from
        self.gaps: dict[tuple[Any, ...], float | None] = {}

    def __call__(self, r: Row) -> tuple[float | None, str | None, bool | None]:
        judged = tuple((k, e.score, bool(e.error)) for k, e in r.judge.items())
        people = tuple((who, dim_id, score) for who, dim_id, score, *_ in r.human
                       if dim_id in self.human_only) if self.human_only and r.human else ()
        key = (judged, people)
        if key not in self.seen:
            from reviewer.domain import HumanRow, ItemRows, JudgeRow, fold_item, judge_only

            rows = ItemRows(0, judge=[JudgeRow(i, k, None, score, error="error" if err else None)
                                      for i, (k, score, err) in enumerate(judged)],
                            human=[HumanRow(i, dim_id, who, score, "import")
                                   for i, (who, dim_id, score) in enumerate(people)])
            agg = judge_only(self.rubric, fold_item(self.rubric, rows))
            self.seen[key] = (agg.overall, agg.band.label if agg.band else None,
                              agg.passed if agg.overall is not None else None)
        return self.seen[key]


def item_values(r: Row, pk: int, overall: Overall, as_text: bool = True) -> tuple[Any, ...]:
    """The item's values in ITEM_COLUMNS order (JSON columns as text for :func:`bulk_insert`)."""
    d = r.data
    total, band, passed = overall(r)
    js = json_text if as_text else _same
    group, variant = d.get("group"), d.get("variant")
    return (pk, total, band, passed, sum(1 for e in r.judge.values() if e.error), r.item_id,
            r.content_hash, str(d.get("input") or ""), str(d.get("output") or ""),
            str(d.get("context") or ""), str(d.get("reference") or ""), js(d.get("conversation")),
            None if group is None else str(group), None if variant is None else str(variant),
            js(d.get("metadata") or {}), js(d.get("gold")), d.get("gold") is not None,
            reviews_done(overall.rubric, r), people_gap(overall, r))


def reviews_done(rubric: Rubric, r: Row) -> int:
    """How many people the row's human entries show with a complete review
    (:func:`reviewer.domain.complete_reviews`): an imported review counts like one entered in the
    review screen."""
    if not r.human:
        return 0
    from reviewer.domain import HumanRow, complete_reviews, fold_human

    return complete_reviews(rubric, fold_human(HumanRow(i, dim_id, reviewer, score, "import")
                                               for i, (reviewer, dim_id, score, *_) in enumerate(r.human)))


def people_gap(overall: Overall, r: Row) -> float | None:
    """How far the row's judge scores are from its people's (:func:`reviewer.domain.human_gap` of
    the fold of the scores the row gives: all a new item, or a new content revision, has); None
    unless it gives both. Each dimension's gap is its own (that dimension's rows alone), so it is
    folded once per distinct (dimension, judge score, people's scores) and kept (``overall.gaps``)."""
    if not r.human or not r.judge:
        return None
    people: dict[str, list[tuple[str, float]]] = {}
    for who, dim_id, score, *_ in r.human:
        if dim_id in r.judge:
            people.setdefault(dim_id, []).append((who, score))
    from reviewer.domain import item_gap

    return item_gap(_dim_gap(overall, (dim_id, r.judge[dim_id].score, tuple(votes))) for dim_id, votes in people.items())


def _dim_gap(overall: Overall, key: tuple[str, float | None, tuple[tuple[str, float], ...]]) -> float | None:
    if key not in overall.gaps:
        from reviewer.domain import HumanRow, ItemRows, JudgeRow, dim_folds, dim_gap, sides

        rubric, (dim_id, judged, votes) = overall.rubric, key
        rows = ItemRows(0, judge=[JudgeRow(0, dim_id, None, judged)],
                        human=[HumanRow(i, dim_id, who, score, "import") for i, (who, score) in enumerate(votes)])
        if len(overall.gaps) >= GAP_CACHE:
            overall.gaps.clear()
        overall.gaps[key] = dim_gap(rubric.dimension(dim_id), dim_folds(rubric, *sides(rubric, rows))[dim_id])
    return overall.gaps[key]


def add_scores(batch: Batch, dims: Mapping[str, Dimension], r: Row, pk: int, revision: int | None = None) -> None:
    """Put the row's judge and human scores into the batch (``dims``: the rubric's, by id);
    ``revision``: the item's new content revision (``--update``), else a new item's first."""
    for dim_id, e in r.judge.items():
        dim = dims[dim_id]
        norm = (dim.judge_scale or dim.scale).normalise(e.score) if e.score is not None else None
        if (revision is None and e.score is not None and not e.samples and not e.evidence and not e.rationale
                and e.confidence is None and e.error is None and e.raw_reply is None):
            batch.judge_plain.setdefault((r.judge_model, dim_id), []).append((pk, e.score, norm))
            continue
        row = (pk, dim_id, dim.method, e.score, norm, json_text(e.samples),
               _stdev(e.samples), e.rationale,
               json_text(e.evidence), e.confidence, e.error, e.raw_reply)
        if revision is None:
            batch.judge_full.setdefault(r.judge_model, []).append(row)
        else:
            batch.judge_revised.setdefault(r.judge_model, []).append((*row, revision))
    for reviewer, dim_id, score, reason, tags, blind in r.human:
        hrow = (pk, dim_id, reviewer, score, reason, json_text(tags) if tags else "[]", blind)
        if revision is None:
            batch.human.append(hrow)
        else:
            batch.human_revised.append((*hrow, revision))


def _same(value: Any) -> Any:
    return value


def _stdev(xs: list[float]) -> float | None:
    """Sample standard deviation (``statistics.stdev`` computes in fractions: 50× slower)."""
    n = len(xs)
    if n < 2:
        return None
    mean = sum(xs) / n
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))


def build_batches(source: ItemSource, rubric: Rubric, errs: list[str], reserve: Reserve,
                  lookup: Lookup | None = None, update_existing: bool = False) -> Iterator[Batch]:
    """Batches of the source's rows; after the first bad line only checks (``errs`` collects)."""
    overall, dims = Overall(rubric), {d.id: d for d in rubric.dimensions}
    pending: list[Row] = []
    path = source.path
    rows = source.rows(rubric, errs)
    while True:
        pending = [r for _, r in zip(range(CHUNK), rows, strict=False)]
        if not pending:
            return
        batch = Batch(rows=len(pending))
        if errs:
            yield batch
            continue
        existing = lookup([r.item_id for r in pending]) if lookup else {}
        new = [r for r in pending if r.item_id not in existing]
        for r, pk in zip(new, reserve(len(new)) if new else [], strict=True):
            batch.items.append(item_values(r, pk, overall))
            add_scores(batch, dims, r, pk)
            if r.audit:
                batch.audit.append(pk)
        for r in pending:
            if r.item_id not in existing:
                continue
            pk, old_hash, revision = existing[r.item_id]
            if r.audit:
                batch.audit.append(pk)
            if old_hash == r.content_hash:
                batch.unchanged += 1
            elif not update_existing:
                errs.append(f"{path}:{r.line}: item {r.item_id} already exists with other content; "
                            "pass --update to record the change")
            else:
                values = dict(zip(ITEM_COLUMNS[1:], item_values(r, pk, overall, as_text=False)[1:], strict=True))
                batch.changed.append((pk, revision, old_hash, values))
                add_scores(batch, dims, r, pk, revision + 1)
        yield batch


def can_fork() -> bool:
    """Whether this platform offers the fork start method (Linux does; the child needs no imports)."""
    return "fork" in multiprocessing.get_all_start_methods()


def batches_in_child(source: ItemSource, rubric: Rubric, errs: list[str], first_pk: int) -> Iterator[Batch]:
    """:func:`build_batches` for a first import, run in a forked child that sends each batch."""
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(send, receive, source, rubric, first_pk), name="rubricate-import-reader",
                        daemon=True)
    child.start()
    send.close()
    try:
        while True:
            kind, payload = receive.recv()
            if kind == "batch":
                yield payload
            elif kind == "done":
                errs.extend(payload)
                return
            else:
                raise RuntimeError(f"reading {source.path} failed in the reader process:\n{payload}")
    finally:
        receive.close()
        child.join(timeout=5)
        if child.is_alive():
            child.terminate()


def _child(send: Any, receive: Any, source: ItemSource, rubric: Rubric, first_pk: int) -> None:
    # the forked child holds a copy of the pipe's reading end: closed, so that a parent killed
    # mid-import leaves this process a broken pipe (and it exits) rather than a full one it
    # waits on for ever
    receive.close()
    gc.disable()
    errs: list[str] = []
    counter = [first_pk]

    def reserve(n: int) -> list[int]:
        start = counter[0]
        counter[0] += n
        return list(range(start, start + n))

    try:
        for batch in build_batches(source, rubric, errs, reserve):
            send.send(("batch", batch))
        send.send(("done", errs))
    except Exception:  # the parent raises it with the text
        send.send(("failed", traceback.format_exc()))
    finally:
        send.close()
