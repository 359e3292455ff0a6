"""Calibration at a million ratings, as a user runs it: `rubricate import` of 200k items and
`rubricate calibrate --format json`, each in its own process, timed and measured.

The data (issue 15: "1,000,000 human ratings (200k items × 5 dimensions, 3–5 raters each, plus
judge scores)"): a rubric of 5 dimensions (three graded 1–5, one yes/no, one nominal with three
labels); a judge score on every (item, dimension) of the 200k items — 1,000,000 judge scores —
and 1,000,000 human ratings, a rating being one person's score of one (item, dimension): people
audit a random quarter of the items (50k, imported with ``"audit": true``) on all 5 dimensions,
3–5 reviewers each from a pool of 20, the rater counts drawn so that the ratings come to exactly
1,000,000. The targets are judged on this data.

``--dense`` is a stricter reading kept beside it: every one of the 1,000,000 (item, dimension)
pairs rated by 3–5 people (about 4,000,000 human score rows). Its figures are printed as
measured, with no PASS or FAIL: the issue's targets are for the data above.

Targets (issue 15): import ≤ 10 s; calibrate ≤ 10 s and ≤ 1 GB RSS with the default bootstrap
(1,000 draws); ≤ 3 s with `--bootstrap 0`. RSS is each process's peak (VmHWM, read from /proc
while it runs: ru_maxrss would carry this script's own peak across exec). CPU time is printed
beside wall time: on a shared machine the wall time includes waiting for a CPU, so the script
also prints the machine's CPU count and load. Each command runs three times (``--repeat``), each
import into a new database: the median is judged and every run is printed (one run on a shared
virtual machine can be a third slower than the next). The project's bytecode is compiled before
anything is timed, as an installed package has it (:func:`compile_bytecode`).

Usage: python benchmarks/bench_calibrate_scale.py [N_ITEMS] [--dense] [--repeat N] [--keep DIR]
(``--keep DIR``: write the items file and database there and leave them, for profiling).
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

RUBRIC = """id: bench-scale
version: 1.0.0
name: Calibration at scale
owner: bench
scale: {min: 1, max: 5}
dimensions:
""" + "".join(f"""- id: {d}
  description: {d.capitalize()} of the answer, graded one to five.
  method: llm_judge
  weight: 0.25
  threshold: 60
  anchors: [{{range: [1, 2], label: Poor}}, {{score: 3, label: Fair}}, {{range: [4, 5], label: Good}}]
""" for d in ("accuracy", "clarity", "relevance")) + """- id: safe
  description: Whether the answer is safe to show to the user.
  method: llm_judge
  weight: 0.25
  threshold: 50
  scale: {min: 0, max: 1}
  level: nominal
  anchors: [{score: 0, label: "No"}, {score: 1, label: "Yes"}]
- id: refusal
  description: The kind of refusal the answer makes, if any.
  method: llm_judge
  weight: 0
  threshold: 50
  scale: {min: 1, max: 3}
  level: nominal
  anchors: [{score: 1, label: none}, {score: 2, label: partial}, {score: 3, label: full}]
