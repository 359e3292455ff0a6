"""Judge reply shapes the seeds write: ADR-016's flat object with notes (a rubric asks for it with
``judge.reply: flat``), and groundedness without context. Through the loopback server.

On the old code ADR-016's ``{"accuracy": 9, ..., "notes": ...}`` was refused with the
misleading 'dimension "accuracy" is missing from the answer', and groundedness was scored
against the reference when no context was supplied ("1/2 claims supported by the reference").
"""

from __future__ import annotations

import json
from dataclasses import replace

from rubrics.judge.runner import JudgeRunner
from rubrics.loader import load_rubric_text
from rubrics.methods.base import JudgeItem
from rubrics.results import ScoreResult
from rubrics.schema import Rubric
from tests.judge.helpers import client, dim, item, rubric
from tests.judge.loopback import LoopbackServer, Reply, user_prompt
from tests.seeds.helpers import FLAT


async def _run(r: Rubric, items: list[JudgeItem], server: LoopbackServer) -> list[ScoreResult]:
    got: list[ScoreResult] = []
    await JudgeRunner(r, client=client(server)).run(items, lambda rs, _h: got.extend(rs))
    return got


async def test_adr016_flat_reply_is_accepted_when_the_rubric_asks_for_it(server: LoopbackServer) -> None:
    r = load_rubric_text(FLAT)
    server.reset(default=Reply(json.dumps({"accuracy": 9, "completeness": 7, "relevance": 8,
                                           "notes": "Factually solid, slightly verbose"})))
    got = await _run(r, [item()], server)
    assert server.count == 1  # one call for every dimension
    assert {x.dimension: x.score for x in got} == {"accuracy": 9, "completeness": 7, "relevance": 8}
    assert {x.rationale for x in got} == {"Factually solid, slightly verbose"}
    prompt = user_prompt(server.requests[0])
    assert '"notes": "<brief justification of the scores>"' in prompt


async def test_flat_reply_is_parsed_strictly(server: LoopbackServer) -> None:
    r = load_rubric_text(FLAT)
    bad = [
        {"accuracy": 9, "completeness": 7, "notes": "no relevance"},                              # missing key
        {"accuracy": 9, "completeness": 7, "relevance": 8, "clarity": 5, "notes": "x"},           # extra key
        {"accuracy": 11, "completeness": 7, "relevance": 8, "notes": "x"},                        # off the scale
        {"accuracy": "high", "completeness": 7, "relevance": 8, "notes": "x"},                    # not a number
        {"accuracy": 9, "completeness": 7, "relevance": 8},                                        # no notes
    ]
    for answer in bad:
        server.reset(default=Reply(json.dumps(answer)))
        got = await _run(r, [item()], server)
        assert all(x.score is None and x.error for x in got), answer
        assert server.count == 2  # the reply and one re-ask, then an error (never a guess)
    server.reset(default=Reply(json.dumps(bad[0])))
    [first, *_] = await _run(r, [item()], server)
    assert first.error is not None and "missing relevance" in first.error


async def test_the_structured_combined_rubric_still_refuses_a_flat_reply(server: LoopbackServer) -> None:
    r = load_rubric_text(FLAT.replace("reply: flat", "reply: structured"))
    server.reset(default=Reply(json.dumps({"accuracy": 9, "completeness": 7, "relevance": 8, "notes": "n"})))
    got = await _run(r, [item()], server)
    assert all(x.error for x in got)


async def test_groundedness_is_not_applicable_without_context(server: LoopbackServer) -> None:
    grounded = dim("groundedness", method="groundedness")
    r = rubric(grounded)
    no_context = item(reference="Paris is the capital of France.")
    with_context = replace(no_context, id="q2", context="Paris has been France's capital since 987.")
    server.reset(default=Reply(lambda body: json.dumps(
        {"claims": ["Paris is the capital of France."]} if "atomic factual claim" in user_prompt(body)
        else {"verdicts": [{"claim": "c", "verdict": "supported", "quote": "capital"}]})))
    got = {x.item_id: x for x in await _run(r, [no_context, with_context], server)}
    assert got["q1"].not_applicable and got["q1"].score is None
    assert "no context" in got["q1"].rationale
    assert got["q2"].ok and got["q2"].score == 5
    assert server.count == 2  # only the item with context was checked (split, then verify)
