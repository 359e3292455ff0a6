"""The judge at the wire's limit: ``rubricate judge`` beside a bare litellm script, at concurrency
8, 32 and 64, against a loopback server that holds every reply 200 ms.

The server (:mod:`tests.judge.loopback`; aiohttp sets TCP_NODELAY on its sockets) runs in its own process. For
each concurrency, in one run: a bare litellm script (``litellm.acompletion`` under a semaphore of
that concurrency, in its own process, sending the very requests rubricate judge sends — each
item's prompt per dimension, a system and a user message, with the judge's temperature and
max_tokens — so the two differ only in what rubricate does around the call; its rate from its first call to its last, imports left out) and ``rubricate
judge`` (the real command on a fresh SQLite store, in its own process, the bundled
general-quality rubric: five judge calls per item; its rate over the stored run's start to
finish, and over the whole command, start-up included). The two alternate, twice each, and the
better of two is kept for each, since the machine may be shared. Each run makes enough calls to
last at least ``--seconds`` at the limit (concurrency ÷ latency calls a second).

Printed per concurrency: calls/s of each, the ratio rubricate ÷ bare, the limit, and PASS/FAIL
against the issue's targets (≥ 0.97× at concurrency 8, ≥ 0.95× at 64; 32 has none).

Run: .venv/bin/python benchmarks/bench_judge_wire.py [--latency 0.2] [--seconds 10] [--concurrency 8 32 64]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODEL = "openai/judge-x"
RUBRIC = "general-quality@1.0.0"
CALLS_PER_ITEM = 5  # the rubric's five llm_judge dimensions, one call each
TEMPERATURE, MAX_TOKENS = 0.0, 1024  # the judge's request parameters (ClientSettings' defaults)
TARGETS = {8: 0.97, 64: 0.95}
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    """The loopback server in its own process, and its ``api_base``."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.judge.loopback", "--delay", str(latency)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True, env=ENV)
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    return proc, f"http://127.0.0.1:{port}/v1"


