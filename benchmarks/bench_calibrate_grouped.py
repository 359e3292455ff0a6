"""Grouped calibrate at JUDGE-BENCH's largest size, beside a plain numpy script of the same figures.

The case: 420,000 items of one graded dimension (1–5), each with a judge score and two human
ratings, in the audit sample, each item's metadata naming its source document (4,200 documents of
100 items) among a few other keys. ``rubricate calibrate --group-by metadata.doc --format json``
(the default bootstrap of 1,000 draws) runs in its own process, timed with its peak RSS; so does
the anchor: a plain script (numpy, scipy, the ``krippendorff`` package) that loads the same scores
and group keys from a ``.npz`` and computes the same figures without a bootstrap — Krippendorff's
alpha (ordinal), Cohen's kappa (unweighted, linear, quadratic), exact and within-one agreement,
bias, MAE, RMSE, and Pearson, Spearman and Kendall per document, averaged. Printed: both times,
the ratio (target ≤ 1.5×) and calibrate's peak RSS (target ≤ 500 MB), PASS or FAIL, and
``--bootstrap 0`` beside them for reference.

Run: .venv/bin/python benchmarks/bench_calibrate_grouped.py [N_ITEMS] [--keep DIR]
(``--keep DIR`` leaves the files and database there; run again with it, they are measured again.)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_calibrate_scale import compile_bytecode, run, summary

RUBRIC = """id: bench-grouped
version: 1.0.0
name: Grouped calibration at scale
owner: bench
scale: {min: 1, max: 5}
dimensions:
- id: quality
  description: Overall quality of the summary, graded one to five.
  method: llm_judge
  weight: 1
  threshold: 60
  anchors: [{range: [1, 2], label: Poor}, {score: 3, label: Fair}, {range: [4, 5], label: Good}]
"""
PER_DOC = 100

ANCHOR = r"""
import sys, numpy as np, krippendorff
from scipy import stats
d = np.load(sys.argv[1])
j, h, doc = d["judge"].astype(float), d["humans"].astype(float), d["doc"]
hm = h.mean(axis=1)
alpha = krippendorff.alpha(reliability_data=np.vstack([j, hm]), level_of_measurement="ordinal")
levels = np.arange(1, 6)
ja, ha = np.rint(j).astype(int) - 1, np.clip(np.rint(hm), 1, 5).astype(int) - 1
t = np.zeros((5, 5)); np.add.at(t, (ja, ha), 1); p = t / t.sum()
kappas = []
for w in (np.ones((5, 5)) - np.eye(5), np.abs(levels[:, None] - levels[None, :]) / 4.0,
          ((levels[:, None] - levels[None, :]) / 4.0) ** 2):
    e = np.outer(p.sum(1), p.sum(0))
    kappas.append(1 - (w * p).sum() / (w * e).sum())
diff = j - hm
rates = (np.mean(diff == 0), np.mean(np.abs(diff) <= 1), diff.mean(), np.abs(diff).mean(), np.sqrt((diff ** 2).mean()))
order = np.argsort(doc, kind="stable")
cuts = np.flatnonzero(np.diff(doc[order])) + 1
per = {"pearson": [], "spearman": [], "kendall": []}
for sel in np.split(order, cuts):
    a, b = j[sel], hm[sel]
    if sel.size < 2 or np.all(a == a[0]) or np.all(b == b[0]):
        continue
    per["pearson"].append(stats.pearsonr(a, b)[0])
    per["spearman"].append(stats.spearmanr(a, b)[0])
    per["kendall"].append(stats.kendalltau(a, b)[0])
