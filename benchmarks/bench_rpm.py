"""``--rpm`` against a server that counts: never over the cap in any window, and close to it.

A loopback OpenAI-compatible server (:mod:`tests.judge.limited`) records when each call arrives
and refuses (429) any call past the same limit in its own window. The judge client, with
``--rpm`` set and far more work than the limit allows, calls it for ``--seconds``. Printed: the
most calls the server saw in any window, the rate over the run against the cap, the 429s and the
time waited for the limit; PASS when the window never held more than the cap and the rate is
within 10 % of it.

Run: .venv/bin/python benchmarks/bench_rpm.py [--rpm 120] [--seconds 60] [--window 60]
(the issue's figure is ``--rpm 600`` over 180 s; ``--rpm 120`` over 60 s is the CI-sized run).
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

from rubrics.judge.client import ClientSettings, JudgeClient, import_litellm, release_litellm  # noqa: E402
from rubrics.judge.limits import Limits  # noqa: E402
from rubrics.judge.prompt import Sandbox  # noqa: E402
from tests.judge.limited import LimitedServer  # noqa: E402


async def drive(url: str, limits: Limits, seconds: float) -> float:
    """Call as fast as the limits allow for ``seconds``; when the run started (litellm imported)."""
    import_litellm()
    judge = JudgeClient(ClientSettings(model="openai/judge-x", api_base=url, api_key="sk-bench", timeout=30,
                                       retries=0, max_tokens=50), limits=limits)
    started = time.monotonic()
    deadline = started + seconds
    count = 0

    async def worker() -> None:
        nonlocal count
        while time.monotonic() < deadline:
            count += 1
            await judge.complete(Sandbox().finish("system", f"rate answer {count}", None))

    await asyncio.gather(*(worker() for _ in range(limits.most)))
    await release_litellm()
    return started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rpm", type=int, default=120)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--window", type=float, default=60.0, help="the limit's window (a minute)")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    server = LimitedServer(rpm=args.rpm, window=args.window, delay=0.05)
    server.start()
    limits = Limits(args.concurrency, rpm=args.rpm, window=args.window)
    try:
        started = asyncio.run(drive(server.url, limits, args.seconds))
    finally:
        server.stop()
    served = [at for at, _ in server.served if at <= started + args.seconds]
    most = server.most_in_window(args.window)
    rate = len(served) / args.seconds * args.window
    ratio = rate / args.rpm
    ok = most <= args.rpm and not server.refused and abs(ratio - 1) <= 0.10
    print(f"--rpm {args.rpm} over {args.seconds:g} s (window {args.window:g} s, concurrency {args.concurrency})")
    print(f"  most calls in any {args.window:g} s window: {most} (cap {args.rpm})")
    print(f"  calls in the run: {len(served)} = {rate:.1f} per window, {ratio:.3f} of the cap (target 0.90-1.10)")
    print(f"  429s from the server: {len(server.refused)}; waited for the limit: {limits.waited_s:.1f} s")
    print("PASS" if ok else "FAIL")


if __name__ == "__main__":
    main()
