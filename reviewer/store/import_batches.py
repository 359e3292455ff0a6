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
import marshal
import math
import multiprocessing
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import chain, count, repeat
from operator import itemgetter
from pathlib import Path
from typing import Any, Protocol

from reviewer.domain.itemlimits import NUL_PROBLEM, nul_field
from reviewer.domain.records import PlainHuman, PlainJudge, Row
from reviewer.store.bulk import json_text
from reviewer.store.import_values import GAP_CACHE, Overall, item_values
from rubrics.schema import Dimension, Rubric

CHUNK = 5000
#: Below this many lines a child process costs more than it saves.
PARALLEL_FROM_LINES = 20_000
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
                "variant", "metadata", "gold", "is_gold", "n_reviewed", "n_labelled", "human_gap", "judge_headline")
JUDGE_COLUMNS = ("item_pk", "dimension", "method", "score", "normalised", "samples", "std", "rationale",
                 "evidence", "confidence", "error", "raw_reply")
#: Most imported judge scores carry a number and nothing else: those go in with three parameters.
JUDGE_SCORE_ONLY = ("item_pk", "score", "normalised")
HUMAN_COLUMNS = ("item_pk", "dimension", "reviewer", "score", "reason", "tags", "blind")
#: Most imported human scores are a plain number: those go in with four parameters.
HUMAN_PLAIN = ("item_pk", "dimension", "reviewer", "score")
#: The columns that are an item's content: a row whose scores differ from the stored item's but
#: whose content is these same values adds its scores to the item's current revision.
CONTENT_COLUMNS = ("input", "output", "context", "reference", "conversation", "grp", "variant", "metadata", "gold")
_CONTENT_AT = tuple(ITEM_COLUMNS.index(c) for c in CONTENT_COLUMNS)
#: item pks → their stored content, in CONTENT_COLUMNS order
Stored = Callable[[list[int]], dict[int, tuple[Any, ...]]]


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
    #: human scores in HUMAN_COLUMNS order and their time (None: the import's); or, while every
    #: one so far is a plain score (no reason, tags, blind flag or time), in HUMAN_PLAIN order
    #: here (the two are never both filled)
    human: list[tuple[Any, ...]] = field(default_factory=list)
    human_plain: list[tuple[Any, ...]] = field(default_factory=list)
    #: ``--update`` with new content: the scores given with it belong to the item's next
    #: revision; rows in JUDGE_COLUMNS / HUMAN_COLUMNS order plus that revision (human rows then
    #: their time, as in ``human``; few: no fast path)
    judge_revised: dict[str | None, list[tuple[Any, ...]]] = field(default_factory=dict)
    human_revised: list[tuple[Any, ...]] = field(default_factory=list)
    #: pks of stored items whose row gave other scores on the same content: those scores are in
    #: ``judge_revised``/``human_revised`` with the item's current revision
    rescored: list[int] = field(default_factory=list)
    #: item pks marked ``"audit": true`` (new, changed or unchanged items alike)
    audit: list[int] = field(default_factory=list)
    #: ``judge_plain``'s rows by column, while every row of the batch so far gave plain judge
    #: scores (a :class:`PlainJudge`) on the same (model, dimension)s (then ``judge_plain`` is
    #: empty): those keys; each distinct set of (score, normalised) pairs; and per row, its item
    #: pk and set. :meth:`judge_rows` turns them into ``judge_plain``'s rows, in the same order
    #: (the reader sends a fifth as much, and the writer makes the rows at C speed)
    judge_keys: tuple[tuple[str | None, str], ...] = ()
    judge_sets: list[tuple[tuple[float, float], ...]] = field(default_factory=list)
    judge_pks: list[int] = field(default_factory=list)
    judge_set_of: list[int] = field(default_factory=list)
    #: (the reader's own) a set's place in ``judge_sets`` by its serial number (:meth:`Dims.plain_set`)
    set_index: dict[int, int] = field(default_factory=dict)

    def wire(self) -> dict[str, Any]:
        """What the reader process sends of the batch (``Batch(**wire)`` on the other side)."""
        return {k: v for k, v in self.__dict__.items() if k != "set_index"}

    def judge_rows(self) -> dict[tuple[str | None, str], list[tuple[Any, ...]]]:
        """``judge_plain``, with the rows kept by column made into it (see ``judge_keys``)."""
        if self.judge_pks:
            ids, pks = self.judge_set_of, self.judge_pks
            for k, key in enumerate(self.judge_keys):
                scores = [values[k][0] for values in self.judge_sets]
                norms = [values[k][1] for values in self.judge_sets]
                self.judge_plain.setdefault(key, []).extend(
                    zip(pks, map(scores.__getitem__, ids), map(norms.__getitem__, ids), strict=True))
            self.judge_keys, self.judge_sets, self.judge_pks, self.judge_set_of = (), [], [], []
            self.set_index.clear()
        return self.judge_plain


