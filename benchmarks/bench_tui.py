"""The review TUI: cold start to first frame on a 100k-item SQLite database (target ≤ 0.5 s and
≤ 80 MB), next item and key press to frame p95 (≤ 50 ms), memory at 10k vs 100k items; items with
a 50 KB markdown output (heading, code block, 800 list lines), rendered as markdown: opened by
id, a key on them, and ``m`` (raw ↔ markdown) on them, key to frame."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

PROBE = r'''
import asyncio, json, sys, time
t0 = time.perf_counter()

def rss_mb():
    # VmRSS now; ru_maxrss would carry the parent's peak across exec on Linux
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

# what `rubricate review --db FILE` does: the first page is read while Textual loads
from reviewer.tui import firstpage
first = firstpage.start(sys.argv[1], "triage", None, None, 200)
from reviewer.tui.app import make_app
from reviewer.tui.screens.queue import QueueScreen

async def main():
    app = make_app(None, "bench", db=sys.argv[1], first_page=first)
    out = {}
    async with app.run_test(size=(130, 42)) as pilot:
        while not (isinstance(app.screen, QueueScreen) and app.screen.rows):
            await pilot.pause(0.005)
        # and painted: every message handled, then the screen's update run (pilot.pause() would
        # also wait for the CPU to go idle, which it does not while the store loads behind)
        await pilot._wait_for_screen()
        app.screen._on_timer_update()
        out["first_frame_s"] = time.perf_counter() - t0  # from interpreter start of imports
        out["rss_mb"] = rss_mb()
        out["heavy"] = sorted(m for m in ("litellm", "torch", "sentence_transformers") if m in sys.modules)
        while not app.gateway.ready.done():  # the full store, loading behind the first frame
            await pilot.pause(0.01)
        out["store_ready_s"] = time.perf_counter() - t0
        from reviewer.tui.screens.item import ItemScreen
        nexts, keys = [], []
        await pilot.press("g")
        deadline = time.perf_counter() + 10
        while not isinstance(app.screen, ItemScreen) and time.perf_counter() < deadline:
            await pilot.pause(0.005)
        from textual import events

        async def key_to_frame(key, char, changed):
            # The key goes in as the terminal driver would send it; the clock stops once the
            # screen's state shows the key's effect and the screen has been rendered. (pilot.press
            # also waits for the CPU to go idle and for animations: not what a person sees.)
            t, cpu = time.perf_counter(), time.thread_time()
            event = events.Key(key, char)
            event.set_sender(app)
            app._driver.send_message(event)
            while not changed():
                # The loop waits in epoll, as a real terminal's does (≤ 1 ms a poll). Spinning with
                # sleep(0) counted the spin as the UI thread's CPU and took the interpreter lock
                # from the worker that reads the next item, slowing the very thing measured.
                await asyncio.sleep(0.0005)
            await pilot._wait_for_screen()
            app.screen._on_timer_update()
            cpus.setdefault(key, []).append(time.thread_time() - cpu)  # the UI thread's own CPU
            return time.perf_counter() - t

        cpus = {}
        for _ in range(30):
            shown = app.screen.state  # the item on screen (the screen itself is reused)
            scr = app.screen
            before = (scr.focus_index, scr.state.scored_count())
            # agree (never needs a reason): the dimension counts as scored, the focus moves on
            keys.append(await key_to_frame("enter", "\r",
                                           lambda: (scr.focus_index, scr.state.scored_count()) != before))
            await pilot.pause()
            nexts.append(await key_to_frame("n", "n", lambda: getattr(app.screen, "state", None) is not shown))
        out["next_p95_ms"] = sorted(nexts)[int(0.95 * 29)] * 1000
        out["cpu_next_p95_ms"] = sorted(cpus["n"])[int(0.95 * 29)] * 1000
        out["cpu_key_p95_ms"] = sorted(cpus["enter"])[int(0.95 * 29)] * 1000
        out["key_p95_ms"] = sorted(keys)[int(0.95 * 29)] * 1000
        # items with a 50 KB output (every 100th): opened by id, then a key on them
        bigs, big_keys, big_raw = [], [], []
        for k in range(6):
            pk = 1 + 100 * k
            t = time.perf_counter()
            app.open_item(pk)
            while getattr(getattr(app.screen, "state", None), "item_pk", None) != pk:
                await asyncio.sleep(0.0005)  # (as above: no spin)
            await pilot._wait_for_screen()
            app.screen._on_timer_update()
            bigs.append(time.perf_counter() - t)
            scr = app.screen
            before = (scr.focus_index, scr.state.scored_count())
            big_keys.append(await key_to_frame("enter", "\r",
                                               lambda: (scr.focus_index, scr.state.scored_count()) != before))
            await pilot.pause()
            for _ in range(2):  # m: the output as written, m again: markdown
                was = scr.raw
                big_raw.append(await key_to_frame("m", "m", lambda: scr.raw != was))
                await pilot.pause()
        out["big_open_max_ms"] = max(bigs) * 1000
        out["big_key_max_ms"] = max(big_keys) * 1000
        out["big_key_p95_ms"] = sorted(big_keys + big_raw)[int(0.95 * (len(big_keys) + len(big_raw) - 1))] * 1000
        out["big_raw_max_ms"] = max(big_raw) * 1000
        out["cpu_big_m_max_ms"] = max(cpus["m"]) * 1000
        app.gateway.drain()
        out["rss_end_mb"] = rss_mb()
    print(json.dumps(out))

asyncio.run(main())
'''


#: a 50 KB output with markdown and code, as long answers come (every 100th item has one)
BIG = ("# Answer\n\nCanberra is the capital of **Australia**.\n\n```python\nprint('Canberra')\n```\n\n"
       + "- a point about the city, its history and its role in the federation\n" * 800)[:50_000]


def build(n: int, folder: Path) -> Path:
    from reviewer.services.importing import import_file
    from reviewer.store import open_store

    src, db = folder / f"items{n}.jsonl", folder / f"tui{n}.db"
    with src.open("w") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": f"i{i:06d}", "input": "What is the capital of Australia?",
                                 "output": BIG if i % 100 == 0 else "Canberra is the capital of Australia.",
                                 "judge": {"model": "m", "scores": {"accuracy": 1 + i % 10, "relevance": 7,
                                                                     "completeness": 6, "conciseness": 8, "clarity": 9}}}) + "\n")
    import_file(open_store(str(db)), src, "general-quality@1.0.0")
    return db


RUNS = 3  # cold starts per size: the machine is shared, one start can be slow

with tempfile.TemporaryDirectory() as tmp:
    for n in (10_000, 100_000):
        db = build(n, Path(tmp))
        runs = []
        for _ in range(RUNS):
            probe = subprocess.run([sys.executable, "-c", PROBE, str(db)], capture_output=True, text=True,
                                   check=True, timeout=120)
            runs.append(json.loads(probe.stdout.strip().splitlines()[-1]))
        runs.sort(key=lambda r: r["first_frame_s"])
        r = runs[len(runs) // 2]  # the median start; its other figures beside it
        worst = max(x["first_frame_s"] for x in runs)
        print(f"{n:>7,} items: first frame {r['first_frame_s'] * 1000:.0f} ms median of {RUNS} cold starts "
              f"(slowest {worst * 1000:.0f} ms; full store ready {r['store_ready_s'] * 1000:.0f} ms), "
              f"RSS at first frame {r['rss_mb']:.0f} MB, "
              f"next item p95 {r['next_p95_ms']:.1f} ms, key→frame p95 {r['key_p95_ms']:.1f} ms, "
              f"RSS after 30 items {r['rss_end_mb']:.0f} MB, heavy modules imported: {r['heavy'] or 'none'}; "
              f"50 KB markdown output: open by id max {r['big_open_max_ms']:.1f} ms, key→frame max "
              f"{r['big_key_max_ms']:.1f} ms, m (raw↔markdown) key→frame max {r['big_raw_max_ms']:.1f} ms, "
              f"keys on it p95 {r['big_key_p95_ms']:.1f} ms; the UI thread's CPU time (what load does not "
              f"inflate much): next item p95 {r['cpu_next_p95_ms']:.1f} ms, key p95 {r['cpu_key_p95_ms']:.1f} ms, "
              f"m on 50 KB max {r['cpu_big_m_max_ms']:.1f} ms")
        if n == 100_000:
            checks = [("first frame", r["first_frame_s"] * 1000, 500, "ms"), ("RSS at first frame", r["rss_mb"], 80, "MB"),
                      ("next item p95", r["next_p95_ms"], 50, "ms"), ("key→frame p95", r["key_p95_ms"], 50, "ms"),
                      ("50 KB markdown: keys (enter, m) p95", r["big_key_p95_ms"], 50, "ms")]
            for name, value, target, unit in checks:
                print(f"  {name:<38} {value:8.1f} {unit}  target ≤ {target} {unit}: {'met' if value <= target else 'MISSED'}")
print("targets: first frame ≤ 500 ms and ≤ 80 MB; next item and key→frame p95 ≤ 50 ms (50 KB outputs too); "
      "RSS flat from 10k to 100k")
