"""The runner: scores items with every method their rubric names, for one judge model.

Items are scored by ``concurrency`` workers; each item's dimensions go in waves so a
``depends_on`` condition sees the score it depends on; turn-level dimensions score each
assistant turn. Every finished item is handed to ``sink`` at once (results and safety hits), so
an interrupted run keeps what it scored. Pair methods run last, over the groups seen. A reached
cost cap stops new work; the item it interrupted is dropped whole, so ``--only-missing`` redoes
it. With embedding dimensions, items are taken in chunks whose texts are encoded together first
(:mod:`rubrics.judge.prefetch`). A panel is several runners (one per model) sharing a cache and a :class:`CostMeter`.

One item cannot end the run: any exception inside one dimension's call, parse or rule (an empty
reply, a reply nested past the parser's depth, a rule of the wrong type, a bug) becomes that
dimension's recorded error for that item (:func:`crash_note`), and the other dimensions and items
go on. Only the cost cap, Ctrl-C and a failing sink (the store) stop a run; a failing sink lets the
items in flight finish first, so every reply already paid for reaches the cache.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rubrics.judge.client import CostCapReached, JudgeClient
from rubrics.judge.conditions import outside
from rubrics.judge.gate_check import llm_gate_check
from rubrics.judge.loop import off_loop
from rubrics.judge.plan import combinable, item_dimensions, scoring_order
from rubrics.judge.prefetch import CHUNK_ITEMS, CHUNK_PAIRS, Prefetch, model_of
from rubrics.judge.prompt import examples_for
from rubrics.methods import claims, pairs
from rubrics.methods.base import JudgeItem, failed, turn_views
from rubrics.methods.deterministic import score_deterministic
from rubrics.methods.llm_judge import score_combined, score_llm_judge
from rubrics.methods.semantic import DEFAULT_MODEL, Embedder, score_semantic, semantic_texts
from rubrics.methods.turns import roll_up
from rubrics.results import SafetyHit, ScoreResult
from rubrics.safety import check_gates
from rubrics.schema import Dimension, Rubric

R = TypeVar("R")
Sink = Callable[[list[ScoreResult], list[SafetyHit]], None]


@dataclass
class Progress:
    """What the progress bar shows after each item."""

    done: int
    total: int | None
    calls: int
    cached_calls: int
    cost_usd: float
    errors: int


@dataclass
class Totals:
    """A run's figures, live while it runs and final after."""

    items: int = 0
    results: int = 0
    errors: int = 0
    not_applicable: int = 0
    safety_hits: int = 0
    #: Judge results answered wholly from the cache (no network call).
    cached: int = 0
    cost_usd: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    status: str = "running"
    #: Judge checks behind the gates (``safety_llm_check``) whose call failed (no flag opened).
    gate_check_errors: int = 0
    #: Texts the embedding model encoded (found in no cache): 0 on a rerun.
    embedded: int = 0
    #: Wall seconds some judge call was held back by ``--rpm``/``--tpm``, a 429's ``Retry-After``
    #: or concurrency lowered after a 429 (:mod:`rubrics.judge.limits`).
    limit_wait_s: float = 0.0
    #: 429 replies the judge's server sent.
    rate_limited: int = 0
    per_dimension: dict[str, dict[str, float]] = field(default_factory=dict)

    def add(self, result: ScoreResult) -> None:
        """Count one result."""
        self.results += 1
        self.errors += result.error is not None
        self.not_applicable += result.not_applicable
        self.cached += result.cached
        self.cost_usd += result.cost_usd
        self.tokens_in += result.tokens_in
        self.tokens_out += result.tokens_out
        dim = self.per_dimension.setdefault(
            result.dimension, {"n": 0, "errors": 0, "not_applicable": 0, "score_sum": 0.0, "cost_usd": 0.0})
        dim["n"] += 1
        dim["errors"] += result.error is not None
        dim["not_applicable"] += result.not_applicable
        dim["cost_usd"] += result.cost_usd
        if result.ok and result.score is not None:
            dim["score_sum"] += result.score

    def as_dict(self) -> dict[str, Any]:
        """Plain form for the store and the report; per dimension with the mean score."""
        dims = {}
        for name, d in self.per_dimension.items():
            scored_n = d["n"] - d["errors"] - d["not_applicable"]
            dims[name] = {"n": int(d["n"]), "errors": int(d["errors"]),
                          "not_applicable": int(d["not_applicable"]),
                          "mean": d["score_sum"] / scored_n if scored_n else None,
                          "cost_usd": round(d["cost_usd"], 6)}
        return {"items": self.items, "results": self.results, "errors": self.errors,
                "not_applicable": self.not_applicable, "safety_hits": self.safety_hits,
                "cached": self.cached, "gate_check_errors": self.gate_check_errors, "embedded": self.embedded,
                "limit_wait_s": round(self.limit_wait_s, 3), "rate_limited": self.rate_limited,
                "cost_usd": round(self.cost_usd, 6), "tokens_in": self.tokens_in,
                "tokens_out": self.tokens_out, "status": self.status, "dimensions": dims}


