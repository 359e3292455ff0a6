"""``rubricate align``: fix the judge with people's labels, measured on items it never saw.

Per dimension: the labelled audit items (people's label: a lead's adjudication, else the
consensus of the labels, :mod:`reviewer.domain.labels`) are split, seeded and stratified by
people's level, into dev and test (:func:`calibration.align.split`). Every candidate
(:mod:`reviewer.services.align_candidates`) is judged on dev through the judge pipeline itself
(:class:`rubrics.judge.runner.JudgeRunner`, the store's judge cache, sandbox markers, one cost
meter for ``--max-cost``), all at once under the judge's concurrency. The best alpha on dev wins
(ties: the cheaper, then the earlier). Then the current and the chosen are judged on test, and
their alpha, kappa and bias are reported on the test items both scored, with the paired bootstrap
interval of the difference in alpha said in words (:func:`calibration.align.verdict`).

The candidates' scores are never stored as judge scores (they would become the items' judge
panel); the align run keeps them in its own row, with the split, the prompts and the figures.
A reply that does not parse is that item's error, as in ``judge``; the items a candidate could
not score are left out of its figures and counted.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from calibration.alpha import krippendorff_alpha
from calibration.report import DimensionInput, dimension_report
from reviewer.errors import UserError
from reviewer.services import align_candidates as cands
from reviewer.services.judging import StoreCache, item_from_record
from rubrics.judge.client import (
    ClientSettings,
    CostCapReached,
    CostMeter,
    JudgeClient,
    Outcome,
)
from rubrics.judge.loop import judge_loop
from rubrics.judge.runner import JudgeRunner
from rubrics.methods.base import JudgeItem
from rubrics.results import SafetyHit, ScoreResult
from rubrics.schema import Dimension, Rubric

if TYPE_CHECKING:  # (types alone: the store's module, imported, would load SQLAlchemy)
    from calibration.align import Array
    from reviewer.services.align_result import (
        AlignParams,
        AlignResult,
        CandidatePlan,
        CandidateRow,
        DimensionPlan,
        HeldOutFigures,
        HeldOutReport,
        Proposal,
        Rewrite,
        Side,
    )
    from reviewer.store import Store

from calibration.align import alpha_difference, split, verdict

#: Bootstrap draws for the test intervals (as ``calibrate``'s).
DRAWS = 1000


@dataclass(frozen=True)
class AlignOptions:
    """Everything ``rubricate align`` takes."""

    rubric_ref: str
    models: list[str] = field(default_factory=list)
    dimensions: list[str] = field(default_factory=list)
    candidates: str | None = None
    test_share: float = 0.3
    seed: int = 0
    samples: int | None = None
    max_cost: float | None = None
    api_base: str | None = None
    api_key: str | None = None
    concurrency: int = 8
    timeout: float = 60.0
    retries: int = 2
    draws: int = DRAWS


class CostCapStop(UserError):
    """``--max-cost`` was reached: nothing was chosen or written; the run keeps what was judged."""


@dataclass(frozen=True)
class _Setup:
    """One dimension's split, examples and candidates, before any call."""

    dim: Dimension
    people: dict[int, float]
    dev: list[int]
    test: list[int]
    examples: tuple[cands.Example, ...]
    names: list[str]


def _model(rubric: Rubric, options: AlignOptions) -> str:
    if options.models:
        return options.models[0]
    if rubric.judge.model:
        return rubric.judge.model
    raise UserError(f"{rubric.ref} names no judge model: pass --model (e.g. --model openai/gpt-4o-mini)")


def _dimensions(rubric: Rubric, options: AlignOptions) -> list[Dimension]:
    judged = [d for d in rubric.dimensions if d.method == "llm_judge"]
    if not options.dimensions:
        if not judged:
            raise UserError(f"{rubric.ref} has no llm_judge dimension to align")
        return judged
    out = []
    for name in options.dimensions:
        try:
            dim = rubric.dimension(name)
        except KeyError:
            raise UserError(f"--dimension {name}: {rubric.ref} has no such dimension; it has "
                            f"{', '.join(d.id for d in rubric.dimensions)}") from None
        if dim.method != "llm_judge":
            raise UserError(f"--dimension {name}: its method is {dim.method}; align tunes llm_judge dimensions")
        out.append(dim)
    return out


def _labels(store: Store, rubric: Rubric) -> Callable[[Dimension], dict[int, float]]:
    """People's label per audit item, for each dimension asked."""
    from reviewer.domain.columns import people_columns

    if not store.queue.has_audit_sample(rubric.ref):
        raise UserError(f"{rubric.ref} has no audit sample: align splits the audit items people labelled; draw one "
                        f"(rubricate queue audit-sample --rubric {rubric.ref} --n 200) and label it first")
    cols = store.ratings.rating_columns(rubric.ref, None, "audit")

    def of(dim: Dimension) -> dict[int, float]:
        how = "majority" if dim.measurement_level == "nominal" else "mean"
        people = people_columns(cols.dims[dim.id], how)
        ok = ~np.isnan(people)
        return {int(k): float(v) for k, v in zip(cols.item_pk[ok].tolist(), people[ok].tolist(), strict=True)}

    return of