class Dims(dict[str, Dimension]):
    """The rubric's dimensions by id, with the normalised value of each judge score seen (a file's
    scores take a handful of values per dimension)."""

    def __init__(self, rubric: Rubric) -> None:
        super().__init__((d.id, d) for d in rubric.dimensions)
        self.norms: dict[tuple[str, float], float] = {}
        self.plain: dict[tuple[Any, ...], tuple[Any, Any, int]] = {}
        self.serials = count()

    def plain_set(self, model: str | None,
                  judge: PlainJudge) -> tuple[tuple[tuple[str | None, str], ...], tuple[tuple[float, float], ...], int]:
        """A :class:`PlainJudge`'s (model, dimension)s, (score, normalised) pairs and a serial
        number of its own (never reused), made once per distinct scores."""
        key = (model, judge.key)
        made = self.plain.get(key)
        if made is None:
            if len(self.plain) >= GAP_CACHE:
                self.plain.clear()
            pairs = [(dim_id, e.score) for dim_id, e in judge.items() if e.score is not None]
            made = self.plain[key] = (tuple((model, d) for d, _ in pairs),
                                      tuple((score, self.norm(d, score)) for d, score in pairs), next(self.serials))
        return made

    def norm(self, dim_id: str, score: float) -> float:
        key = (dim_id, score)
        if key not in self.norms:
            dim = self[dim_id]
            self.norms[key] = (dim.judge_scale or dim.scale).normalise(score)
        return self.norms[key]


def add_scores(batch: Batch, dims: Dims, r: Row, pk: int, revision: int | None = None) -> None:
    """Put the row's judge and human scores into the batch; ``revision``: the item's new content
    revision (``--update``), else a new item's first."""
    model = r.judge_model
    if revision is None and type(r.judge) is PlainJudge:
        keys, values, serial = dims.plain_set(model, r.judge)
        if not keys:
            pass
        elif not batch.judge_plain and (keys == batch.judge_keys or not batch.judge_pks):
            at = batch.set_index.get(serial)
            if at is None:
                at = batch.set_index[serial] = len(batch.judge_sets)
                batch.judge_sets.append(values)
            batch.judge_keys = keys
            batch.judge_pks.append(pk)
            batch.judge_set_of.append(at)
        else:
            rows = batch.judge_rows()
            for key, (score, norm) in zip(keys, values, strict=True):
                plain = rows.get(key)
                if plain is None:
                    plain = rows[key] = []
                plain.append((pk, score, norm))
    else:
        batch.judge_rows()  # the rows kept by column so far go first
        _judge_rows(batch, dims, r, pk, revision)
    h = r.human
    if revision is None and type(h) is PlainHuman and not batch.human:
        extend = batch.human_plain.extend
        for who, s in h.by_person:
            extend(zip(repeat(pk), s.dims, repeat(who), s.scores))
        return
    _human_rows(batch, r, pk, revision)


def _judge_rows(batch: Batch, dims: Dims, r: Row, pk: int, revision: int | None) -> None:
    model = r.judge_model
    for dim_id, e in r.judge.items():
        score = e.score
        if (revision is None and score is not None and not e.samples and not e.evidence and not e.rationale
                and e.confidence is None and e.error is None and e.raw_reply is None):
            key = (model, dim_id)
            plain = batch.judge_plain.get(key)
            if plain is None:
                plain = batch.judge_plain[key] = []
            plain.append((pk, score, dims.norm(dim_id, score)))
            continue
        row = (pk, dim_id, dims[dim_id].method, score, dims.norm(dim_id, score) if score is not None else None,
               json_text(e.samples), _stdev(e.samples), e.rationale,
               json_text(e.evidence), e.confidence, e.error, e.raw_reply)
        if revision is None:
            batch.judge_full.setdefault(model, []).append(row)
        else:
            batch.judge_revised.setdefault(model, []).append((*row, revision))


def _human_rows(batch: Batch, r: Row, pk: int, revision: int | None) -> None:
    # full rows end with the time the person gave the score (``"at"``), None for the import's
    at = r.human_at or {}
    if revision is not None:
        for reviewer, dim_id, score, reason, tags, blind in r.human:
            batch.human_revised.append((pk, dim_id, reviewer, score, reason, json_text(tags) if tags else "[]",
                                        blind, revision, at.get((reviewer, dim_id))))
        return
    for reviewer, dim_id, score, reason, tags, blind in r.human:
        when = at.get((reviewer, dim_id))
        if reason is None and not tags and not blind and when is None and not batch.human:
            batch.human_plain.append((pk, dim_id, reviewer, score))
            continue
        if batch.human_plain:  # the batch's rows so far, in order, as full rows (few files mix them)
            batch.human.extend((*row, None, "[]", False, None) for row in batch.human_plain)
            batch.human_plain.clear()
        batch.human.append((pk, dim_id, reviewer, score, reason, json_text(tags) if tags else "[]", blind, when))


def _stdev(xs: list[float]) -> float | None:
    """Sample standard deviation (``statistics.stdev`` computes in fractions: 50× slower)."""
    n = len(xs)
    if n < 2:
        return None
    mean = sum(xs) / n
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))


