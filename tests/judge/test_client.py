"""The litellm client against the loopback server: parsing, re-ask, retries, timeouts, cache."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from rubrics.judge.cache import MemoryCache
from rubrics.judge.client import ClientSettings, CostCapReached, CostMeter, JudgeClient
from rubrics.judge.parse import number_on_scale
from rubrics.judge.prompt import Sandbox
from rubrics.schema import Scale
from tests.judge.loopback import LoopbackServer, Reply

SCALE = Scale(1, 5)


def client(server: LoopbackServer, **kw: Any) -> JudgeClient:
    cache = kw.pop("cache", None)
    meter = kw.pop("meter", None)
    settings = ClientSettings(
        model="openai/judge-x", api_base=server.url, api_key="sk-test",
        timeout=kw.pop("timeout", 5.0), retries=kw.pop("retries", 2), backoff=0.01, **kw,
    )
    return JudgeClient(settings, cache=cache, meter=meter)


def prompt(text: str = "rate this") -> Any:
    return Sandbox().finish("system", text, None)


def score(answer: dict[str, Any]) -> float:
    return number_on_scale(answer.get("score"), SCALE)


def answer(value: Any) -> str:
    return json.dumps({"score": value, "rationale": "r", "evidence": [], "confidence": 0.5})


async def test_good_reply_parses_and_reports_tokens(server: LoopbackServer) -> None:
    out = await client(server).judge(prompt(), score)
    assert out.value == 4 and out.error is None
    assert (out.tokens_in, out.tokens_out) == (100, 20)
    assert server.count == 1
    body = server.requests[0]
    assert body["model"] == "judge-x" and body["temperature"] == 0.0


async def test_fenced_json_is_parsed(server: LoopbackServer) -> None:
    server.reset(Reply("Most serious flaw: none.\n```json\n" + answer(5) + "\n```"))
    out = await client(server).judge(prompt(), score)
    assert out.value == 5 and server.count == 1


async def test_malformed_json_gets_exactly_one_reask(server: LoopbackServer) -> None:
    server.reset(Reply("{score: four"), Reply(answer(2)))
    out = await client(server).judge(prompt(), score)
    assert out.value == 2 and server.count == 2
    reask = server.requests[1]["messages"]
    assert reask[-2] == {"role": "assistant", "content": "{score: four"}
    assert "could not be used" in reask[-1]["content"]


async def test_still_bad_after_reask_is_an_error_with_both_raw_replies(server: LoopbackServer) -> None:
    server.reset(Reply("no json here"), Reply(answer(9)))
    out = await client(server).judge(prompt(), score)
    assert out.value is None and out.error is not None and "off the scale" in out.error
    assert out.raw is not None and "no json here" in out.raw and '"score": 9' in out.raw
    assert server.count == 2  # one re-ask, never more


async def test_429_backs_off_for_retry_after_then_succeeds(server: LoopbackServer) -> None:
    server.reset(Reply(status=429, headers={"Retry-After": "0.3"}), Reply(answer(3)))
    started = time.perf_counter()
    out = await client(server).judge(prompt(), score)
    assert out.value == 3 and server.count == 2
    assert time.perf_counter() - started >= 0.3


async def test_500_is_retried_at_most_retries_times(server: LoopbackServer) -> None:
    server.reset(default=Reply(status=500))
    out = await client(server, retries=2).judge(prompt(), score)
    assert out.value is None and out.error is not None and "after 3 attempts" in out.error
    assert server.count == 3  # 1 + retries: the SDK's own retries are off


async def test_400_is_not_retried(server: LoopbackServer) -> None:
    server.reset(default=Reply(status=400))
    out = await client(server, retries=3).judge(prompt(), score)
    assert out.error is not None and server.count == 1


async def test_slow_reply_times_out_at_the_timeout(server: LoopbackServer) -> None:
    server.reset(default=Reply(delay=3.0))
    started = time.perf_counter()
    out = await client(server, timeout=0.5, retries=1).judge(prompt(), score)
    elapsed = time.perf_counter() - started
    assert out.error is not None and "after 2 attempts" in out.error
    # both attempts gave up at 0.5 s: had either waited for its reply (3 s) it would have got a
    # score and no error; the bound leaves a loaded machine room (1 s is the expected time)
    assert server.count == 2 and elapsed < 3.0


async def test_cache_makes_a_repeated_call_free(server: LoopbackServer) -> None:
    cache = MemoryCache()
    first = await client(server, cache=cache).judge(prompt("same"), score)
    second = await client(server, cache=cache).judge(prompt("same"), score)
    assert server.count == 1
    assert first.cached is False and second.cached is True and second.value == first.value
    await client(server, cache=cache).judge(prompt("same"), score, sample=1)
    await client(server, cache=cache, temperature=0.7).judge(prompt("same"), score)
    assert server.count == 3  # another sample index or temperature is another call


async def test_two_servers_with_one_model_name_do_not_share_cached_replies(server: LoopbackServer) -> None:
    """On the old key (model, prompt, params, sample) the second server's question was answered
    from the first server's cached reply: ``other.count`` stayed 0 and both verdicts read 4."""
    other = LoopbackServer().start()
    try:
        server.reset(default=Reply(json.dumps({"score": 4, "rationale": "first server"})))
        other.reset(default=Reply(json.dumps({"score": 2, "rationale": "second server"})))
        cache = MemoryCache()
        first = await client(server, cache=cache).judge(prompt("same"), score)
        settings = ClientSettings(model="openai/judge-x", api_base=other.url, api_key="sk-test",
                                  timeout=5.0, retries=1, backoff=0.01)
        second = await JudgeClient(settings, cache=cache).judge(prompt("same"), score)
        assert other.count == 1 and second.cached is False
        assert (first.value, second.value) == (4, 2)
        again = await JudgeClient(settings, cache=cache).judge(prompt("same"), score)
        assert again.cached is True and again.value == 2 and other.count == 1
    finally:
        other.stop()


async def test_cost_cap_stops_before_the_next_call(server: LoopbackServer) -> None:
    meter = CostMeter(cap=0.5, spent=0.5)
    with pytest.raises(CostCapReached):
        await client(server, meter=meter).judge(prompt(), score)
    assert server.count == 0


async def test_known_model_gets_a_json_schema_and_a_price(server: LoopbackServer) -> None:
    c = JudgeClient(ClientSettings(model="openai/gpt-4o-mini", api_base=server.url, api_key="sk-test"))
    schema = {"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"],
              "additionalProperties": False}
    out = await c.judge(Sandbox().finish("system", "rate", schema), score)
    body = server.requests[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["score"]
    assert out.value == 4 and out.cost_usd > 0  # 100 in + 20 out at the model's listed price


async def test_unknown_model_is_parsed_instead_and_costs_zero(server: LoopbackServer) -> None:
    schema = {"type": "object", "properties": {"score": {"type": "number"}}}
    out = await client(server).judge(Sandbox().finish("system", "rate", schema), score)
    assert "response_format" not in server.requests[0] and out.cost_usd == 0.0 and out.value == 4
