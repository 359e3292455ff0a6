"""Corrected estimates at scale, as a user runs them: 1,000,000 judged items of which 2,000 are
an audit sample scored by people, imported with `rubricate import` and calibrated with
`rubricate calibrate --format json`, each in its own process.

Target (issue 17): the estimates (a corrected mean per dimension and the corrected pass rate) add
≤ 1 s to `calibrate`: after one warm-up run, the median of five runs with estimates minus the
median of five with `--no-estimates` (interleaved), with the default bootstrap and with
`--bootstrap 0`.

Usage: python benchmarks/bench_estimates.py [N_ITEMS] [N_LABELLED]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
LABELLED = int(sys.argv[2]) if len(sys.argv) > 2 else 2_000
RUBRIC = """id: bench-estimate
version: 1.0.0
name: Corrected estimates at scale
owner: bench
scale: {min: 1, max: 5}
dimensions:
- id: helpfulness
  description: How far the answer helps the user, graded one to five.
  method: llm_judge
  weight: 1.0
  threshold: 60
  anchors: [{range: [1, 2], label: Poor}, {score: 3, label: Fair}, {range: [4, 5], label: Good}]
"""


def write_items(path: Path, n: int, labelled: int) -> None:
    """A judge that reads half a point high on every item; people on the first ``labelled``."""
    rng = np.random.default_rng(17)
    truth = np.clip(np.rint(rng.normal(3.2, 1.0, n)), 1, 5).astype(int)
    judge = np.clip(np.rint(truth + 0.5 + rng.normal(0, 0.7, n)), 1, 5).astype(int)
    with path.open("w") as fh:
        for i in range(n):
            line = f'{{"id": "i{i}", "output": "answer {i}", "judge": {{"model": "m", "scores": {{"helpfulness": {judge[i]}}}}}'
            if i < labelled:
                line += f', "audit": true, "human": [{{"reviewer": "ana", "scores": {{"helpfulness": {truth[i]}}}}}]'
            fh.write(line + "}\n")


def timed(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    t = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "reviewer", *args], env=env, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"rubricate {' '.join(args)} failed: {res.stderr.strip()[-400:]}")
    return time.perf_counter() - t, res.stdout


def main() -> None:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "rubric.yaml").write_text(RUBRIC)
        items, db = d / "items.jsonl", str(d / "bench.db")
        write_items(items, N, LABELLED)
        timed(["rubric", "add", str(d / "rubric.yaml"), "--db", db], env)
        took, _ = timed(["import", str(items), "--rubric", "bench-estimate@1.0.0", "--db", db], env)
        print(f"import of {N:,} items ({LABELLED:,} audit items scored by people): {took:.1f} s")
        base = ["calibrate", "--rubric", "bench-estimate@1.0.0", "--format", "json", "--db", db]
        timed(base, env)  # one run to warm the page cache after the import; not counted
        for label, extra in (("default bootstrap", []), ("--bootstrap 0", ["--bootstrap", "0"])):
            # interleaved, so that a slow moment of the machine falls on both sides alike
            pairs = [(timed(base + extra + ["--no-estimates"], env)[0], timed(base + extra, env)) for _ in range(5)]
            without = statistics.median(t for t, _ in pairs)
            with_ = statistics.median(t for _, (t, _) in pairs)
            rep = json.loads(pairs[0][1][1])
            e, p = rep["dimensions"][0]["estimate"], rep["pass_rate_estimate"]
            added = with_ - without
            print(f"calibrate ({label}): {without:.2f} s without estimates, {with_:.2f} s with: "
                  f"adds {added:.2f} s  target ≤ 1 s: {'PASS' if added <= 1.0 else 'FAIL'}")
        print(f"helpfulness: judge {e['judge_only']:.3f}, people {e['humans_only']:.3f} "
              f"[{e['humans_ci'][0]:.3f}, {e['humans_ci'][1]:.3f}], corrected {e['ppi']:.3f} "
              f"[{e['ppi_ci'][0]:.3f}, {e['ppi_ci'][1]:.3f}] (lambda {e['lambda']:.2f}, "
              f"worth {e['effective_labels']:.0f} labels; n {e['n_labelled']:,} + {e['n_unlabelled']:,})")
        print(f"pass rate: judge {p['judge_only']:.3f}, corrected {p['ppi']:.3f} "
              f"[{p['ppi_ci'][0]:.3f}, {p['ppi_ci'][1]:.3f}]")


if __name__ == "__main__":
    main()