print(alpha, kappas, rates, {k: float(np.mean(v)) for k, v in per.items()}, len(per["pearson"]))
"""


def write_case(work: Path, n: int) -> Path:
    """The items file (and the anchor's ``.npz`` of the same scores); returns the items file."""
    rng = np.random.default_rng(28)
    truth = rng.integers(1, 6, n)
    judge = np.clip(truth + rng.integers(-1, 2, n) * (rng.random(n) < 0.4), 1, 5)
    humans = np.clip(truth[:, None] + rng.integers(-1, 2, (n, 2)) * (rng.random((n, 2)) < 0.3), 1, 5)
    doc = np.arange(n) // PER_DOC
    np.savez(work / "scores.npz", judge=judge, humans=humans, doc=doc)
    items = work / "items.jsonl"
    with items.open("w") as fh:
        for i in range(n):
            meta = {"doc": f"doc-{doc[i]:05d}", "system": f"sys-{i % 17}", "lang": "en", "source": "judge-bench",
                    "length": int(40 + i % 200)}
            fh.write(json.dumps({
                "id": f"i{i:06d}", "input": "Summarise the document.", "output": f"summary {i}", "metadata": meta,
                "audit": True, "judge": {"model": "m", "scores": {"quality": int(judge[i])}},
                "human": [{"reviewer": f"r{(i + k) % 4}", "scores": {"quality": int(humans[i, k])}} for k in range(2)],
            }) + "\n")
    return items


def _median_cpu(runs: list[tuple[float, float, float, str]]) -> float:
    """CPU seconds of the run with the median wall time (the one :func:`summary` judges)."""
    return sorted(runs, key=lambda r: r[0])[len(runs) // 2][1]


def bench(work: Path, n: int) -> None:
    compile_bytecode()
    env = {**os.environ, "RUBRICATE_DB": str(work / "bench.db"), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    exe = [sys.executable, "-m", "reviewer"]
    rubric = work / "bench-grouped.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    made = (work / "made").exists() and (work / "made").read_text() == str(n)
    if not made:  # (a --keep folder already holding this case is measured again as it is)
        items = write_case(work, n)
        run([*exe, "rubric", "add", str(rubric)], env)
        run([*exe, "import", str(items), "--rubric", "bench-grouped@1.0.0"], env)
        (work / "made").write_text(str(n))
    print(f"{n:,} items in {n // PER_DOC:,} documents, one judge score and two human ratings each; "
          f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    anchor = [run([sys.executable, "-c", ANCHOR, str(work / "scores.npz")], env) for _ in range(3)]
    a_line, a_took, _ = summary(anchor)
    cmd = [*exe, "calibrate", "--rubric", "bench-grouped@1.0.0", "--group-by", "metadata.doc", "--format", "json"]
    runs = [run(cmd, env) for _ in range(3)]
    c_line, c_took, c_peak = summary(runs)
    zero = [run([*cmd, "--bootstrap", "0"], env) for _ in range(3)]
    z_line, z_took, _ = summary(zero)
    ratio = c_took / a_took
    cpu_ratio = _median_cpu(runs) / _median_cpu(anchor)
    figures = json.loads(runs[-1][3])["dimensions"][0]
    print(f"plain numpy script (no bootstrap):       {a_line}")
    print(f"calibrate --group-by (1,000 draws):      {c_line}")
    print(f"calibrate --group-by --bootstrap 0:      {z_line}  ({z_took / a_took:.2f}× the script)")
    print(f"  n={figures['n']:,} groups kept={figures['n_groups']:,} alpha={figures['alpha']:.4f} "
          f"pearson={figures['pearson']:.4f} spearman={figures['spearman']:.4f} kendall={figures['kendall']:.4f}")
    print(f"  anchor's figures: {anchor[-1][3].strip()[:300]}")
    ok = ratio <= 1.5 and c_peak <= 500
    print(f"CPU time ratio {cpu_ratio:.2f}× (on a loaded machine the wall ratio includes waiting for a CPU)")
    print(f"ratio {ratio:.2f}× (target ≤ 1.5×), peak RSS {c_peak:.0f} MB (target ≤ 500 MB): {'PASS' if ok else 'FAIL'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=420_000)
    parser.add_argument("--keep", type=Path, help="write the files and database here and leave them")
    args = parser.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        bench(args.keep, args.n)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            bench(Path(tmp), args.n)


if __name__ == "__main__":
    main()