def _setup(store: Store, rubric: Rubric, dim: Dimension, people: dict[int, float], options: AlignOptions) -> _Setup:
    keys = sorted(people)
    try:
        dev, test = split(keys, [people[k] for k in keys], options.test_share, options.seed)
    except ValueError as exc:
        raise UserError(f"--dimension {dim.id}: {exc}; label more audit items or change --test-share") from None
    names = cands.parse_names(options.candidates)
    return _Setup(dim, people, dev, test, cands.dev_examples(store, rubric, dim, dev), names)


def _items(store: Store, rubric: Rubric, keys: Sequence[int]) -> list[JudgeItem]:
    wanted = set(keys)
    return [item_from_record(r) for r in store.runs.items_for_judging(rubric.ref) if r["pk"] in wanted]


# -- judging ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Judged:
    """One candidate's scores on a set of items."""

    scores: dict[int, float] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)
    cost_usd: float = 0.0
    status: str = "done"


class _Calls:
    """The clients (one per model, sharing the store's judge cache and one cost meter) every
    candidate's runner calls through; their cache entries are written at the end of each phase."""

    def __init__(self, store: Store, options: AlignOptions, temperature: float) -> None:
        self.store, self.options, self.temperature = store, options, temperature
        self.cache = StoreCache(store)
        self.meter = CostMeter(cap=options.max_cost)
        self.clients: dict[str, JudgeClient] = {}

    def client(self, model: str) -> JudgeClient:
        if model not in self.clients:
            o = self.options
            settings = ClientSettings(model=model, api_base=o.api_base, api_key=o.api_key, timeout=o.timeout,
                                      retries=o.retries, temperature=self.temperature)
            self.clients[model] = JudgeClient(settings, cache=self.cache, meter=self.meter, concurrency=o.concurrency)
        return self.clients[model]

    def save(self) -> None:
        """Write the judge replies of this phase into the store's cache."""
        entries = self.cache.take()
        if entries:
            self.store.runs.judge_cache_put_many(entries)
            self.cache.written(entries)

    async def judge(self, cand: cands.Candidate, items: list[JudgeItem]) -> Judged:
        """``cand`` on ``items`` through the judge runner."""
        scores: dict[int, float] = {}
        errors: dict[int, str] = {}
        dim_id = cand.dimension.id

        def sink(results: list[ScoreResult], hits: list[SafetyHit]) -> None:
            for r in results:
                if r.dimension != dim_id or r.turn is not None or r.item_key is None:
                    continue
                if r.ok and r.score is not None:
                    scores[r.item_key] = float(r.score)
                elif r.error is not None:
                    errors[r.item_key] = r.error

        runner = JudgeRunner(cand.rubric, client=self.client(cand.model), examples={dim_id: cand.examples},
                             samples=cand.samples, concurrency=self.options.concurrency)
        totals = await runner.run(items, sink, total=len(items))
        return Judged(scores, errors, totals.cost_usd, totals.status)

    def run(self, jobs: list[tuple[cands.Candidate, list[JudgeItem]]]) -> list[Judged]:
        """Every job at once (the clients bound the calls in flight); cache entries saved after.
        Each phase has its own event loop, so its own clients: a client's slots, once waited on,
        belong to the loop they were waited on in."""
        self.clients = {}

        async def together() -> list[Judged]:
            async with judge_loop():
                return list(await asyncio.gather(*(self.judge(c, items) for c, items in jobs)))

        try:
            return asyncio.run(together())
        finally:
            self.save()

    def propose(self, dim: Dimension, model: str, examples: Sequence[cands.Example]) -> Rewrite:
        """The judge model's rewrite of the question from the dev disagreements: the meta-prompt,
        the proposal (or the error) and its cost."""
        shown = cands.dev_disagreements(examples)
        built = cands.meta_prompt(dim, shown)
        record: Rewrite = {"meta_prompt": built.messages, "disagreements": min(len(shown), cands.REWRITE_SHOWN),
                           "proposal": None, "error": None, "cost_usd": 0.0}
        if not shown:
            record["error"] = "no dev item has a correction (a person's score with a reason that differs from the judge)"
            return record

        self.clients = {}

        async def ask() -> Outcome[Proposal]:
            async with judge_loop():
                return await self.client(model).judge(built, cands.read_proposal)

        try:
            outcome = asyncio.run(ask())
        except CostCapReached:
            raise CostCapStop(self._cap_line("before the rewrite's proposal")) from None
        finally:
            self.save()
        record["cost_usd"] = outcome.cost_usd
        record["proposal"], record["error"] = outcome.value, outcome.error
        return record

    def _cap_line(self, where: str) -> str:
        return (f"--max-cost ${self.options.max_cost:g} reached {where} (spent ${self.meter.spent:.6g}): nothing "
                "chosen or written; the judge replies paid for are cached, so a rerun with a higher --max-cost "
                "pays only for the rest")


