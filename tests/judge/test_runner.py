"""The runner end to end over HTTP: samples, combined mode, choices, depends_on, turns, cache,
cost cap, panels, corrections, safety hits, pairs, claims and the dry run."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rubrics.judge.cache import MemoryCache
from rubrics.judge.client import CostMeter
from rubrics.judge.plan import dry_run
from rubrics.judge.runner import JudgeRunner, Totals
from rubrics.methods.base import JudgeItem
from rubrics.results import SafetyHit, ScoreResult
from rubrics.schema import DependsOn, Scale
from tests.judge.helpers import answer, client, dim, item, rubric
from tests.judge.loopback import LoopbackServer, Reply, user_prompt


class Collect:
    """A sink that keeps everything."""

    def __init__(self) -> None:
        self.results: list[ScoreResult] = []
        self.hits: list[SafetyHit] = []

    def __call__(self, results: list[ScoreResult], hits: list[SafetyHit]) -> None:
        self.results += results
        self.hits += hits

    def get(self, dimension: str, item_id: str = "q1", turn: int | None = None) -> ScoreResult:
        [r] = [r for r in self.results if (r.dimension, r.item_id, r.turn) == (dimension, item_id, turn)]
        return r


async def run(r: Any, items: list[JudgeItem], **kw: Any) -> tuple[Collect, Totals]:
    sink = Collect()
    totals = await JudgeRunner(r, **kw).run(items, sink)
    return sink, totals


async def test_samples_are_all_stored_with_mean_and_std(server: LoopbackServer) -> None:
    server.reset(Reply(answer(2)), Reply(answer(4)), Reply(answer(3)))
    sink, totals = await run(rubric(dim(samples=3)), [item()], client=client(server))
    r = sink.get("accuracy")
    assert sorted(r.samples) == [2, 3, 4] and r.score == 3 and r.std == pytest.approx(1.0)
    assert r.normalised == pytest.approx(0.5) and r.tokens_in == 300 and r.prompt_hash
    assert server.count == 3 and totals.status == "done"


async def test_one_bad_sample_fails_the_dimension(server: LoopbackServer) -> None:
    server.reset(Reply(answer(2)), Reply("nope"), Reply("still nope"))
    sink, _ = await run(rubric(dim(samples=2)), [item()], client=client(server), concurrency=1)
    r = sink.get("accuracy")
    assert r.score is None and r.error is not None and "1 of 2 samples failed" in r.error
    assert r.samples == [2] and r.raw_reply is not None


async def test_combined_mode_scores_every_dimension_in_one_call(server: LoopbackServer) -> None:
    reply = json.dumps({"accuracy": json.loads(answer(5)), "clarity": json.loads(answer(2))})
    server.reset(default=Reply(reply))
    r = rubric(dim("accuracy", weight=0.5), dim("clarity", weight=0.5), mode="combined")
    sink, _ = await run(r, [item()], client=client(server))
    assert server.count == 1
    assert (sink.get("accuracy").score, sink.get("clarity").score) == (5, 2)
    assert "id: clarity" in user_prompt(server.requests[0])


async def test_choices_map_the_answer_to_a_score(server: LoopbackServer) -> None:
    server.reset(default=Reply(json.dumps({"choice": "yes", "rationale": "r", "evidence": [],
                                           "confidence": 1})))
    d = dim("plot", scale=Scale(0, 1, (0.0, 1.0)), anchors=(), choices={"YES": 1.0, "NO": 0.0},
            prompt="Is the student asking for a plot? {turn}")
    sink, _ = await run(rubric(d), [item()], client=client(server))
    assert sink.get("plot").score == 1.0 and sink.get("plot").evidence[0] == {"choice": "YES"}


async def test_depends_on_records_not_applicable(server: LoopbackServer) -> None:
    server.reset(default=Reply(lambda body: answer(2 if "id: gate" in user_prompt(body) else 5)))
    gate = dim("gate", weight=0.5)
    follow = dim("detail", weight=0.5, depends_on=DependsOn("gate", min=3))
    sink, _ = await run(rubric(gate, follow), [item()], client=client(server))
    assert sink.get("gate").score == 2
    na = sink.get("detail")
    assert na.not_applicable and na.score is None and "gate scored 2" in na.rationale
    assert server.count == 1  # the dependent dimension cost nothing


async def test_turn_level_dimension_scores_each_assistant_turn(server: LoopbackServer) -> None:
    conversation = ({"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello!"},
                    {"role": "user", "content": "plot x^2"}, {"role": "assistant", "content": "Here: ..."})
    it = JudgeItem(id="c1", output="Here: ...", conversation=conversation)
    sink, _ = await run(rubric(dim("tone", metric_level="turn", prompt="Rate {turn}")), [it],
                        client=client(server))
    assert sorted(r.turn for r in sink.results if r.turn is not None) == [0, 1]
    first = user_prompt(server.requests[0]) + user_prompt(server.requests[1])
    assert "Hello!" in first and "Here: ..." in first


async def test_second_run_makes_no_network_call(server: LoopbackServer) -> None:
    cache = MemoryCache()
    items = [item(id=f"q{i}") for i in range(5)]
    first, _ = await run(rubric(dim(samples=2)), items, client=client(server, cache=cache))
    assert server.count == 10
    second, _ = await run(rubric(dim(samples=2)), items, client=client(server, cache=cache))
    assert server.count == 10
    assert all(r.cached for r in second.results) and not any(r.cached for r in first.results)
    assert [r.score for r in second.results] == [r.score for r in first.results]


async def test_cost_cap_stops_cleanly_keeping_scored_items(server: LoopbackServer) -> None:
    meter = CostMeter(cap=0.0)
    sink, totals = await run(rubric(dim()), [item(id=f"q{i}") for i in range(4)],
                             client=client(server, meter=meter))
    assert totals.status == "cost_cap" and sink.results == [] and server.count == 0


async def test_panel_models_are_kept_apart(server: LoopbackServer) -> None:
    server.reset(default=Reply(lambda body: answer(5 if body["model"] == "judge-a" else 2)))
    cache = MemoryCache()
    a, _ = await run(rubric(dim()), [item()], client=client(server, "openai/judge-a", cache=cache))
    b, _ = await run(rubric(dim()), [item()], client=client(server, "openai/judge-b", cache=cache))
    assert (a.get("accuracy").model, a.get("accuracy").score) == ("openai/judge-a", 5)
    assert (b.get("accuracy").model, b.get("accuracy").score) == ("openai/judge-b", 2)
    assert server.count == 2  # the cache key includes the model


async def test_correction_examples_go_into_the_prompt_and_are_recorded(server: LoopbackServer) -> None:
    examples = {"accuracy": [{"id": "ex-7", "output": "Lyon is the capital.", "judge_score": 5,
                              "human_score": 1, "reason": "Lyon is not the capital"}]}
    sink, _ = await run(rubric(dim(), correction_examples=1), [item()], client=client(server),
                        examples=examples)
    assert sink.get("accuracy").examples_used == ["ex-7"]
    prompt = user_prompt(server.requests[0])
    assert "Lyon is not the capital" in prompt and "scored it 1" in prompt


async def test_safety_hits_reach_the_sink(server: LoopbackServer) -> None:
    it = item(output="Sure, his SSN: 123-45-6789.")
    sink, totals = await run(rubric(dim(), gates=("pii",)), [it], client=client(server))
    [hit] = sink.hits
    assert (hit.gate, hit.item_id, hit.matched) == ("pii_exposure", "q1", "123-45-6789")
    assert totals.safety_hits == 1


async def test_treatment_and_argumentation_parity_over_a_group(server: LoopbackServer) -> None:
    server.reset(default=Reply(lambda body: (
        json.dumps({"parity": 0.4, "rationale": "B strawmanned", "evidence": []})
        if "opposing positions" in user_prompt(body)
        else answer(5 if "figure A" in user_prompt(body) else 3))))
    a = item(id="a", output="figure A did well", group="g1", variant="a")
    b = item(id="b", output="figure B did badly", group="g1", variant="b")
    r = rubric(dim(weight=1.0), dim("parity", "treatment_parity", weight=0),
               dim("argue", "argumentation_parity", weight=0))
    sink, _ = await run(r, [a, b], client=client(server))
    tp = sink.get("parity", "a")
    assert tp.normalised == pytest.approx(0.5)  # 1 - |1.0 - 0.5|
    assert sink.get("parity", "b").score == tp.score
    assert sink.get("argue", "b").normalised == pytest.approx(0.4)


async def test_claims_judge_mode_scores_the_supported_share(server: LoopbackServer) -> None:
    server.reset(
        Reply(json.dumps({"claims": ["Paris is the capital.", "It has 90 million people."]})),
        Reply(json.dumps({"verdicts": [
            {"claim": "Paris is the capital.", "verdict": "supported", "quote": "capital: Paris"},
            {"claim": "It has 90 million people.", "verdict": "contradicted", "quote": "2 million"}]})),
    )
    it = item(reference="France's capital: Paris, 2 million people.")
    sink, _ = await run(rubric(dim("halluc", "claim_pipeline")), [it], client=client(server))
    r = sink.get("halluc")
    assert r.normalised == pytest.approx(0.5) and [e["verdict"] for e in r.evidence] == [
        "supported", "contradicted"]


def test_dry_run_counts_calls_without_making_any(server: LoopbackServer) -> None:
    r = rubric(dim("a", samples=3, weight=0.5), dim("b", "deterministic", weight=0.5,
                                                  rule={"max_words": 5}))
    plan = dry_run(r, [item(id=f"q{i}") for i in range(4)], "openai/judge-x")
    assert plan.calls == {"a": 12} and plan.total_calls == 12 and plan.tokens_in > 0
    assert server.count == 0


# litellm.acompletion builds its provider coroutine in an executor thread and awaits it later; a
# cancel that lands in between leaves that coroutine unawaited. It is litellm's, and harmless here.
@pytest.mark.filterwarnings("ignore:coroutine 'OpenAIChatCompletion.acompletion' was never awaited")
async def test_cancelled_run_keeps_whole_items_only(server: LoopbackServer) -> None:
    """What Ctrl-C does: the run task is cancelled; finished items are already in the sink."""
    import asyncio

    server.reset(default=Reply(answer(4), delay=0.15))
    sink = Collect()
    r = rubric(dim("a", weight=0.5), dim("b", weight=0.5))
    runner = JudgeRunner(r, client=client(server), concurrency=2)
    items = [item(id=f"q{i}", output=f"Answer {i}.") for i in range(20)]
    task = asyncio.create_task(runner.run(items, sink))
    for _ in range(200):  # until a couple of items are in, then "Ctrl-C"
        if len({x.item_id for x in sink.results}) >= 2:
            break
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    done = {x.item_id for x in sink.results}
    assert 2 <= len(done) < 20
    assert all({x.dimension for x in sink.results if x.item_id == i} == {"a", "b"} for i in done)
    assert runner.totals.items == len(done)


async def test_cancel_before_a_dimension_starts_leaves_no_coroutine_unawaited(server: LoopbackServer) -> None:
    """The runner made each dimension's scoring coroutine before its task started; a cancel landing
    in between left it never awaited (the old code: "coroutine 'JudgeRunner._score_dim' was never
    awaited", once per dimension, seen as warnings in whole-suite runs)."""
    import asyncio
    import gc
    import warnings

    server.reset(default=Reply(answer(4)))
    r = rubric(dim("a", weight=0.5), dim("b", weight=0.5))
    runner = JudgeRunner(r, client=client(server), concurrency=2)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        task = asyncio.create_task(runner.score_item(item(id="q0", output="Answer.")))
        await asyncio.sleep(0)  # the item's jobs are gathered, none has started
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        del task
        gc.collect()
    unawaited = [str(w.message) for w in seen if "never awaited" in str(w.message)]
    assert unawaited == []


async def test_pair_groups_must_hold_two_items(server: LoopbackServer) -> None:
    r = rubric(dim(weight=1.0), dim("parity", "treatment_parity", weight=0))
    trio = [item(id=f"t{i}", output=f"out {i}", group="three") for i in range(3)]
    lone = item(id="solo", output="alone", group="one")
    sink, _ = await run(r, [*trio, lone], client=client(server))
    parity = [x for x in sink.results if x.dimension == "parity"]
    assert {x.item_id for x in parity} == {"t0", "t1", "t2"}
    assert all(x.error is not None and "exactly two" in x.error for x in parity)
