"""What writing the calibration page costs: ``rubricate calibrate --format html`` against the
same run as ``--format json``, at 10 dimensions and 100k items, each in its own process.

The data: a rubric of 10 dimensions graded 1–5; a judge score on every (item, dimension) of
100,000 items; a tenth of the items (10,000) in the audit sample, scored on every dimension by
3 reviewers of 12, with noise. Both commands compute the same report (default bootstrap); the
page adds matplotlib's import, the confusion tables (a second read of the rating columns), the
reviewers' gold accuracy and the charts.

Target (issue 26): the page adds at most 2 s to ``calibrate``: the median html run minus the
median json run, three runs each (``--repeat``); every run is printed, and the CPU time beside
the wall time (on a shared machine the wall time counts waiting for a CPU).

Usage: python benchmarks/bench_calibrate_page.py [N_ITEMS] [--repeat N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DIMS = [f"d{i:02d}" for i in range(10)]
RUBRIC = "id: bench-page\nversion: 1.0.0\nname: Page at scale\nowner: bench\nscale: {min: 1, max: 5}\ndimensions:\n" + "".join(
    f"- id: {d}\n  description: Dimension {d}, graded one to five.\n  method: llm_judge\n  weight: 0.1\n"
    f"  threshold: 60\n  anchors: [{{range: [1, 2], label: Poor}}, {{score: 3, label: Fair}}, "
    f"{{range: [4, 5], label: Good}}]\n" for d in DIMS)
REVIEWERS = [f"r{i:02d}" for i in range(12)]


def write_items(path: Path, n: int) -> int:
    """The items file; returns how many items are audited."""
    rng = np.random.default_rng(26)
    truth = rng.integers(1, 6, size=(n, len(DIMS)))
    judge = np.clip(truth + rng.integers(-1, 2, size=truth.shape) * (rng.random(truth.shape) < 0.3), 1, 5)
    audited = rng.random(n) < 0.1
    with path.open("w") as fh:
        for i in range(n):
            row: dict[str, object] = {"id": f"p{i:06d}", "input": "q", "output": f"answer {i}",
                                      "judge": {"model": "m", "scores": dict(zip(DIMS, map(int, judge[i]), strict=True))}}
            if audited[i]:
                who = rng.choice(len(REVIEWERS), size=3, replace=False)
                noise = rng.integers(-1, 2, size=(3, len(DIMS))) * (rng.random((3, len(DIMS))) < 0.25)
                row["human"] = [{"reviewer": REVIEWERS[w], "scores": dict(zip(DIMS, map(int, np.clip(truth[i] + noise[k], 1, 5)),
                                                                            strict=True))}
                                for k, w in enumerate(who)]
                row["audit"] = True
            fh.write(json.dumps(row) + "\n")
    return int(audited.sum())


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one child process; exits on its failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"{' '.join(cmd)} failed: {done.stderr.strip()[-500:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return took, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("items", nargs="?", type=int, default=100_000, help="items (default 100,000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each format (default 3)")
    parser.add_argument("--keep", type=Path, help="work in this (new) folder and leave the files there")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "RUBRICATE_DB": str(work / "bench.db"), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        exe = [sys.executable, "-m", "reviewer"]
        (work / "rubric.yaml").write_text(RUBRIC, encoding="utf-8")
        audited = write_items(work / "items.jsonl", args.items)
        timed([*exe, "rubric", "add", str(work / "rubric.yaml")], env)
        timed([*exe, "import", str(work / "items.jsonl"), "--rubric", "bench-page@1.0.0"], env)
        print(f"{args.items:,} items × {len(DIMS)} dimensions; {audited:,} audited by 3 reviewers of {len(REVIEWERS)}; "
              f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
        medians, cpu = {}, {}
        for fmt in ("json", "html"):
            runs = [timed([*exe, "calibrate", "--rubric", "bench-page@1.0.0", "--format", fmt,
                           "--out", str(work / f"out.{fmt}")], env) for _ in range(args.repeat)]
            medians[fmt] = statistics.median(r[0] for r in runs)
            cpu[fmt] = statistics.median(r[1] for r in runs)
            print(f"calibrate --format {fmt}: median {medians[fmt]:.2f} s of "
                  + " / ".join(f"{w:.2f} s (CPU {c:.2f})" for w, c in runs))
        size = (work / "out.html").stat().st_size
        added = medians["html"] - medians["json"]
        print(f"the page ({size / 1024:.0f} KiB) adds {added:.2f} s ({cpu['html'] - cpu['json']:.2f} s of CPU): "
              f"target ≤ 2 s: {'PASS' if added <= 2 else 'FAIL'}")


if __name__ == "__main__":
    main()