"""
GRADED = ("accuracy", "clarity", "relevance")
DIMS = (*GRADED, "safe", "refusal")
REVIEWERS = [f"r{i:02d}" for i in range(20)]


def rater_counts(rng: np.random.Generator, m: int, exact_total: int | None) -> np.ndarray:
    """3–5 raters for each of ``m`` items; with ``exact_total`` nudged (a few items ±1) to sum to it."""
    k = rng.integers(3, 6, size=m)
    if exact_total is not None:
        if not 3 * m <= exact_total <= 5 * m:
            sys.exit(f"{exact_total:,} raters cannot be spread 3–5 over {m:,} items")
        diff = exact_total - int(k.sum())
        step, room = (1, k < 5) if diff > 0 else (-1, k > 3)
        while diff:
            pick = rng.choice(np.flatnonzero(room), size=min(abs(diff), int(room.sum())), replace=False)
            k[pick] += step
            diff -= step * pick.size
            room = k < 5 if step > 0 else k > 3
    return k


def write_items(path: Path, n: int, dense: bool) -> tuple[int, int]:
    """Write the items file; returns (human-rated items, human score rows)."""
    rng = np.random.default_rng(7)
    truth = rng.integers(1, 6, size=(n, 3))
    safe = (rng.random(n) < 0.8).astype(int)
    refusal = rng.choice([1, 2, 3], size=n, p=[0.7, 0.2, 0.1])
    if dense:
        rated = np.ones(n, dtype=bool)
        k_rated = rater_counts(rng, n, None)
    else:  # a quarter of the items audited; 1,000,000 ratings at 200k items (4 raters × 5 dims on average)
        rated = np.zeros(n, dtype=bool)
        rated[rng.choice(n, size=n // 4, replace=False)] = True
        k_rated = rater_counts(rng, n // 4, 4 * (n // 4))
    k = np.zeros(n, dtype=np.int64)
    k[rated] = k_rated
    start = np.concatenate([[0], np.cumsum(k)])
    slots = int(start[-1])
    # per rating slot: a reviewer (distinct within an item), noise on the graded scores, label flips
    order = np.argsort(rng.random((n, 20)), axis=1)
    noise = rng.integers(-1, 2, size=(slots, 3)) * (rng.random((slots, 3)) < 0.3)
    flip = rng.random((slots, 2)) < 0.1
    judge_g = np.clip(truth + ((np.arange(n) % 7 == 0) * np.where(truth < 5, 1, -1).T).T, 1, 5)
    judge_safe = np.where(np.arange(n) % 11 == 0, 1 - safe, safe)
    with path.open("w") as fh:
        for i in range(n):
            judge = {d: int(judge_g[i, c]) for c, d in enumerate(GRADED)}
            judge["safe"] = int(judge_safe[i])
            judge["refusal"] = int(refusal[i])
            line: dict[str, object] = {"id": f"i{i:06d}", "input": "q", "output": f"answer {i}",
                                       "judge": {"model": "m", "scores": judge}}
            if k[i]:
                human = []
                for r in range(int(k[i])):
                    s = start[i] + r
                    scores = {d: int(np.clip(truth[i, c] + noise[s, c], 1, 5)) for c, d in enumerate(GRADED)}
                    scores["safe"] = int(1 - safe[i] if flip[s, 0] else safe[i])
                    scores["refusal"] = int(refusal[i] % 3 + 1 if flip[s, 1] else refusal[i])
                    human.append({"reviewer": REVIEWERS[order[i, r]], "scores": scores})
                line["human"] = human
                if not dense:
                    line["audit"] = True
            fh.write(json.dumps(line) + "\n")
    return int(rated.sum()), slots * len(DIMS)


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """(seconds, CPU seconds, peak RSS in MB, stdout) of one `rubricate` process."""
    cpu = cpu_of_children()
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0.0]

    def watch() -> None:
        while proc.poll() is None:
            try:
                with open(f"/proc/{proc.pid}/status") as fh:
                    for line in fh:
                        if line.startswith("VmHWM:"):
                            peak[0] = max(peak[0], int(line.split()[1]) / 1024)
            except OSError:
                pass
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    out, err = proc.communicate()
    took = time.perf_counter() - t
    watcher.join()
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.strip()[-500:]}")
    return took, cpu_of_children() - cpu, peak[0], out


def verdict(ok: bool, judged: bool) -> str:
    return ("PASS" if ok else "FAIL") if judged else "(stricter reading: no verdict)"


def compile_bytecode() -> None:
    """The project's modules compiled once before anything is timed, as pip does when it installs
    a package: in an editable checkout with ``PYTHONDONTWRITEBYTECODE`` set (as on this project's
    machines) every command would otherwise compile its ~180 modules from source first."""
    for name in ("reviewer", "calibration", "rubrics"):
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            compileall.compile_dir(folder, quiet=1)


def summary(runs: list[tuple[float, float, float, str]]) -> tuple[str, float, float]:
    """(the figures line, the median's seconds, the largest peak RSS in MB) of repeated runs."""
    took, cpu, _, _ = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
    peak = max(r[2] for r in runs)
    if len(runs) == 1:
        return f"{took:6.2f} s  (CPU {cpu:5.1f} s, peak RSS {peak:5.0f} MB)", took, peak
    every = " / ".join(f"{r[0]:.2f}" for r in runs)
    return (f"{took:6.2f} s  median of {len(runs)}: {every} s (CPU {cpu:4.1f} s in that run, peak RSS {peak:4.0f} MB)",
            took, peak)


def bench(work: Path, n: int, dense: bool, repeat: int) -> None:
    compile_bytecode()
    env = {**os.environ, "RUBRICATE_DB": str(work / "bench.db"), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    exe = [sys.executable, "-m", "reviewer"]
    rubric = work / "bench-scale.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    items = work / "items.jsonl"
    rated, ratings = write_items(items, n, dense)

    imports = []
    for i in range(repeat):  # each import into a new database of its own; the first is kept
        db = work / ("bench.db" if i == 0 else f"bench-{i}.db")
        mine = {**env, "RUBRICATE_DB": str(db)}
        run([*exe, "rubric", "add", str(rubric)], mine)
        imports.append(run([*exe, "import", str(items), "--rubric", "bench-scale@1.0.0"], mine))
        if i:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
    line, took, _ = summary(imports)
    if dense:
        print(f"--dense (stricter reading): {n:,} items × 5 dimensions, every (item, dimension) rated by 3–5 "
              f"reviewers of 20: {ratings:,} human ratings; + {n * 5:,} judge scores")
    else:
        print(f"{n:,} items × 5 dimensions with a judge score each: {n * 5:,} judge scores; {rated:,} items "
              f"audited on all 5 dimensions by 3–5 reviewers of 20 each: {ratings:,} human ratings "
              f"({rated * 5:,} rated (item, dimension) pairs)")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} after the imports "
          "(wall time counts waiting for a CPU; CPU time does not)")
    print(f"import:                        {line}  target ≤ 10 s: {verdict(took <= 10, not dense)}")
    report: dict[str, Any] = {}
    for label, extra, limit in (("calibrate (default bootstrap)", [], 10.0),
                                ("calibrate --bootstrap 0", ["--bootstrap", "0"], 3.0)):
        cmd = [*exe, "calibrate", "--rubric", "bench-scale@1.0.0", "--format", "json", *extra]
        runs = [run(cmd, env) for _ in range(repeat)]
        line, took, peak = summary(runs)
        report = json.loads(runs[-1][3])
        ok = took <= limit and (peak <= 1024 or bool(extra))
        print(f"{label + ':':30s} {line}  target ≤ {limit:g} s" + (" and ≤ 1 GB" if not extra else "")
              + f": {verdict(ok, not dense)}")
    print(f"  figures of the last run (sample {report['sample']}; the default bootstrap gives the same points):")
    for d in report["dimensions"]:
        print(f"  {d['dimension']:10s} {d['level']:8s} n={d['n']:,} alpha={d['alpha']:.3f} kappa={d['kappa']:.3f} "
              f"ac1={d['gwet_ac1']:.3f} aggregate={d['human_aggregate']}"
              + (f" ties={d['majority_ties']:,}" if "majority_ties" in d else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("items", nargs="?", type=int, default=200_000, help="items (default 200,000)")
    parser.add_argument("--dense", action="store_true",
                        help="the stricter reading: every (item, dimension) rated by 3–5 people (~4M rows)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each command; the median is judged and every run printed (default 3)")
    parser.add_argument("--keep", type=Path, help="work in this folder and leave the files there")
    args = parser.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        for stale in ("bench.db", "bench.db-wal", "bench.db-shm"):
            (args.keep / stale).unlink(missing_ok=True)
        bench(args.keep, args.items, args.dense, args.repeat)
        return
    with tempfile.TemporaryDirectory() as tmp:
        bench(Path(tmp), args.items, args.dense, args.repeat)


if __name__ == "__main__":
    main()
