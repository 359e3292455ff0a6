"""Glue between the store and the pure judge pipeline: one judge run per model, persisted as it
goes.

Items are read from the store up front (so writes never interleave with an open read cursor),
scored by :class:`rubrics.judge.runner.JudgeRunner`, and written back in small batches as each
item finishes. A panel (several models) is one run per model sharing the judge cache, the
embedding cache and one cost meter; safety hits are recorded once, with the first model's run.
Ctrl-C ends the run as ``interrupted`` with everything scored so far kept; ``only_missing``
resumes it. A failure no single item explains (the store refusing a write past its timeout) ends
it as ``failed``; the judge replies the store would not take are kept in a file until the next run
stores them (:mod:`reviewer.services.judge_pending`), so ``only_missing`` then calls nothing again.
One item's failure is only that item's recorded error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reviewer.errors import UserError
from reviewer.services import judge_pending
from rubrics.judge.client import (
    ClientSettings,
    CostMeter,
    JudgeClient,
    import_litellm,
)
from rubrics.judge.limits import Limits
from rubrics.judge.loop import judge_loop
from rubrics.judge.plan import DryRun, dry_run
from rubrics.judge.runner import JudgeRunner, Progress, Totals
from rubrics.methods.base import JudgeItem
from rubrics.methods.semantic import Embedder
from rubrics.results import SafetyHit, ScoreResult
from rubrics.schema import JUDGE_METHODS, Rubric

if TYPE_CHECKING:  # (the store's class, for its type alone: importing it loads SQLAlchemy)
    from reviewer.store import Store

#: A judge cache value (a judge reply), opaque here: the judge pipeline reads it.
CacheValue = dict[str, object]

#: Results written per store call (one transaction each).
BATCH = 100
#: The store's cache keys are read up front when there are at most this many (about 100 bytes each).
KNOWN_KEYS_MAX = 500_000


@dataclass
class JudgeOptions:
    """Everything ``rubricate judge`` takes."""

    rubric_ref: str
    models: list[str] = field(default_factory=list)
    api_base: str | None = None
    api_key: str | None = None
    dataset: str | None = None
    samples: int | None = None
    concurrency: int = 8
    max_cost: float | None = None
    only_missing: bool = False
    timeout: float = 60.0
    retries: int = 2
    #: Calls (``rpm``) and tokens (``tpm``) at most per minute, over every model of the run.
    rpm: int | None = None
    tpm: int | None = None
    #: The window ``rpm`` and ``tpm`` count over, in seconds (a minute; tests scale it down).
    limit_window: float = 60.0
    #: Refuse (one line, exit 1) a run with no item to judge, rather than store an empty run.
    refuse_empty: bool = False


class RunFailed(Exception):
    """A run the store stopped (its writes refused past the timeout), whose judge replies not yet
    stored are kept in a file (:mod:`reviewer.services.judge_pending`) until the next run stores
    them; ``cause`` is the store's error."""

    def __init__(self, run_id: int, kept: int, path: Path, cause: Exception) -> None:
        self.run_id, self.kept, self.path, self.cause = run_id, kept, path, cause
        super().__init__(
            f"judge run {run_id} failed; {kept} judge {'reply is' if kept == 1 else 'replies are'} kept in "
            f"{path}: run again with --only-missing once the database can be written, to store their "
            "scores without calling the judge again")


@dataclass
class RunSummary:
    """One model's run as it ended."""

    run_id: int
    model: str | None
    totals: Totals


