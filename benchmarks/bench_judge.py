"""Judge throughput end to end against the loopback server, beside bare litellm in the same run.

The server runs in its own process (so it does not share this process's interpreter lock); both
figures are calls per second at concurrency 32. End to end means the whole pipeline: prompt
building with fresh markers, litellm over HTTP, JSON parsing and validation, cache writes,
result building and the sink; a third figure adds the real SQLite store (items read, results,
safety flags and the judge cache written). The issue asks for at least 100 calls/s end to end.

Run: .venv/bin/python benchmarks/bench_judge.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
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

CONCURRENCY = 32
MODEL = "openai/judge-x"


def start_server() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "tests.judge.loopback"], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    return proc, f"http://127.0.0.1:{port}/v1"


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


def with_store(url: str, n: int) -> float:
    """``reviewer.judging.run`` over a real SQLite store: the bundled general-quality rubric
    (five judge dimensions), n / 5 items, results and cache written to the database."""
    import json
    import tempfile

    from reviewer import judging
    from reviewer.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "bench.db"))
        items = Path(tmp) / "items.jsonl"
        rows = ({"id": f"q{i}", "input": f"Question {i}?", "output": f"Answer number {i}."}
                for i in range(n // 5))
        items.write_text("".join(json.dumps(r) + "\n" for r in rows))
        store.import_items(items, "general-quality@1.0.0")
        options = judging.JudgeOptions(rubric_ref="general-quality@1.0.0", models=[MODEL], api_base=url,
                                       api_key="sk-bench", concurrency=CONCURRENCY, timeout=30)
        started = time.perf_counter()
        [summary] = judging.run(store, options)
        elapsed = time.perf_counter() - started
        assert summary.totals.errors == 0, summary.totals.as_dict()
        return summary.totals.results / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    n = parser.parse_args().calls
    proc, url = start_server()
    try:
        asyncio.run(bare(url, 64))  # warm up imports and connection pools
        bare_rate = asyncio.run(bare(url, n))
        e2e_rate, errors = asyncio.run(pipeline(url, n))
        store_rate = with_store(url, n)
    finally:
        proc.terminate()
        proc.wait(5)
    print(f"bare litellm.acompletion : {bare_rate:7.1f} calls/s  ({n} calls, concurrency {CONCURRENCY})")
    print(f"judge pipeline end to end: {e2e_rate:7.1f} calls/s  ({n} calls, concurrency {CONCURRENCY}, "
          f"{errors} errors)")
    print(f"with the SQLite store    : {store_rate:7.1f} calls/s  ({n} calls via reviewer.judging.run)")
    print(f"pipeline / bare          : {e2e_rate / bare_rate:7.2f}")
    verdict = ", ".join(f"{name} {'met' if rate >= 100 else 'NOT met'}"
                        for name, rate in (("pipeline", e2e_rate), ("with store", store_rate)))
    print(f"target >= 100 calls/s    : {verdict}")


if __name__ == "__main__":
    main()
