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


def through_cli(url: str, n: int) -> tuple[float, float, int]:
    """``rubricate judge`` as a user runs it: the bundled general-quality rubric (five judge
    dimensions), n / 5 items imported into a fresh SQLite file. (run rate, command rate, calls)."""
    import json
    import sqlite3
    import tempfile
    from datetime import datetime

    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.db")
        items = Path(tmp) / "items.jsonl"
        rows = ({"id": f"q{i}", "input": f"Question {i}?", "output": f"Answer number {i}."} for i in range(n // 5))
        items.write_text("".join(json.dumps(r) + "\n" for r in rows))
        rubricate = [sys.executable, "-m", "reviewer"]
        subprocess.run([*rubricate, "import", str(items), "--rubric", "general-quality@1.0.0", "--db", db],
                       check=True, env=env, capture_output=True)
        started = time.perf_counter()
        done = subprocess.run([*rubricate, "judge", "--rubric", "general-quality@1.0.0", "--model", MODEL,
                               "--api-base", url, "--api-key", "sk-bench", "--concurrency", str(CONCURRENCY),
                               "--db", db], env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"rubricate judge failed ({done.returncode}): {done.stderr[-2000:]}")
        with sqlite3.connect(db) as conn:
            began, ended, totals = conn.execute(
                "SELECT started_at, finished_at, totals FROM judge_run ORDER BY pk DESC LIMIT 1").fetchone()
        totals = json.loads(totals) if isinstance(totals, str) else totals
        calls = int(totals["results"])
        assert totals["errors"] == 0, totals
        run = (datetime.fromisoformat(str(ended)) - datetime.fromisoformat(str(began))).total_seconds()
        return calls / run, calls / wall, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    n = parser.parse_args().calls
    proc, url = start_server()
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
