"""The TUI calibration screen's first paint: from ``c`` on the queue to the table of every
dimension filled and painted, on the demo database at 160×50 (median of runs; the issue's budget:
at most 300 ms more than before the screen drew its bars, matrix and drift). ``--tree PATH``
measures another checkout's code (e.g. the main branch's) on the same database, to compare.

    python benchmarks/bench_calibration_screen.py [--runs 5] [--tree /path/to/checkout]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PROBE = r'''
import asyncio, json, sys, time
from reviewer.store import open_store
from reviewer.tui.app import make_app
from reviewer.tui.screens.calibration import CalibrationScreen
from reviewer.tui.screens.queue import QueueScreen

async def main():
    store = open_store(sys.argv[1])
    app = make_app(store, "tess")
    async with app.run_test(size=(160, 50)) as pilot:
        while not (isinstance(app.screen, QueueScreen) and app.screen.rows):
            await pilot.pause(0.005)
        await pilot.pause(0.2)
        t = time.perf_counter()
        await pilot.press("c")
        while not (isinstance(app.screen, CalibrationScreen) and app.screen.rows):
            await asyncio.sleep(0.0005)
        await pilot._wait_for_screen()
        app.screen._on_timer_update()
        out = {"first_paint_ms": (time.perf_counter() - t) * 1000}
        drift = list(app.screen.query("#drift-head"))
        if drift:  # the drift lines, read beside the table
            while "reading" in str(drift[0].render()):
                await asyncio.sleep(0.0005)
            out["drift_ms"] = (time.perf_counter() - t) * 1000
    print(json.dumps(out))

asyncio.run(main())
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tree", default=str(Path(__file__).resolve().parents[1]),
                        help="the checkout whose code is measured (default: this one)")
    args = parser.parse_args()
    here = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "demo.db")
        subprocess.run([sys.executable, "-c", f"from reviewer.demo.build import build_demo; build_demo({db!r}, 'tess')"],
                       check=True, env={**env, "PYTHONPATH": here}, cwd=folder)
        runs = []
        for _ in range(args.runs):
            # run from the scratch folder: ``-c`` puts the working directory first on the path
            done = subprocess.run([sys.executable, "-c", PROBE, db], check=True, capture_output=True, text=True,
                                  env={**env, "PYTHONPATH": args.tree}, cwd=folder)
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    paints = [r["first_paint_ms"] for r in runs]
    result = {"tree": args.tree, "runs": args.runs, "first_paint_median_ms": round(statistics.median(paints), 1),
              "first_paint_max_ms": round(max(paints), 1)}
    if all("drift_ms" in r for r in runs):
        result["drift_median_ms"] = round(statistics.median(r["drift_ms"] for r in runs), 1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
