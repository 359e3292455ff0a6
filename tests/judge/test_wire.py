"""The judge at the wire's limit: a run's time is spent on judge calls, not on loading litellm or
draining litellm's own logging queue (``benchmarks/bench_judge_wire.py`` measures the rate)."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litellm.integrations.custom_logger import CustomLogger
from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

from rubrics.judge.client import ClientSettings, JudgeClient, release_litellm
from rubrics.judge.prompt import Sandbox
from tests.judge.helpers import RUBRIC
from tests.judge.loopback import LoopbackServer

ROOT = Path(__file__).resolve().parents[2]


class Heard(CustomLogger):
    """A litellm callback someone registered: the replies it was told of."""

    def __init__(self) -> None:
        super().__init__()
        self.replies: list[str] = []

    async def async_log_success_event(self, kwargs: object, response_obj: Any, start_time: object,
                                      end_time: object) -> None:
        self.replies.append(response_obj.choices[0].message.content)


@pytest.fixture
def heard() -> Iterator[Heard]:
    """A callback registered with litellm for one test (litellm's own list, restored after)."""
    import litellm

    logger = Heard()
    litellm.callbacks.append(logger)
    try:
        yield logger
    finally:
        litellm.callbacks.remove(logger)


async def test_no_logging_record_is_built_when_no_callback_is_registered(server: LoopbackServer) -> None:
    """litellm queues a logging record of every reply on a worker task on the judge's loop; with
    no callback to hear it, nothing is queued and the worker never starts."""
    judge = JudgeClient(ClientSettings(model="openai/judge-x", api_base=server.url, api_key="sk-test"))
    await release_litellm()  # (a worker left from an earlier test's loop)
    for _ in range(3):
        await judge.complete(Sandbox().finish("system", "rate this", None))
    await asyncio.sleep(0.05)  # litellm's logging helper is a task of its own: let it run
    assert GLOBAL_LOGGING_WORKER._worker_task is None
    await release_litellm()


async def test_a_registered_callback_still_hears_every_reply(server: LoopbackServer, heard: Heard) -> None:
    judge = JudgeClient(ClientSettings(model="openai/judge-x", api_base=server.url, api_key="sk-test"))
    for i in range(3):
        await judge.complete(Sandbox().finish("system", f"rate this {i}", None))
    queue = GLOBAL_LOGGING_WORKER._queue
    for _ in range(100):  # the worker runs its records one at a time
        await asyncio.sleep(0.02)
        if len(heard.replies) == 3 and queue is not None and queue.empty():
            break
    assert len(heard.replies) == 3 and all("score" in r for r in heard.replies)
    await release_litellm()


async def test_release_drops_litellms_logging_backlog_unrun(server: LoopbackServer, heard: Heard) -> None:
    """At a high call rate litellm's logging worker falls thousands of callbacks behind (with a
    callback registered: ``heard``); ending the loop must not wait them out (it held a 64-wide
    run's end for seven seconds), nor leave a "never awaited" warning for each."""
    judge = JudgeClient(ClientSettings(model="openai/judge-x", api_base=server.url, api_key="sk-test"))
    await judge.complete(Sandbox().finish("system", "rate this", None))
    ran: list[int] = []

    async def slow_callback(i: int) -> None:
        await asyncio.sleep(0.5)
        ran.append(i)

    for i in range(20):  # ten seconds of callbacks, as a backlog behind the real ones
        GLOBAL_LOGGING_WORKER.ensure_initialized_and_enqueue(slow_callback(i))
    await asyncio.sleep(0)  # the worker takes the first
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        await release_litellm()
        gc.collect()
    # Waiting the backlog out would run all twenty; the count says so without a clock, which a
    # loaded machine stretches (2.7 s once at load 9 for a release that ran none of them).
    assert len(ran) <= 1  # at most the one the worker had begun
    assert not [w for w in caught if "never awaited" in str(w.message)]
    assert GLOBAL_LOGGING_WORKER._worker_task is None


async def test_a_live_call_costs_litellms_price_of_its_reply(server: LoopbackServer) -> None:
    """A reply's cost is the price litellm put on it as it returned it (read, not computed a second
    time on the event loop): a listed model's price per token, and nothing for a model without one."""
    import litellm

    for model, priced in (("openai/gpt-4o-mini", True), ("openai/judge-x", False)):
        judge = JudgeClient(ClientSettings(model=model, api_base=server.url, api_key="sk-test"))
        done = await judge.complete(Sandbox().finish("system", "rate this", None))
        listed = litellm.model_cost["gpt-4o-mini"]
        by_tokens = done.tokens_in * listed["input_cost_per_token"] + done.tokens_out * listed["output_cost_per_token"]
        assert done.tokens_in > 0 and done.tokens_out > 0
        assert done.cost_usd == pytest.approx(by_tokens if priced else 0.0, rel=1e-9)
        assert judge.meter.spent == done.cost_usd and (done.cost_usd > 0) == priced


SCRIPT = """\
import json, sys
from reviewer.services import judging
from reviewer.services.importing import import_file
from reviewer.store import open_store
from rubrics.loader import load_rubric_file

db, rubric, items, url = sys.argv[1:5]
store = open_store(db)
store.rubrics.add_rubric(load_rubric_file(rubric), open(rubric).read())
import_file(store, items, "judge-test@1.0.0")
create = store.runs.create_judge_run
seen = []

def create_judge_run(*args, **kwargs):
    seen.append("litellm" in sys.modules)
    return create(*args, **kwargs)

store.runs.create_judge_run = create_judge_run
summaries = judging.run(store, judging.JudgeOptions(
    rubric_ref="judge-test@1.0.0", models=["openai/judge-x"], api_base=url, api_key="sk-test", timeout=5))
print(json.dumps({"loaded_before_run": seen, "results": summaries[0].totals.results}))
"""


def test_litellm_is_loaded_before_the_run_starts(server: LoopbackServer, tmp_path: Path) -> None:
    """Loading litellm takes seconds: a fresh process loads it before the stored run's clock
    starts, so a run's start to finish (the rate people read off it) is spent judging."""
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC)
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"q{i}", "input": f"Q{i}?", "output": f"A{i}."}) + "\n"
                             for i in range(3)))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "wire.db"), str(rubric), str(items),
                           server.url], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said == {"loaded_before_run": [True], "results": 6}  # two dimensions each