@dataclass
class _Seen:
    """What pair methods need to remember of an item."""

    item: JudgeItem
    overall: float | None


class JudgeRunner:
    """Scores items against one rubric with one judge model (or none, for rubrics without
    judge methods)."""

    def __init__(
        self,
        rubric: Rubric,
        client: JudgeClient | None = None,
        embedder: Embedder | None = None,
        examples: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
        samples: int | None = None,
        concurrency: int = 8,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> None:
        self.rubric = rubric
        self.client = client
        self._embedder = embedder
        self._embedders: dict[str, Embedder] = {embedder.model_name: embedder} if embedder else {}
        self.examples = examples or {}
        self.samples = samples
        self.concurrency = max(1, concurrency)
        self.on_progress = on_progress
        self.totals = Totals()
        #: (dataset, group key) → the items seen: group keys repeat across datasets
        self._groups: dict[tuple[str, str], list[_Seen]] = {}
        self._has_pairs = any(d.is_pair for d in rubric.dimensions)
        self._prefetch = Prefetch(rubric.dimensions, client is not None, self._embedder_named)

    @property
    def model(self) -> str | None:
        """The judge model's name, if any."""
        return self.client.model if self.client else None

    def embedder(self, dim: Dimension | None = None) -> Embedder:
        """The embedder for a dimension's model (``params.model``; MiniLM by default)."""
        return self._embedder_named(model_of(dim) if dim else DEFAULT_MODEL)

    def _embedder_named(self, name: str) -> Embedder:
        if name not in self._embedders:
            cache = self._embedder.cache if self._embedder else None
            self._embedders[name] = Embedder(name, cache=cache)
        return self._embedders[name]

    # -- one item --------------------------------------------------------------------------

    async def _isolated(self, view: JudgeItem, dim: Dimension) -> ScoreResult:
        """The dimension's score, or its exception as this dimension's recorded error. The scoring
        coroutine is made here, once this one runs: made by the caller, a run cancelled before the
        job started left it never awaited (a RuntimeWarning per job)."""
        try:
            return await self._score_dim(view, dim)
        except CostCapReached:
            raise
        except Exception as exc:
            return failed(view, dim, crash_note(exc), model=self.model)

    async def _score_dim(self, item: JudgeItem, dim: Dimension) -> ScoreResult:
        method = dim.method
        if method == "deterministic":
            return score_deterministic(item, dim)
        if method == "semantic_similarity":
            return await _embedding(semantic_texts(item), self.embedder(dim), score_semantic, item, dim)
        if method == "groundedness" and not item.context.strip():
            # The wiki: groundedness applies "only when context is supplied".
            return ScoreResult(item_id=item.id, dimension=dim.id, method=method, model=self.model,
                               turn=item.turn, not_applicable=True,
                               rationale="not applicable: no context was supplied to ground the output in")
        if method in ("claim_pipeline", "groundedness"):
            if self.client is not None and dim.params.get("checker") != "embedding":
                return await claims.score_claims_judge(item, dim, self.client)
            return await _embedding(claims.claims_texts(item, dim), self.embedder(dim),
                                    claims.score_claims_offline, item, dim)
        if method == "llm_judge":
            if self.client is None:
                return failed(item, dim, "no judge model: pass --model or set judge.model in the rubric")
            shown = examples_for(self.examples.get(dim.id, ()), item.key, self.rubric.judge.correction_examples)
            return await score_llm_judge(item, dim, self.client, shown, self.samples, reply=self.rubric.judge.reply)
        return failed(item, dim, f"method {method} cannot score a single item")

    def _not_applicable(self, view: JudgeItem, dim: Dimension,
                        done: Mapping[tuple[str, int | None], ScoreResult]) -> ScoreResult | None:
        if dim.role not in (None, "any") and not dim.in_parts and view.conversation \
                and view.last_role() != dim.role:
            # FlexEval's is_role on an item-level dimension: the item's last message decides.
            return ScoreResult(item_id=view.id, dimension=dim.id, method=dim.method, model=self.model,
                               turn=view.turn, not_applicable=True,
                               rationale=f"not applicable: the last message is not from the {dim.role}")
        try:
            why = outside(view, dim)
        except ValueError as exc:
            return failed(view, dim, str(exc), model=self.model)
        if why is not None:
            return ScoreResult(item_id=view.id, dimension=dim.id, method=dim.method, model=self.model,
                               turn=view.turn, not_applicable=True, rationale=f"not applicable: {why}")
        cond = dim.depends_on
        if cond is None:
            return None
        other = done.get((cond.dimension, view.turn)) or done.get((cond.dimension, None))
        if other is not None and other.ok and other.score is not None and cond.holds(other.score):
            return None
        why = "did not score" if other is None or other.score is None else f"scored {other.score:g}"
        return ScoreResult(item_id=view.id, dimension=dim.id, method=dim.method, model=self.model,
                           turn=view.turn, not_applicable=True,
                           rationale=f"not applicable: {cond.dimension} {why}, outside the condition")

    async def score_item(self, item: JudgeItem) -> tuple[list[ScoreResult], list[SafetyHit]]:
        """Every item-level dimension of one item, and its safety hits."""
        texts = dict.fromkeys([item.output] + [str(item.conversation[i].get("content", ""))
                                                for i in item.assistant_turns()])
        ref = {"id": item.id, "metadata": dict(item.metadata)}
        hits = [h for t in texts for h in check_gates(self.rubric.safety_gates, t, ref)]
        if self.rubric.safety_llm_check and self.client is not None:
            hits += await self._llm_gate_checks(item, list(texts), hits)
        dims = item_dimensions(self.rubric)
        has_turns = bool(item.assistant_turns())
        together = [d for d in dims if combinable(self.rubric, d, has_turns)]
        done: dict[tuple[str, int | None], ScoreResult] = {}
        results: list[ScoreResult] = []
        if together:
            for r in await self._combined(item, together):
                done[(r.dimension, r.turn)] = r
                results.append(r)
        for wave in scoring_order([d for d in dims if d not in together]):
            jobs: list[Any] = []
            for dim in wave:
                for view in turn_views(item, dim):
                    na = self._not_applicable(view, dim, done)
                    jobs.append(_ready(na) if na is not None
                                else self._isolated(view, dim))
            for r in await asyncio.gather(*jobs):
                done[(r.dimension, r.turn)] = r
                results.append(r)
            for dim in (d for d in wave if d.in_parts and item.conversation):
                # The item's score from its turns' scores, by the rubric's rule.
                turns = [r for r in results if r.dimension == dim.id and r.turn is not None]
                r = roll_up(item, dim, turns, self.model)
                done[(r.dimension, None)] = r
                results.append(r)
        if self._has_pairs and item.group is not None:
            self._groups.setdefault((item.dataset, item.group), []).append(_Seen(item, self._overall(results)))
        for r in results:
            r.item_key = item.key
        for h in hits:
            h.item_key = item.key
        return results, hits

    async def _llm_gate_checks(self, item: JudgeItem, texts: list[str], hits: list[SafetyHit]) -> list[SafetyHit]:
        """The judge's check behind the rules, on each text the rules passed for a gate."""
        assert self.client is not None
        caught = {(h.gate, h.matched) for h in hits}
        jobs = [llm_gate_check(gate, item, text, self.client)
                for gate in self.rubric.safety_llm_check for text in texts
                if not any(g == gate and m in text for g, m in caught)]
        found: list[SafetyHit] = []
        for more, cost, error in await asyncio.gather(*jobs):
            found += more
            self.totals.cost_usd += cost
            self.totals.gate_check_errors += error
        return found

    async def _combined(self, item: JudgeItem, dims: list[Dimension]) -> list[ScoreResult]:
        """Every dimension of a combined call; a failure anywhere in it is each one's error."""
        if self.client is None:
            return [failed(item, d, "no judge model: pass --model or set judge.model in the rubric")
                    for d in dims]
        try:
            return await score_combined(item, dims, self.client, self.samples, self.rubric.judge.reply)
        except CostCapReached:
            raise
        except Exception as exc:
            return [failed(item, d, crash_note(exc), model=self.model) for d in dims]

    def _overall(self, results: Sequence[ScoreResult]) -> float | None:
        """Weighted mean of the normalised item-level scores (treatment parity's input)."""
        by_dim = {r.dimension: r for r in results if r.turn is None}
        total = weight = 0.0
        for dim in item_dimensions(self.rubric):
            if dim.weight <= 0:
                continue
            r = by_dim.get(dim.id)
            if r is None or r.normalised is None or not r.ok:
                return None
            total += dim.weight * r.normalised
            weight += dim.weight
        return total / weight if weight else None

    # -- pairs ------------------------------------------------------------------------------

    async def score_pairs(self) -> list[ScoreResult]:
        """Pair methods over every group seen (exactly two items each).

        A group with one item seen gets no pair result: its partner is outside this run (another
        dataset, or already scored when resuming with ``--only-missing``).
        """
        out: list[ScoreResult] = []
        groups = [(key, sorted(members, key=lambda s: (s.item.variant or "", s.item.id)))
                  for (_, key), members in sorted(self._groups.items()) if len(members) > 1]
        for chunk, texts in self._prefetch.chunks(
                groups, lambda g: self._prefetch.pair_texts([(g[1][0].item, g[1][1].item)] if len(g[1]) == 2 else []),
                CHUNK_PAIRS):
            await self._prefetch.encode(texts)
            for key, ordered in chunk:
                out += await self._score_group(key, ordered)
        return out

    async def _score_group(self, key: str, ordered: list[_Seen]) -> list[ScoreResult]:
        """Every pair dimension of one group (its members in variant order)."""
        out: list[ScoreResult] = []
        keys = {s.item.id: s.item.key for s in ordered}  # ids are unique within a dataset
        for dim in (d for d in self.rubric.dimensions if d.is_pair):
            if len(ordered) != 2:
                found = [failed(s.item, dim, f"group {key!r} has {len(ordered)} items; pair "
                                "methods need exactly two") for s in ordered]
            else:
                a, b = ordered
                try:
                    found = await self._pair(dim, a, b)
                except CostCapReached:
                    raise
                except Exception as exc:
                    found = [failed(s.item, dim, crash_note(exc), model=self.model) for s in (a, b)]
            for r in found:
                r.item_key = keys.get(r.item_id)
            out += found
        return out

    async def _pair(self, dim: Dimension, a: _Seen, b: _Seen) -> list[ScoreResult]:
        if dim.method == "pair_similarity":
            return await _embedding(pairs.pair_texts(dim, a.item, b.item), self.embedder(dim),
                                    pairs.pair_similarity, dim, a.item, b.item)
        if dim.method == "framing_consistency":
            return await _embedding(pairs.pair_texts(dim, a.item, b.item), self.embedder(dim),
                                    pairs.framing_consistency, dim, a.item, b.item)
        if dim.method == "treatment_parity":
            return pairs.treatment_parity(dim, a.item, b.item, a.overall, b.overall)
        if self.client is None:
            return [failed(s.item, dim, "no judge model: pass --model") for s in (a, b)]
        return await pairs.argumentation_parity(dim, a.item, b.item, self.client)

    # -- the run ----------------------------------------------------------------------------

    def _record(self, sink: Sink, results: list[ScoreResult], hits: list[SafetyHit]) -> None:
        for r in results:
            self.totals.add(r)
        self.totals.safety_hits += len(hits)
        sink(results, hits)

    def _progress(self, total: int | None) -> None:
        if self.on_progress is None:
            return
        meter = self.client.meter if self.client else None
        self.on_progress(Progress(self.totals.items, total, meter.calls if meter else 0,
                                  meter.cached_calls if meter else 0, self.totals.cost_usd,
                                  self.totals.errors))

    async def run(self, items: Iterable[JudgeItem], sink: Sink, total: int | None = None) -> Totals:
        """Score every item, then the pairs; ``totals.status`` says how the run ended."""
        source: Iterator[JudgeItem] = iter(items)
        encoded_before = {name: e.encoded for name, e in self._embedders.items()}
        limits = self.client.limits if self.client else None
        waited_before, throttled_before = (limits.waited_s, limits.throttled) if limits else (0.0, 0)
        stop = asyncio.Event()
        #: the sink's first failure: no new item starts, the items in flight finish (their paid
        #: replies reach the client's cache), then the run raises it
        refused: list[Exception] = []
        ready: deque[JudgeItem] = deque()
        refill = asyncio.Lock()

        chunks = self._prefetch.chunks(source, lambda item: self._prefetch.item_texts([item]), CHUNK_ITEMS)

        async def take() -> JudgeItem | None:
            if not self._prefetch.dims:
                return next(source, None)
            async with refill:  # one worker encodes the next chunk; the others wait for it
                if not ready:
                    chunk, texts = next(chunks, ([], {}))
                    await self._prefetch.encode(texts)
                    ready.extend(chunk)
                return ready.popleft() if ready else None

        async def worker() -> None:
            while not stop.is_set():
                item = await take()
                if item is None:
                    return
                try:
                    results, hits = await self.score_item(item)
                except CostCapReached:
                    self.totals.status = "cost_cap"
                    stop.set()
                    return
                except Exception as exc:  # outside any one dimension (safety gates, planning)
                    results = [failed(item, d, crash_note(exc), model=self.model)
                               for d in item_dimensions(self.rubric)]
                    hits = []
                self.totals.items += 1
                try:
                    self._record(sink, results, hits)
                except Exception as exc:
                    refused.append(exc)
                    stop.set()
                    return
                self._progress(total)

        await asyncio.gather(*(worker() for _ in range(self.concurrency)))
        if refused:
            raise refused[0]
        if self.totals.status == "running":
            try:
                self._record(sink, await self.score_pairs(), [])
            except CostCapReached:
                self.totals.status = "cost_cap"
        if self.totals.status == "running":
            self.totals.status = "done"
        self.totals.embedded = sum(e.encoded - encoded_before.get(n, 0) for n, e in self._embedders.items())
        if limits is not None:  # a panel's models share the limits: this run's part of them
            self.totals.limit_wait_s = limits.waited_s - waited_before
            self.totals.rate_limited = limits.throttled - throttled_before
        self._progress(total)
        return self.totals


async def _embedding(texts: list[str], embedder: Embedder, score: Callable[..., R], *args: Any) -> R:
    """``score(*args, embedder)``: on the event loop when the embedder holds every vector in
    memory (a cosine or two: a thread hop would cost more), else on the loop's thread for long work
    (:func:`rubrics.judge.loop.off_loop`), as the model may run."""
    if embedder.holds(texts):
        return score(*args, embedder)
    return await off_loop(score, *args, embedder)


async def _ready(result: ScoreResult) -> ScoreResult:
    return result


def crash_note(exc: BaseException) -> str:
    """An unexpected failure as one line for the item's recorded judge error."""
    text = str(exc).splitlines()[0][:200] if str(exc) else ""
    return f"could not be scored: {type(exc).__name__}{': ' + text if text else ''}"
