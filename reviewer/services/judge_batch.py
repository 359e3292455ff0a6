"""``rubricate judge --batch``: a judge run through the provider's batch API, at the batch price.

The run goes in rounds (:mod:`rubrics.judge.batch`): the judge pipeline runs over the items with
a client that answers from the judge cache and the run's batches so far; every request neither
holds is written as the provider's batch JSONL, uploaded (``litellm.acreate_file``) and sent as a
batch (``litellm.acreate_batch``), recorded in the store with its requests. The batches are then
polled (``litellm.aretrieve_batch``) every ``interval`` seconds until they end, and their output
files (``litellm.afile_content``) read into the store, each request's reply or its error. A round
that wants nothing new is the last: the pipeline runs once more, through the live run's writer,
and stores every result; the run is then ``done``.

Everything a round needs is in the store, so any process can go on with a run
(``rubricate judge --batch-status RUN``): a batch already read is not read again, an item already
stored is not stored again, and a finished run stores nothing more.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeVar

from reviewer.errors import UserError
from reviewer.services import judging
from reviewer.services.judging import JudgeOptions, StoreCache
from rubrics.judge.batch import (
    ENDPOINT,
    Answer,
    BatchClient,
    BatchPrice,
    batch_price,
    input_files,
    provider_model,
    read_output,
)
from rubrics.judge.client import (
    ClientSettings,
    CostMeter,
    describe_failure,
    import_litellm,
    release_litellm,
)
from rubrics.judge.runner import JudgeRunner, Totals
from rubrics.methods.base import JudgeItem
from rubrics.methods.semantic import Embedder
from rubrics.results import SafetyHit, ScoreResult
from rubrics.schema import Rubric

if TYPE_CHECKING:  # (the store's classes, for their types alone: importing them loads SQLAlchemy)
    from reviewer.store import Store
    from reviewer.store.judge_batches import ProviderBatch

T = TypeVar("T")

#: A run's status while its batches are at the provider.
OPEN = "batch"
#: Rounds one run may take. The pipeline's own steps bound them (a re-ask, a claim's check, each
#: ``depends_on`` wave): past this something loops, and a loop must not keep buying batches.
MAX_ROUNDS = 20
#: What a batch that ended without answering a request leaves as that request's error.
UNANSWERED = {
    "completed": "the batch's output has no reply for this request",
    "failed": "the batch failed before answering this request",
    "expired": "the batch expired (24 h) before answering this request",
    "cancelled": "the batch was cancelled before answering this request",
}
#: The statuses after which a batch changes no more (OpenAI's batch lifecycle): each has its
#: unanswered request's error above.
SETTLED = tuple(UNANSWERED)


@dataclass
class BatchState:
    """Where a batch run stands: ``batch`` while batches are at the provider, else how it ended."""

    run_id: int
    model: str
    status: str
    batches: list[ProviderBatch] = field(default_factory=list)
    #: the stored run's figures, once it is stored by this call
    totals: Totals | None = None


OnStatus = Callable[[BatchState], None]


def start(store: Store, options: JudgeOptions, interval: float, wait: bool,
          on_status: OnStatus | None = None) -> BatchState:
    """Open a batch run of one model and send its first round; with ``wait``, poll until it is
    stored."""
    rubric = store.rubrics.get_rubric(options.rubric_ref)
    models = judging.models_for(rubric, options)
    if len(models) != 1 or models[0] is None:
        raise UserError("--batch judges with one --model (a panel: one --batch run per model)")
    model = models[0]
    for flag, value in (("--max-cost", options.max_cost), ("--rpm", options.rpm), ("--tpm", options.tpm)):
        if value is not None:
            raise UserError(f"{flag} is for live runs: a batch is priced and paced by its provider "
                            "(see its price first with --dry-run --batch)")
    _provider(model)
    if options.refuse_empty and not judging.judge_items(store, options, model):
        raise UserError(judging.nothing_to_do(store, options))
    params = {**judging.run_params(options, rubric, [model]), "batch": True,
              "timeout": options.timeout, "retries": options.retries}
    run_id = store.runs.create_judge_run(options.rubric_ref, model, params, options.dataset)
    store.batches.set_run_status(run_id, OPEN)
    return advance(store, run_id, options.api_key, interval, wait, on_status)


def advance(store: Store, run_id: int, api_key: str | None, interval: float, wait: bool,
            on_status: OnStatus | None = None) -> BatchState:
    """Go on with batch run ``run_id``: poll its batches, read the ended ones, send the next
    round, and store the results once no round is left; with ``wait``, until then (else one
    look). A run already stored is returned as it is."""
    run = store.batches.run_of(run_id)
    if not run.params.get("batch"):
        raise UserError(f"judge run {run_id} is not a batch run: rubricate judge --report {run_id} shows it")
    options = _options(run.rubric_ref, run.model, run.dataset, run.params, api_key)
    model = options.models[0]
    if run.status != OPEN:
        return BatchState(run_id, model, run.status, store.batches.batches(run_id))
    _provider(model)
    rubric = store.rubrics.get_rubric(run.rubric_ref)
    price = batch_price(model)
    # (one cache and one embedder for every round: a round's replies and vectors stay for the next)
    cache = StoreCache(store)
    embedder = Embedder(cache=store.runs)
    while True:
        pending = [b for b in store.batches.batches(run_id) if b.status != "stored"]
        if pending:
            _provider_io(run_id, _poll(store, pending, options))
            pending = [b for b in store.batches.batches(run_id) if b.status != "stored"]
        if pending:
            state = BatchState(run_id, model, OPEN, store.batches.batches(run_id))
            if on_status is not None:
                on_status(state)
            if not wait:
                return state
            time.sleep(interval)
            continue
        answers = {k: Answer(body, error) for k, (body, error) in store.batches.answers(run_id).items()}
        wanted = _collect(store, options, _pipeline(store, options, rubric, answers, price, cache, embedder), cache)
        if wanted:
            round_no = store.batches.last_round(run_id) + 1
            if round_no > MAX_ROUNDS:
                raise UserError(f"judge run {run_id} still wants new requests after {MAX_ROUNDS} batch rounds; "
                                "it is left open: judge these items live (without --batch)")
            _provider_io(run_id, _submit(store, run_id, round_no, wanted, options))
            continue
        runner, _ = _pipeline(store, options, rubric, answers, price, cache, embedder)  # (its own totals)
        totals = _store(store, run_id, options, runner, cache, embedder.encoded)
        return BatchState(run_id, model, totals.status, store.batches.batches(run_id), totals)


def _provider(model: str) -> None:
    try:
        provider_model(model)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _options(rubric_ref: str, model: str | None, dataset: str | None, params: Mapping[str, object],
             api_key: str | None) -> JudgeOptions:
    """The run's options as it was started (``start`` records them with :func:`judging.run_params`;
    what a run does not hold is ``JudgeOptions``' default; the API key, never stored, is this
    process's)."""
    if not model:
        raise UserError("this batch run names no judge model; start a new one with --batch --model")
    made = JudgeOptions(rubric_ref=rubric_ref, models=[model], api_key=api_key, dataset=dataset)

    def number(name: str, default: float) -> float:
        value = params.get(name)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default

    samples = params.get("samples")
    api_base = params.get("api_base")
    return replace(made, api_base=api_base if isinstance(api_base, str) else made.api_base,
                   samples=samples if isinstance(samples, int) and not isinstance(samples, bool) else made.samples,
                   concurrency=int(number("concurrency", made.concurrency)),
                   only_missing=params.get("only_missing") is True,
                   timeout=number("timeout", made.timeout), retries=int(number("retries", made.retries)))