class StoreCache:
    """The store's judge cache seen through the pipeline's key-value Protocol.

    Puts are buffered and written in batches (with the results, off the event loop): one
    transaction per call held every call in flight up behind a commit. A buffered or in-flight
    value is answered from memory, so a repeated prompt never misses it."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.pending: dict[str, CacheValue] = {}
        #: Every key the store held when the run began (None: too many to hold, ask each time),
        #: so a prompt never seen costs no database read on the event loop.
        self.known: set[str] | None = store.runs.judge_cache_keys(KNOWN_KEYS_MAX)

    def get(self, key: str) -> CacheValue | None:
        """A cached value, or None."""
        mine = self.pending.get(key)
        if mine is not None:
            return dict(mine)
        if self.known is not None and key not in self.known:
            return None
        value = self.store.runs.judge_cache_get(key)
        return dict(value) if value is not None else None

    def get_many(self, keys: Collection[str]) -> dict[str, CacheValue]:
        """The cached values of those ``keys`` that have one: buffered ones from memory, the
        rest the store holds in one read per 500 keys."""
        found = {k: dict(v) for k in keys if (v := self.pending.get(k)) is not None}
        asked = [k for k in keys if k not in found and (self.known is None or k in self.known)]
        if asked:
            found.update(self.store.runs.judge_cache_get_many(asked))
        return found

    def put(self, key: str, value: CacheValue) -> None:
        """Keep a value for the next batch write."""
        self.pending.setdefault(key, value)

    def take(self) -> dict[str, CacheValue]:
        """The values not yet handed to a write (they stay readable until written)."""
        return dict(self.pending)

    def written(self, keys: Iterable[str]) -> None:
        """Forget values a write has committed."""
        for key in keys:
            if self.known is not None:
                self.known.add(key)
            self.pending.pop(key, None)


def item_from_record(record: Mapping[str, object]) -> JudgeItem:
    """A store item record (``Store.runs.items_for_judging``'s mapping) as a JudgeItem."""
    data = dict(record)
    if "id" not in data or data.get("id") is None:
        data["id"] = data.get("item_id")
    return JudgeItem.from_mapping(data)


def models_for(rubric: Rubric, options: JudgeOptions) -> list[str | None]:
    """The judge models to run: ``--model`` values, else the rubric's default; None when the
    rubric has no judge methods and no model was asked for."""
    if options.models:
        return list(dict.fromkeys(options.models))
    needs_judge = any(d.method in JUDGE_METHODS for d in rubric.dimensions)
    if rubric.judge.model:
        return [rubric.judge.model]
    if needs_judge:
        raise UserError(
            f"{rubric.ref} has judge dimensions but no judge model: pass --model "
            "(e.g. --model openai/gpt-4o-mini) or set judge.model in the rubric"
        )
    return [None]


def run_params(options: JudgeOptions, rubric: Rubric, panel: list[str]) -> dict[str, object]:
    """What a judge run records of how it was made (its ``params``; never the API key)."""
    return {"samples": options.samples, "concurrency": options.concurrency,
            "max_cost": options.max_cost, "rpm": options.rpm, "tpm": options.tpm, "api_base": options.api_base,
            "temperature": rubric.judge.temperature, "mode": rubric.judge.mode,
            "only_missing": options.only_missing, "panel": panel}


def judge_examples(store: Store, rubric: Rubric) -> dict[str, list[dict[str, object]]]:
    """Per judge dimension, people's corrections to put into its prompt (``judge.correction_examples``)."""
    k = rubric.judge.correction_examples
    if k <= 0:
        return {}
    return {d.id: list(store.runs.human_examples(rubric.ref, d.id, k))
            for d in rubric.dimensions if d.method == "llm_judge"}


def judge_items(store: Store, options: JudgeOptions, model: str | None) -> list[JudgeItem]:
    """The items a run judges with ``model``, as the judge pipeline takes them."""
    records = store.runs.items_for_judging(
        options.rubric_ref, dataset=options.dataset,
        only_missing_for_model=(model or "") if options.only_missing else None,
    )
    return [item_from_record(r) for r in records]


def nothing_to_do(store: Store, options: JudgeOptions) -> str:
    """Why a run would judge no item, and what to do instead."""
    where = f" in dataset {options.dataset!r}" if options.dataset else ""
    if options.only_missing:
        return (f"nothing to do: every item of {options.rubric_ref}{where} is already scored by "
                f"{', '.join(m for m in options.models if m) or 'this judge'} (leave out --only-missing to redo them)")
    return (f"nothing to do: no items of {options.rubric_ref}{where} are imported; "
            f"import some first (rubricate import FILE --rubric {options.rubric_ref})")


def plan(store: Store, options: JudgeOptions) -> dict[str, DryRun]:
    """``--dry-run``: per model, the calls, tokens and cost a run would spend."""
    rubric = store.rubrics.get_rubric(options.rubric_ref)
    examples = judge_examples(store, rubric)
    return {str(m): dry_run(rubric, judge_items(store, options, m), m, options.samples, examples)
            for m in models_for(rubric, options)}


class ResultWriter:
    """Buffers results, hits and cache entries, writing them to the store in batches on one
    background thread (in order), so the event loop keeps every judge call moving while SQLite
    commits; :meth:`flush` writes the rest and waits, raising any write's error."""

    def __init__(self, store: Store, run_id: int, keep_hits: bool, cache: StoreCache | None = None) -> None:
        self.store, self.run_id, self.keep_hits, self.cache = store, run_id, keep_hits, cache
        self.results: list[ScoreResult] = []
        self.hits: list[SafetyHit] = []
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge-writer")
        self._jobs: list[Future[None]] = []

    def __call__(self, results: list[ScoreResult], hits: list[SafetyHit]) -> None:
        self.results += results
        if self.keep_hits:
            self.hits += hits
        if len(self.results) >= BATCH:
            self._submit()
        else:
            self._reap()

    def _submit(self) -> None:
        entries = self.cache.take() if self.cache is not None else {}
        results, hits, self.results, self.hits = self.results, self.hits, [], []
        if results or hits or entries:
            self._jobs.append(self._pool.submit(self._write, results, hits, entries))
        self._reap()

    def _reap(self) -> None:
        """Forget finished writes; raise the first that failed (on the next item, not a batch later)."""
        for job in [j for j in self._jobs if j.done()]:
            self._jobs.remove(job)
            error = job.exception()
            if error is not None:  # a failed write stops the run here, not silently
                for queued in self._jobs:  # each would wait out the lock again; their replies
                    queued.cancel()        # stay in the cache's pending entries
                raise error

    def _write(self, results: list[ScoreResult], hits: list[SafetyHit], entries: dict[str, CacheValue]) -> None:
        if entries:
            self.store.runs.judge_cache_put_many(entries)
            if self.cache is not None:
                self.cache.written(entries)
        if results:
            self.store.runs.record_results(self.run_id, results)
        if hits:
            self.store.runs.record_safety_hits(self.run_id, hits)

    def flush(self) -> None:
        """Write what is buffered and wait until no write is left running (none may outlive the
        run: it would write to a run already ended); then raise the first write's error."""
        try:
            self._submit()
        finally:
            jobs, self._jobs = self._jobs, []
            wait(jobs)
        for job in jobs:
            error = None if job.cancelled() else job.exception()
            if error is not None:
                raise error

    def close(self) -> None:
        """Let the writing thread go (after the run's last flush; a run leaves no thread behind)."""
        self._pool.shutdown(wait=True)


def run(
    store: Store,
    options: JudgeOptions,
    on_start: Callable[[str | None, int], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> list[RunSummary]:
    """Judge every item (or every missing one) with each model; one stored run per model."""
    rubric = store.rubrics.get_rubric(options.rubric_ref)
    models = models_for(rubric, options)
    judge_pending.restore(store)  # an earlier run's kept replies go into the cache first
    examples = judge_examples(store, rubric)
    cache = StoreCache(store)
    meter = CostMeter(cap=options.max_cost)
    embedder = Embedder(cache=store.runs)
    limits = Limits(options.concurrency, options.rpm, options.tpm, options.limit_window)
    work = {model: judge_items(store, options, model) for model in models}
    if options.refuse_empty and not any(work.values()):
        raise UserError(nothing_to_do(store, options))
    if any(models):  # litellm loads (seconds) before the first run starts, not inside its time
        import_litellm()
    summaries: list[RunSummary] = []
    for index, model in enumerate(models):
        items = work[model]
        if on_start:
            on_start(model, len(items))
        params = run_params(options, rubric, [m for m in models if m])
        run_id = store.runs.create_judge_run(options.rubric_ref, model, params, options.dataset)
        client = None
        if model is not None:
            settings = ClientSettings(model=model, api_base=options.api_base, api_key=options.api_key,
                                      timeout=options.timeout, retries=options.retries,
                                      temperature=rubric.judge.temperature)
            client = JudgeClient(settings, cache=cache, meter=meter, limits=limits)
        runner = JudgeRunner(rubric, client=client, embedder=embedder, examples=examples,
                             samples=options.samples, concurrency=options.concurrency,
                             on_progress=on_progress)
        writer = ResultWriter(store, run_id, keep_hits=index == 0, cache=cache)
        try:
            totals = asyncio.run(run_pipeline(runner, items, writer))
            writer.flush()  # inside: a write that fails only now still ends the run as failed
        except KeyboardInterrupt:
            runner.totals.status = "interrupted"
            _end(store, run_id, runner, writer, cache)
            raise
        except Exception as exc:  # the run still ends with a status, keeping what was scored
            runner.totals.status = "failed"
            kept = _end(store, run_id, runner, writer, cache)
            if kept is not None:
                raise RunFailed(run_id, kept, store.runs.judge_pending_path(), exc) from exc
            raise
        finally:
            writer.close()
        store.runs.finish_judge_run(run_id, totals.status, totals.as_dict())
        summaries.append(RunSummary(run_id, model, totals))
        if totals.status == "cost_cap":
            break
    return summaries


def _end(store: Store, run_id: int, runner: JudgeRunner, writer: ResultWriter, cache: StoreCache) -> int | None:
    """End a run stopped from outside (Ctrl-C, the store failing) with its status, keeping what
    it can: what is buffered is written, and the run closed; what the store still refuses (judge
    replies not yet in its cache, the run left open) is kept in a file that the next run stores
    (:mod:`reviewer.services.judge_pending`) — never dropped. Returns how many judge replies went
    to that file, or None when the store took everything."""
    import contextlib

    with contextlib.suppress(Exception):
        writer.flush()
    totals = runner.totals.as_dict()
    closed = False
    with contextlib.suppress(Exception):
        store.runs.finish_judge_run(run_id, runner.totals.status, totals)
        closed = True
    entries = cache.take()
    if closed and not entries:
        return None
    judge_pending.keep(store.runs.judge_pending_path(), entries, {} if closed else {run_id: totals})
    return judge_pending.replies(entries)


async def run_pipeline(runner: JudgeRunner, items: Iterable[JudgeItem], writer: ResultWriter) -> Totals:
    """Judge ``items`` through ``runner``, each result handed to ``writer`` as it comes (a live run,
    and each store pass of a ``judge --batch`` run), on a loop set up for judge calls."""
    async with judge_loop():
        return await runner.run(items, writer, total=len(items) if isinstance(items, list) else None)