def build_batches(source: ItemSource, rubric: Rubric, errs: list[str], reserve: Reserve,
                  lookup: Lookup | None = None, update_existing: bool = False,
                  stored: Stored | None = None, refuse_nul: bool = False) -> Iterator[Batch]:
    """Batches of the source's rows; after the first bad line only checks (``errs`` collects).
    A row of a stored item whose hash differs but whose content (``stored``) is the same gives
    scores to the item's current revision: only other content makes a revision. ``refuse_nul``
    (PostgreSQL, which cannot store it): a row holding a NUL character is a bad line."""
    overall, dims = Overall(rubric), Dims(rubric)
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
        new = [r for r in pending if r.item_id not in existing] if existing else pending
        for r, pk in zip(new, reserve(len(new)) if new else [], strict=True):
            batch.items.append(item_values(r, pk, overall))
            add_scores(batch, dims, r, pk)
            if r.audit:
                batch.audit.append(pk)
        differ = [existing[r.item_id][0] for r in pending
                  if r.item_id in existing and existing[r.item_id][1] != r.content_hash]
        same = {pk: _content(v, stored_order=True) for pk, v in stored(differ).items()} if differ and stored else {}
        for r in pending if existing else ():
            if r.item_id not in existing:
                continue
            pk, old_hash, revision = existing[r.item_id]
            if r.audit:
                batch.audit.append(pk)
            if old_hash == r.content_hash:
                batch.unchanged += 1
            elif same.get(pk) == _content(item_values(r, pk, overall, as_text=False)):
                batch.unchanged += 1
                batch.rescored.append(pk)
                add_scores(batch, dims, r, pk, revision)
            elif not update_existing:
                errs.append(f"{path}:{r.line}: item {r.item_id} already exists with other content; "
                            "pass --update to record the change")
            else:
                values = dict(zip(ITEM_COLUMNS[1:], item_values(r, pk, overall, as_text=False)[1:], strict=True))
                batch.changed.append((pk, revision, old_hash, values))
                add_scores(batch, dims, r, pk, revision + 1)
        if refuse_nul and _may_hold_nul(batch):
            errs.extend(nul_lines(pending, path))
        yield batch


def _texts(columns: tuple[str, ...], *names: str) -> itemgetter[tuple[Any, ...]]:
    return itemgetter(*(columns.index(n) for n in names))


#: The columns of a batch's rows that hold text (JSON columns as their text), None or a string.
_ITEM_TEXTS = _texts(ITEM_COLUMNS, "item_id", "input", "output", "context", "reference", "conversation", "grp",
                     "variant", "metadata", "gold")
_JUDGE_TEXTS = _texts(JUDGE_COLUMNS, "rationale", "evidence", "error", "raw_reply")
_HUMAN_TEXTS = _texts(HUMAN_COLUMNS, "reviewer", "reason", "tags")


def _may_hold_nul(batch: Batch) -> bool:
    """Whether any text the batch writes may hold a NUL character: as itself in a text column, as
    ``\\u0000`` in a JSON column's text. Its text columns are joined and searched at C speed; a
    hit (or a batch that changes stored items, seldom) is read exactly, row by row, by
    :func:`nul_lines`."""
    if batch.changed or batch.judge_revised or batch.human_revised:
        return True
    texts = chain(chain.from_iterable(map(_ITEM_TEXTS, batch.items)),
                  *(chain.from_iterable(map(_JUDGE_TEXTS, rows)) for rows in batch.judge_full.values()),
                  chain.from_iterable(map(_HUMAN_TEXTS, batch.human)))
    joined = "\x01".join(filter(None, texts))
    return "\x00" in joined or "\\u0000" in joined


def nul_lines(rows: list[Row], path: Path | str) -> list[str]:
    """Each of ``rows`` holding a NUL character anywhere, as ``FILE:LINE: item ID: what``."""
    found = []
    for r in rows:
        name = nul_field({**r.data, "judge": r.judge, "human": r.human})
        if name is not None:
            found.append(f"{path}:{r.line}: item {r.item_id}: {name} {NUL_PROBLEM}")
    return found


def _content(values: tuple[Any, ...], stored_order: bool = False) -> str:
    """An item's content as one comparable text: from its ITEM_COLUMNS values, or (``stored_order``)
    from the stored columns in CONTENT_COLUMNS order (JSON columns read back as values)."""
    import json

    picked = values if stored_order else tuple(values[i] for i in _CONTENT_AT)
    return json.dumps(picked, sort_keys=True, default=str)


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
            kind, payload = marshal.loads(receive.recv_bytes())
            if kind == "batch":
                yield Batch(**payload)
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

    # marshal, not pickle: the batches hold only tuples, lists, dicts, numbers, text and None, which
    # it writes in half the time (the reader's time is the import's)
    try:
        for batch in build_batches(source, rubric, errs, reserve):
            send.send_bytes(marshal.dumps(("batch", batch.wire())))
        send.send_bytes(marshal.dumps(("done", errs)))
    except Exception:  # the parent raises it with the text
        send.send_bytes(marshal.dumps(("failed", traceback.format_exc())))
    finally:
        send.close()