def test_a_judge_loop_sets_every_call_up_on_one_thread(server: LoopbackServer) -> None:
    """litellm runs each call's set-up in the loop's default executor: on a judge loop that is one
    thread (asyncio's own pool would start up to six, which only take the interpreter's lock from
    the loop), and long work of rubricate's own has a thread of its own; none outlives the loop."""
    import threading

    from rubrics.judge.loop import judge_loop, off_loop

    seen: set[str] = set()

    async def calls() -> str:
        async with judge_loop():
            judge = JudgeClient(ClientSettings(model="openai/judge-x", api_base=server.url, api_key="sk-test"),
                                concurrency=16)
            await asyncio.gather(*(judge.complete(Sandbox().finish("system", f"rate {i}", None)) for i in range(32)))
            seen.update(t.name for t in threading.enumerate())
            return await off_loop(lambda: threading.current_thread().name)

    long_work = asyncio.run(calls())
    assert {n for n in seen if n.startswith(("asyncio_", "litellm-setup"))} == {"litellm-setup_0"}
    assert long_work == "judge-model_0"
    assert not [t for t in threading.enumerate() if t.name.startswith(("litellm-setup", "judge-model"))]


def test_a_judge_loop_freezes_the_heap_it_starts_with_and_thaws_it_after(server: LoopbackServer) -> None:
    """The objects alive as a judge loop starts are out of the collector's full passes while it
    runs (each pass walked about a million of them again), and back in them after it ends."""
    from rubrics.judge.loop import judge_loop

    async def inside() -> int:
        async with judge_loop():
            judge = JudgeClient(ClientSettings(model="openai/judge-x", api_base=server.url, api_key="sk-test"))
            await judge.complete(Sandbox().finish("system", "rate this", None))
            return gc.get_freeze_count()

    assert gc.get_freeze_count() == 0
    assert asyncio.run(inside()) > 10_000
    assert gc.get_freeze_count() == 0