def _pipeline(store: Store, options: JudgeOptions, rubric: Rubric, answers: Mapping[str, Answer],
              price: BatchPrice | None, cache: StoreCache, embedder: Embedder) -> tuple[JudgeRunner, BatchClient]:
    """The live run's pipeline with a client answering from the batches."""
    settings = ClientSettings(model=options.models[0], api_base=options.api_base, api_key=options.api_key,
                              timeout=options.timeout, retries=options.retries,
                              temperature=rubric.judge.temperature)
    client = BatchClient(settings, answers, price, cache=cache, meter=CostMeter())
    runner = JudgeRunner(rubric, client=client, embedder=embedder,
                         examples=judging.judge_examples(store, rubric), samples=options.samples,
                         concurrency=options.concurrency)
    return runner, client


def _items(store: Store, run_id: int, options: JudgeOptions) -> list[JudgeItem]:
    """The run's items not stored yet (all of them, but after a store that stopped half-way)."""
    stored = store.batches.stored_items(run_id)
    return [i for i in judging.judge_items(store, options, options.models[0]) if i.key not in stored]


def _collect(store: Store, options: JudgeOptions, pipeline: tuple[JudgeRunner, BatchClient],
             cache: StoreCache) -> dict[str, bytes]:
    """A round: the pipeline over every item, storing nothing; the requests it wants sent."""
    runner, client = pipeline

    def discard(results: list[ScoreResult], hits: list[SafetyHit]) -> None:
        """A round's results are not the run's: its calls not answered yet failed."""

    _io(runner.run(judging.judge_items(store, options, options.models[0]), discard))
    # The replies the round put in the cache are the batches': the last pass answers them from
    # there again, at their price (from the cache they would be free). Its vectors stay, stored then.
    for key in client.answers:
        cache.pending.pop(key, None)
    return client.wanted


