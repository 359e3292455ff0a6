"""Calibration at a million ratings, as a user runs it: 200k items × 5 dimensions (three graded,
one yes/no, one nominal with three labels), 3–5 reviewers per item from a pool of 20 — 1,000,000
human ratings — plus one judge score per item and dimension, imported with `rubricate import`
and calibrated with `rubricate calibrate --format json`, each in its own process.

Targets (issue 15): import ≤ 10 s; calibrate ≤ 10 s and ≤ 1 GB RSS with the default bootstrap
(1,000 draws); ≤ 3 s with `--bootstrap 0`. RSS is the calibrate process's peak (VmHWM, read from
/proc while it runs: ru_maxrss would carry this script's own peak across exec).

"A million ratings" is read as the issue writes it: 200k items × 5 dimensions = 1,000,000 human
ratings of an (item, dimension), each from 3–5 reviewers — about 4 million human score rows.
The script prints the machine's CPU count and load, and each process's CPU time beside its wall
time: on a shared machine the wall time includes waiting for a CPU.

Usage: python benchmarks/bench_calibrate_scale.py [N_ITEMS]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
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
REVIEWERS = [f"r{i:02d}" for i in range(20)]


def write_items(path: Path, n: int) -> int:
    rng = np.random.default_rng(7)
    truth = rng.integers(1, 6, size=(n, 3))
    safe = (rng.random(n) < 0.8).astype(int)
    refusal = rng.choice([1, 2, 3], size=n, p=[0.7, 0.2, 0.1])
    k = rng.integers(3, 6, size=n)
    ratings = 0
    with path.open("w") as fh:
        for i in range(n):
            who = rng.choice(20, size=k[i], replace=False)
            noise = rng.integers(-1, 2, size=(k[i], 3)) * (rng.random((k[i], 3)) < 0.3)
            flip = rng.random((k[i], 2)) < 0.1
            human = []
            for r in range(k[i]):
                scores = {d: int(np.clip(truth[i, c] + noise[r, c], 1, 5)) for c, d in enumerate(GRADED)}
                scores["safe"] = int(1 - safe[i] if flip[r, 0] else safe[i])
                scores["refusal"] = int(refusal[i] % 3 + 1 if flip[r, 1] else refusal[i])
                human.append({"reviewer": REVIEWERS[who[r]], "scores": scores})
                ratings += 5
            judge = {d: int(np.clip(truth[i, c] + (i % 7 == 0) * (1 if truth[i, c] < 5 else -1), 1, 5))
                     for c, d in enumerate(GRADED)}
            judge["safe"] = int(safe[i]) if i % 11 else int(1 - safe[i])
            judge["refusal"] = int(refusal[i])
            fh.write(json.dumps({"id": f"i{i:06d}", "input": "q", "output": f"answer {i}",
                                 "judge": {"model": "m", "scores": judge}, "human": human}) + "\n")
    return ratings


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(seconds, peak RSS in MB, stdout) of one `rubricate` process; its CPU seconds go to CPU."""
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
    CPU[0] = cpu_of_children() - cpu
    return took, peak[0], out


CPU = [0.0]


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


with tempfile.TemporaryDirectory() as tmp:
    env = {**os.environ, "RUBRICATE_DB": str(Path(tmp) / "bench.db")}
    exe = [sys.executable, "-m", "reviewer"]
    rubric = Path(tmp) / "bench-scale.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    items = Path(tmp) / "items.jsonl"
    ratings = write_items(items, N)
    run([*exe, "rubric", "add", str(rubric)], env)
    took, rss, _ = run([*exe, "import", str(items), "--rubric", "bench-scale@1.0.0"], env)
    print(f"items {N:,} × 5 dimensions = {N * 5:,} human-rated (item, dimension) pairs, each scored by 3–5 "
          f"reviewers: {ratings:,} human scores; + {N * 5:,} judge scores")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} after the import "
          "(wall time counts waiting for a CPU; CPU time does not)")
    print(f"import:                        {took:6.2f} s  (CPU {CPU[0]:5.1f} s, peak RSS {rss:5.0f} MB)  "
          f"target ≤ 10 s: {verdict(took <= 10)}")
    for label, extra, limit in (("calibrate (default bootstrap)", [], 10.0), ("calibrate --bootstrap 0", ["--bootstrap", "0"], 3.0)):
        took, rss, out = run([*exe, "calibrate", "--rubric", "bench-scale@1.0.0", "--format", "json", *extra], env)
        report = json.loads(out)
        ok = took <= limit and (rss <= 1024 or bool(extra))
        print(f"{label + ':':30s} {took:6.2f} s  (CPU {CPU[0]:5.1f} s, peak RSS {rss:5.0f} MB)  target ≤ {limit:g} s"
              + (" and ≤ 1 GB" if not extra else "") + f": {verdict(ok)}")
    for d in report["dimensions"]:
        print(f"  {d['dimension']:10s} {d['level']:8s} n={d['n']:,} alpha={d['alpha']:.3f} kappa={d['kappa']:.3f} "
              f"ac1={d['gwet_ac1']:.3f} aggregate={d['human_aggregate']}"
              + (f" ties={d['majority_ties']:,}" if "majority_ties" in d else ""))