async def _bare(url: str, requests: Path, concurrency: int) -> None:
    """The anchor: the same requests through litellm at this concurrency, nothing else; prints calls a second."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    calls = json.loads(requests.read_text())
    slots = asyncio.Semaphore(concurrency)

    async def one(messages: list[dict[str, str]]) -> None:
        async with slots:
            await litellm.acompletion(model=MODEL, messages=messages, temperature=TEMPERATURE, max_tokens=MAX_TOKENS,
                                      api_base=url, api_key="sk-bench", max_retries=0, timeout=30)

    # cold, as rubricate judge's run is: the first calls open the connections
    started = time.perf_counter()
    await asyncio.gather(*(one(m) for m in calls))
    rate = len(calls) / (time.perf_counter() - started)
    # litellm parks a logging task on the loop that asyncio.run's shutdown waits on for ever
    # (rubricate's release_litellm stops it; a bare script has no such thing): leave at once
    print(rate, flush=True)
    os._exit(0)


def judge_requests(tmp: Path, items: int) -> Path:
    """The messages rubricate judge sends for these items (the rubric's prompt per item and
    dimension: a system and a user message), as a JSON list for the bare script to send too."""
    from rubrics.judge.client import ClientSettings
    from rubrics.judge.prompt import build_dimension_prompt
    from rubrics.library import bundled
    from rubrics.methods.base import JudgeItem

    name, version = RUBRIC.split("@")
    [rubric] = [r for r in bundled() if (r.id, r.version) == (name, version)]
    settings = ClientSettings(model=MODEL)
    assert (settings.temperature, settings.max_tokens) == (TEMPERATURE, MAX_TOKENS), "the judge's defaults moved"
    calls = [build_dimension_prompt(JudgeItem(id=f"q{i}", input=f"Question {i}?", output=f"Answer number {i}."),
                                    dim).messages for i in range(items) for dim in rubric.dimensions]
    path = tmp / f"requests-{items}.json"
    path.write_text(json.dumps(calls))
    return path


def bare(url: str, requests: Path, concurrency: int) -> float:
    """The bare script in its own process (as rubricate judge runs in its own)."""
    done = subprocess.run([sys.executable, __file__, "--bare-run", url, str(requests), str(concurrency)],
                          env=ENV, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"the bare script failed ({done.returncode}): {done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def prepared_store(tmp: Path, items: int) -> Path:
    """A SQLite store with ``items`` items of the rubric imported (once; each run copies it)."""
    db = tmp / "imported.db"
    jsonl = tmp / "items.jsonl"
    rows = ({"id": f"q{i}", "input": f"Question {i}?", "output": f"Answer number {i}."} for i in range(items))
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    subprocess.run([sys.executable, "-m", "reviewer", "import", str(jsonl), "--rubric", RUBRIC, "--db", str(db)],
                   check=True, env=ENV, capture_output=True, cwd=ROOT)
    return db


def rubricate(url: str, imported: Path, concurrency: int) -> tuple[float, float, int]:
    """``rubricate judge`` on a fresh copy of the store: (run rate, command rate, calls)."""
    db = imported.with_name(f"run-{time.monotonic_ns()}.db")
    shutil.copyfile(imported, db)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "reviewer", "judge", "--rubric", RUBRIC, "--model", MODEL,
                           "--api-base", url, "--api-key", "sk-bench", "--concurrency", str(concurrency),
                           "--db", str(db)], env=ENV, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"rubricate judge failed ({done.returncode}): {done.stderr[-2000:]}")
    with sqlite3.connect(db) as conn:
        began, ended, totals = conn.execute(
            "SELECT started_at, finished_at, totals FROM judge_run ORDER BY pk DESC LIMIT 1").fetchone()
    db.unlink()
    totals = json.loads(totals) if isinstance(totals, str) else totals
    if totals["errors"] or totals["cached"]:
        raise SystemExit(f"rubricate judge's run is not a clean one: {totals}")
    calls = int(totals["results"])
    run = (datetime.fromisoformat(str(ended)) - datetime.fromisoformat(str(began))).total_seconds()
    return calls / run, calls / wall, calls


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--bare-run":
        url, requests, concurrency = sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
        asyncio.run(_bare(url, requests, concurrency))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the server holds each reply")
    parser.add_argument("--seconds", type=float, default=10.0, help="each run lasts at least this at the limit")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32, 64])
    parser.add_argument("--repeats", type=int, default=2, help="runs of each, the best kept")
    args = parser.parse_args()
    proc, url = start_server(args.latency)
    lines: list[str] = []
    failed = False
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for c in args.concurrency:
                limit = c / args.latency
                items = -(-int(limit * args.seconds) // CALLS_PER_ITEM)
                imported = prepared_store(Path(tmp), items)
                requests = judge_requests(Path(tmp), items)
                bares: list[float] = []
                runs: list[tuple[float, float, int]] = []
                for _ in range(args.repeats):
                    bares.append(bare(url, requests, c))
                    runs.append(rubricate(url, imported, c))
                imported.unlink()
                b = max(bares)
                run_rate, cmd_rate, calls = max(runs)
                ratio = run_rate / b
                target = TARGETS.get(c)
                verdict = "—" if target is None else ("PASS" if ratio >= target else "FAIL")
                failed |= verdict == "FAIL"
                lines.append(
                    f"concurrency {c:3d}: limit {limit:6.1f} calls/s | bare litellm {b:6.1f} ({b / limit:.2f} of limit)"
                    f" | rubricate judge run {run_rate:6.1f} ({run_rate / limit:.2f}), whole command {cmd_rate:6.1f}"
                    f" | ratio {ratio:.3f} (command {cmd_rate / b:.3f})"
                    f" | target {'none' if target is None else f'>= {target:.2f}'}: {verdict}"
                    f"   [{calls} calls; bare {', '.join(f'{x:.1f}' for x in bares)};"
                    f" run {', '.join(f'{r[0]:.1f}' for r in runs)}]")
                print(lines[-1], flush=True)
    finally:
        proc.terminate()
        proc.wait(5)
    print(f"latency {args.latency * 1000:.0f} ms, best of {args.repeats} each, bare and rubricate alternating")
    print("FAIL" if failed else "PASS")


if __name__ == "__main__":
    main()