# -- figures -------------------------------------------------------------------------------------


def _alpha(judged: Judged, people: dict[int, float], keys: Sequence[int], dim: Dimension) -> tuple[float | None, int]:
    pairs = [(judged.scores[k], people[k]) for k in keys if k in judged.scores]
    if not pairs:
        return None, 0
    return krippendorff_alpha(np.asarray(pairs, dtype=np.float64), dim.measurement_level), len(pairs)


def choose(rows: Sequence[CandidateRow]) -> str:
    """The candidate with the best dev alpha; ties by cost, then by order (the first named)."""
    ranked = [(-round(alpha, 12), r["cost_usd"], i, r["name"]) for i, r in enumerate(rows)
              if (alpha := r["dev_alpha"]) is not None and r["status"] == "done"]
    if not ranked:
        return rows[0]["name"]
    return min(ranked)[3]  # (the order i is unique: names are never compared)


def figures_on_test(dim: Dimension, people: dict[int, float], keys: Sequence[int], before: Judged, after: Judged,
                 draws: int, seed: int) -> HeldOutFigures:
    """The current (``before``) and the chosen (``after``) on the test items both scored: alpha
    with its interval, kappa and bias; the difference in alpha, its paired interval, in words."""
    both = [k for k in keys if k in before.scores and k in after.scores]
    human = np.array([people[k] for k in both], dtype=np.float64)
    a = np.array([before.scores[k] for k in both], dtype=np.float64)
    b = np.array([after.scores[k] for k in both], dtype=np.float64)
    ordered = dim.measurement_level != "nominal"

    def figures(judge: Array) -> Side:
        inp = DimensionInput(dim.id, judge, human, list(dim.scale.level_values()), dim.threshold_raw,
                             dim.measurement_level, comparable=dim.judge_scale is None)
        f = dimension_report(inp, draws=draws, seed=seed).figures
        return {"n": f.get("n"), "alpha": f.get("alpha"), "alpha_ci": f.get("alpha_ci"),
                "kappa": f.get("kappa_linear") if ordered else f.get("kappa"), "bias": f.get("bias")}

    current, chosen = figures(a), figures(b)
    point, ci = alpha_difference(a, b, human, dim.measurement_level, draws, seed)
    return {"n": len(both), "before": current, "after": chosen, "difference": point,
            "difference_ci": list(ci) if ci else None, "verdict": verdict(ci)}


# -- the run -------------------------------------------------------------------------------------


def plan(store: Store, options: AlignOptions) -> list[DimensionPlan]:
    """``--dry-run``: per dimension the split sizes, the candidates and the calls and cost a run
    would spend (dev: every candidate; test: the current and one more; one call for a rewrite)."""
    from rubrics.judge.plan import dry_run

    rubric = store.rubrics.get_rubric(options.rubric_ref)
    model, labels = _model(rubric, options), _labels(store, rubric)
    out: list[DimensionPlan] = []
    for dim in _dimensions(rubric, options):
        s = _setup(store, rubric, dim, labels(dim), options)
        dev_items, test_items = _items(store, rubric, s.dev), _items(store, rubric, s.test)
        built = cands.build(s.names, rubric, dim, model, s.examples, options.models[1:], options.samples,
                            rewritten=dim.prompt)
        rows: list[CandidatePlan] = []
        cost, calls = 0.0, 0
        for c in built:
            d = dry_run(c.rubric, dev_items, c.model, c.samples, {dim.id: c.examples})
            rows.append({"name": c.name, "model": c.model, "calls": d.total_calls, "cost_usd": d.cost_usd})
            calls += d.total_calls + (1 if c.name == "rewrite" else 0)
            cost = math.nan if d.cost_usd is None else cost + d.cost_usd
        t = dry_run(built[0].rubric, test_items, model, None, {dim.id: s.examples})
        calls += 2 * t.total_calls
        cost = math.nan if t.cost_usd is None else cost + 2 * t.cost_usd
        out.append({"dimension": dim.id, "dev_items": len(s.dev), "test_items": len(s.test), "candidates": rows,
                    "test_calls": 2 * t.total_calls, "calls": calls,
                    "cost_usd": None if math.isnan(cost) else round(cost, 6)})
    return out


