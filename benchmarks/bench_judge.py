"""Judge throughput against the loopback server, beside bare litellm in the same run.

The server runs in its own process (so it does not share this process's interpreter lock); every
figure is calls per second at concurrency 32. "pipeline" is the judge pipeline in process (prompt
building with fresh markers, litellm over HTTP, JSON parsing and validation, cache writes, result
building). "rubricate judge" is the command a user runs, in its own process, with the SQLite
store (items read, results, safety flags and the judge cache written, progress shown): its rate
over the run (the stored run's start to finish) and over the whole command (start-up included).
The issue asks for at least 100 calls/s through ``rubricate judge``.

Run: .venv/bin/python benchmarks/bench_judge.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from rubrics.judge.cache import MemoryCache  # noqa: E402
from rubrics.judge.client import ClientSettings, JudgeClient, import_litellm, release_litellm  # noqa: E402
from rubrics.judge.runner import JudgeRunner  # noqa: E402
from rubrics.methods.base import JudgeItem  # noqa: E402
from rubrics.schema import Anchor, Dimension, Rubric, Scale  # noqa: E402

# the loopback server and the real command, as the wire bench starts and times them
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_judge_wire import prepared_store, rubricate, start_server  # noqa: E402

CONCURRENCY = 32
MODEL = "openai/judge-x"


async def bare(url: str, n: int) -> float:
    litellm = import_litellm()
    slots = asyncio.Semaphore(CONCURRENCY)

    async def one(i: int) -> None:
        async with slots:
            await litellm.acompletion(model=MODEL, messages=[{"role": "user", "content": f"rate {i}"}],
                                      api_base=url, api_key="sk-bench", max_retries=0, timeout=30)

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    rate = n / (time.perf_counter() - started)
    await release_litellm()
    return rate


async def pipeline(url: str, n: int) -> tuple[float, int]:
    dim = Dimension(id="accuracy", name="Accuracy", description="Factual correctness.", method="llm_judge",
                    weight=1.0, threshold=60, scale=Scale(1, 5),
                    anchors=(Anchor(1, 2, "Poor", "wrong"), Anchor(3, 5, "Good", "right")),
                    prompt="Is {output} a correct answer to {input}?")
    rubric = Rubric(id="bench", version="1.0.0", name="Bench", owner="bench", description="",
                    scale=Scale(1, 5), dimensions=(dim,))
    client = JudgeClient(ClientSettings(model=MODEL, api_base=url, api_key="sk-bench", timeout=30),
                         cache=MemoryCache(), concurrency=CONCURRENCY)
    items = [JudgeItem(id=f"q{i}", input=f"Question {i}?", output=f"Answer number {i}.") for i in range(n)]
    kept: list[int] = []
    runner = JudgeRunner(rubric, client=client, concurrency=CONCURRENCY)
    started = time.perf_counter()
    totals = await runner.run(items, lambda results, hits: kept.append(len(results)))
    rate = client.meter.calls / (time.perf_counter() - started)
    await release_litellm()
    return rate, totals.errors


def through_cli(url: str, n: int) -> tuple[float, float, int]:
    """``rubricate judge`` as a user runs it: the bundled general-quality rubric (five judge
    dimensions), n / 5 items imported into a fresh SQLite file. (run rate, command rate, calls)"""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        return rubricate(url, prepared_store(Path(tmp), n // 5), CONCURRENCY)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    n = parser.parse_args().calls
    proc, url = start_server(0.0)
    try:
        asyncio.run(bare(url, 64))  # warm up imports and connection pools
        bare_rate = asyncio.run(bare(url, n))
        e2e_rate, errors = asyncio.run(pipeline(url, n))
        run_rate, command_rate, calls = through_cli(url, n)
    finally:
        proc.terminate()
        proc.wait(5)
    print(f"bare litellm.acompletion    : {bare_rate:7.1f} calls/s  ({n} calls, concurrency {CONCURRENCY})")
    print(f"judge pipeline in process   : {e2e_rate:7.1f} calls/s  ({n} calls, {errors} errors)")
    print(f"rubricate judge, SQLite, run: {run_rate:7.1f} calls/s  ({calls} calls; the stored run's start to finish)")
    print(f"rubricate judge, whole cmd  : {command_rate:7.1f} calls/s  (the same, start-up and import included)")
    print(f"rubricate judge / bare      : {run_rate / bare_rate:7.2f}")
    print(f"target >= 100 calls/s through rubricate judge: {'met' if run_rate >= 100 else 'NOT met'}")


if __name__ == "__main__":
    main()