def _store(store: Store, run_id: int, options: JudgeOptions, runner: JudgeRunner, cache: StoreCache,
           encoded: int) -> Totals:
    """The last pass: the pipeline again, every reply from the batches, through the live run's
    writer (results, safety hits, the replies and vectors the rounds kept into the store's
    cache); then the run is closed, counting the ``encoded`` texts its rounds embedded. A pass
    that stops leaves the run open: what it wrote stays, and the next pass stores the rest."""
    writer = judging.ResultWriter(store, run_id, keep_hits=True, cache=cache)
    try:
        totals = asyncio.run(judging.run_pipeline(runner, _items(store, run_id, options), writer))
        writer.flush()
    except BaseException:
        with contextlib.suppress(Exception):
            writer.flush()
        raise
    finally:
        writer.close()
    totals.embedded += encoded
    store.runs.finish_judge_run(run_id, totals.status, totals.as_dict())
    return totals


def _io(work: Coroutine[object, object, T]) -> T:
    """Provider calls on their own event loop, litellm's connections released after. litellm's
    file and batch calls each make an OpenAI client and drop it unclosed; collected after their
    loop ended, each would try to close its connections on a closed loop (a traceback at exit):
    they are collected, and their closing awaited, while the loop still runs."""
    async def run() -> T:
        try:
            return await work
        finally:
            gc.collect()
            await asyncio.sleep(0)  # (the clients' closing tasks start)
            await release_litellm()
            closing = asyncio.all_tasks() - {asyncio.current_task()}
            if closing:
                await asyncio.wait(closing, timeout=5)

    return asyncio.run(run())


def _provider_io(run_id: int, work: Coroutine[object, object, None]) -> None:
    """Provider calls of run ``run_id``; their failure (the network, the provider refusing) is one
    line saying the run is kept and how to go on with it."""
    try:
        _io(work)
    except UserError:
        raise
    except Exception as exc:
        raise UserError(f"judge run {run_id}: the provider's batch API failed ({describe_failure(exc)}); what was "
                        f"sent and read is kept: go on with rubricate judge --batch-status {run_id}") from exc


def _provider_args(options: JudgeOptions) -> dict[str, object]:
    return {"custom_llm_provider": "openai", "api_base": options.api_base, "api_key": options.api_key,
            "timeout": options.timeout, "max_retries": options.retries}


async def _submit(store: Store, run_id: int, round_no: int, wanted: Mapping[str, bytes],
                  options: JudgeOptions) -> None:
    """Upload the round's requests and send them as batches (several past the provider's
    limits), each recorded with its requests as soon as the provider has it."""
    litellm = import_litellm()
    try:
        files = input_files(wanted)
    except ValueError as exc:
        raise UserError(f"judge run {run_id}: {exc}") from None
    for part, (keys, data) in enumerate(files, 1):
        name = f"rubricate-run-{run_id}-round-{round_no}-{part}.jsonl"
        uploaded = await litellm.acreate_file(file=(name, data, "application/jsonl"), purpose="batch",
                                              **_provider_args(options))
        batch = await litellm.acreate_batch(
            completion_window="24h", endpoint=ENDPOINT, input_file_id=str(uploaded.id),
            metadata={"rubricate_run": str(run_id), "round": str(round_no)}, **_provider_args(options))
        store.batches.add_batch(run_id, round_no, str(batch.id), str(uploaded.id), keys)


async def _poll(store: Store, batches: list[ProviderBatch], options: JudgeOptions) -> None:
    """Each batch's status; an ended one's output and error files read into the store."""
    litellm = import_litellm()
    for b in batches:
        # (litellm's own logging of a poll reads this, and would fail on its absence)
        got = await litellm.aretrieve_batch(batch_id=b.batch_id, litellm_metadata={"batch_ignore_default_logging": True},
                                            **_provider_args(options))
        status = str(got.status)
        if status not in SETTLED:
            store.batches.set_batch_status(b.pk, status)
            continue
        answers: dict[str, Answer] = {}
        unreadable = 0
        for file_id in (got.error_file_id, got.output_file_id):  # a reply wins over an error for one id
            if file_id:
                content = await litellm.afile_content(file_id=str(file_id), **_provider_args(options))
                found, bad = read_output(bytes(content.content))
                answers.update(found)
                unreadable += bad
        missing = UNANSWERED[status]
        if status == "failed" and got.errors:
            missing += f" ({' '.join(str(got.errors).split())[:200]})"
        if unreadable:
            missing += f" (its output had {unreadable} unreadable line{'s' if unreadable != 1 else ''})"
        store.batches.store_answers(
            b.pk, {k: (dict(a.body) if a.body is not None else None, a.error) for k, a in answers.items()}, missing)
