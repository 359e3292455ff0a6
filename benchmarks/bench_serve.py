"""``rubricate serve`` measured with a real browser (headless Chromium over the DevTools protocol)
on the demo store, loopback: the first frame (the queue drawn in the page) after opening a link,
target ≤ 1.5 s; a key's effect (the item screen's focus moving with ``j``/``k``: the first change
of the terminal's rows after the key event, both times taken in the page), target ≤ 100 ms p95.

Run: ``PYTHONPATH=. python benchmarks/bench_serve.py [--opens 5] [--keys 60]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.devtools import Browser, chromium_path
from tests.serve.served import build, serving

#: In the page: the time of each key event and of each change of the terminal's rows.
WATCH = """
(() => {
  window.__keys = []; window.__changes = [];
  document.addEventListener('keydown', () => window.__keys.push(performance.now()), true);
  const rows = document.querySelector('.xterm-rows');
  new MutationObserver(() => window.__changes.push(performance.now()))
    .observe(rows, {subtree: true, childList: true, characterData: true});
  return true;
})()
"""


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


async def measure(base: str, token: str, opens: int, keys: int) -> tuple[list[float], list[float]]:
    """First frames of ``opens`` cold opens (ms), then ``keys`` key-to-change times (ms)."""
    binary = chromium_path()
    if binary is None:
        raise SystemExit("bench_serve: no Chromium (set RUBRICATE_TEST_CHROMIUM or install chromium)")
    firsts: list[float] = []
    lags: list[float] = []
    browser = Browser(binary)
    await browser.start()
    try:
        for _ in range(opens):
            await browser.open("about:blank")
            await asyncio.sleep(1.0)  # the previous session ends
            t0 = time.perf_counter()
            await browser.open(f"{base}/l/{token}")
            await browser.wait_for("document.querySelector('.xterm-rows')?.textContent.includes('reviewer ana')",
                                   timeout=30, poll=0.002)
            firsts.append((time.perf_counter() - t0) * 1000)
        await browser.key("g")
        await browser.wait_text("agree")
        await asyncio.sleep(1.0)
        await browser.eval(WATCH)
        for i in range(keys):
            seen = len(await browser.eval("window.__changes") or [])
            await browser.key("j" if i % 2 == 0 else "k")
            await browser.wait_for(f"window.__changes.length > {seen} && window.__keys.length > {i}", timeout=10)
            await asyncio.sleep(0.15)  # the change's frame finishes before the next key
            pressed = (await browser.eval(f"window.__keys[{i}]"))
            changes = await browser.eval("window.__changes")
            lags.append(min(c for c in changes if c >= pressed) - pressed)
    finally:
        await browser.close()
    return firsts, lags


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opens", type=int, default=5)
    parser.add_argument("--keys", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "demo.db"
        token = build(db)
        with serving(db) as base:
            firsts, lags = asyncio.run(measure(base, token, args.opens, args.keys))
    first = statistics.median(firsts)
    lag = p95(lags)
    print(f"first frame after opening the link: median {first:.0f} ms of {len(firsts)} cold opens "
          f"({', '.join(f'{x:.0f}' for x in firsts)} ms)  target ≤ 1500 ms: {'PASS' if first <= 1500 else 'FAIL'}")
    print(f"key → change of the page's terminal: p95 {lag:.1f} ms, median {statistics.median(lags):.1f} ms, "
          f"max {max(lags):.1f} ms over {len(lags)} keys  target ≤ 100 ms p95: {'PASS' if lag <= 100 else 'FAIL'}")


if __name__ == "__main__":
    main()
