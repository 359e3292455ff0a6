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
from pathlib import Path

import pytest
from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

from rubrics.judge.client import ClientSettings, JudgeClient, release_litellm
from rubrics.judge.prompt import Sandbox
from tests.judge.helpers import RUBRIC
from tests.judge.loopback import LoopbackServer

ROOT = Path(__file__).resolve().parents[2]


async def test_release_drops_litellms_logging_backlog_unrun(server: LoopbackServer) -> None:
    """At a high call rate litellm's logging worker falls thousands of callbacks behind; ending
    the loop must not wait them out (it held a 64-wide run's end for seven seconds), nor leave a
    "never awaited" warning for each."""
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