def run(store: Store, options: AlignOptions, on_step: Callable[[str], None] | None = None) -> list[AlignResult]:
    """Align every dimension asked; one stored align run each. Raises :class:`CostCapStop` at
    ``--max-cost`` (the run is stored with status ``cost_cap`` and what it found)."""
    rubric = store.rubrics.get_rubric(options.rubric_ref)
    model, labels = _model(rubric, options), _labels(store, rubric)
    say = on_step or (lambda _: None)
    calls = _Calls(store, options, rubric.judge.temperature)
    out: list[AlignResult] = []
    for dim in _dimensions(rubric, options):
        s = _setup(store, rubric, dim, labels(dim), options)
        params: AlignParams = {"seed": options.seed, "test_share": options.test_share, "candidates": s.names,
                  "models": options.models, "samples": options.samples, "max_cost": options.max_cost,
                  "draws": options.draws, "api_base": options.api_base}
        run_id = store.align.create_align_run(rubric.ref, dim.id, model, params)
        result: AlignResult = {"dimension": dim.id, "run": run_id, "model": model, "seed": options.seed,
                               "test_share": options.test_share}
        try:
            result = _align_one(store, rubric, s, model, options, calls, result, say)
        except CostCapStop:
            result["status"] = "cost_cap"
            store.align.finish_align_run(run_id, "cost_cap", result)
            raise
        except BaseException as exc:  # the run still ends with a status, keeping what it found
            status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
            result["status"] = status
            store.align.finish_align_run(run_id, status, result)
            raise
        store.align.finish_align_run(run_id, "done", result)
        out.append(result)
    return out


def _align_one(store: Store, rubric: Rubric, s: _Setup, model: str, options: AlignOptions, calls: _Calls,
               result: AlignResult, say: Callable[[str], None]) -> AlignResult:
    dim = s.dim
    ids = {r["pk"]: str(r["id"]) for r in store.runs.items_for_judging(rubric.ref) if r["pk"] in s.people}
    result["dev_items"], result["test_items"] = [ids[k] for k in s.dev], [ids[k] for k in s.test]
    say(f"{dim.id}: {len(s.dev)} dev and {len(s.test)} test items; {len(s.examples)} dev corrections")
    rewrite: Rewrite | None = None
    if "rewrite" in s.names:
        rewrite = calls.propose(dim, model, s.examples)
        result["rewrite"] = rewrite
    proposal = rewrite["proposal"] if rewrite else None
    built = cands.build(s.names, rubric, dim, model, s.examples, options.models[1:], options.samples,
                        rewritten=proposal["prompt"] if proposal else None,
                        rewrite_error=rewrite["error"] if rewrite else None)
    runnable = [c for c in built if c.error is None]
    dev_items = _items(store, rubric, s.dev)
    say(f"{dim.id}: judging {len(runnable)} candidates on {len(dev_items)} dev items")
    judged = dict(zip((c.name for c in runnable), calls.run([(c, dev_items) for c in runnable]), strict=True))
    rows: list[CandidateRow] = []
    for c in built:
        j = judged.get(c.name)
        alpha, n = _alpha(j, s.people, s.dev, dim) if j is not None else (None, 0)
        extra = rewrite["cost_usd"] if rewrite and c.name == "rewrite" else 0.0
        rows.append({"name": c.name, "prompt_hash": c.prompt_hash, "prompt": c.prompt, "k": c.k, "model": c.model,
                     "samples": c.samples, "dev_alpha": alpha, "dev_n": n,
                     "errors": len(j.errors) if j else 0, "cost_usd": round((j.cost_usd if j else 0.0) + extra, 6),
                     "status": j.status if j else "not run", "error": c.error})
    result["candidates"] = rows
    if any(r["status"] == "cost_cap" for r in rows):
        raise CostCapStop(calls._cap_line(f"while judging the candidates on dev ({dim.id})"))
    chosen = choose(rows)
    result["chosen"] = chosen
    by_name = {c.name: c for c in built}
    test_items = _items(store, rubric, s.test)
    both = "current" + (f" and {chosen}" if chosen != "current" else "")
    say(f"{dim.id}: {chosen} chosen on dev; judging {both} on {len(test_items)} test items")
    pair = [by_name["current"]] + ([by_name[chosen]] if chosen != "current" else [])
    done = calls.run([(c, test_items) for c in pair])
    if any(d.status == "cost_cap" for d in done):
        raise CostCapStop(calls._cap_line(f"while judging on test ({dim.id})"))
    before, after = done[0], done[-1]
    test: HeldOutReport = {**figures_on_test(dim, s.people, s.test, before, after, options.draws, options.seed),
                           "errors": {"before": len(before.errors), "after": len(after.errors)},
                           "cost_usd": round(sum(d.cost_usd for d in done), 6)}
    result["test"] = test
    result["status"] = "done"
    return result
