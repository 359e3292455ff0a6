"""The semantic dimension against bare sentence-transformers, measured in one run.

Imports N items (an output and its own reference each) into a fresh SQLite store with a rubric of
one ``semantic_similarity`` dimension, then times:
- bare ``model.encode`` of the same 2N texts (batch 64, normalised), before and after the runs,
  the faster of the two: the anchor;
- ``rubricate judge``'s pipeline (:func:`reviewer.services.judging.run`) over the items, cold;
- the same run again: every vector comes from the store's cache.
The three are taken ``--repeat`` times in turn (each cold run on a fresh store), and each figure is
its fastest: on a shared machine the load drifts within a run, and one slow stretch falling on one
side alone would make the ratio say the load, not the code.
Prints texts/s, the ratio to the anchor (target ≥ 0.9×) and the rerun's speed-up (target ≥ 20×).

Run: .venv/bin/python benchmarks/bench_semantic.py [--items N] [--repeat K]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from reviewer.services import judging
from reviewer.services.importing import import_file
from reviewer.store import open_store
from rubrics.loader import load_rubric_text
from rubrics.methods.semantic import load_model

WORDS = ("refund", "policy", "opened", "items", "days", "customer", "receipt", "store", "credit",
         "return", "within", "the", "a", "for", "and", "is", "can", "be", "with", "no")

RUBRIC = """\
id: bench-semantic
version: 1.0.0
name: Semantic benchmark
owner: benchmarks
description: One semantic dimension.
scale: {min: 1, max: 5}
dimensions:
  - id: sim
    name: Similarity
    description: Close to the reference.
    method: semantic_similarity
    weight: 1
    threshold: 60
    params: {range: [0.3, 0.9]}
    anchors:
      - {range: [1, 2], label: Far, description: Far from it.}
      - {range: [3, 5], label: Close, description: Close to it.}
"""


def sentence(i: int) -> str:
    """A distinct sentence of 8 to 19 words."""
    return " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(8 + i % 12)) + f" {i}."


def _bare(model: Any, texts: list[str]) -> float:
    """Seconds for bare sentence-transformers to encode ``texts``."""
    started = time.perf_counter()
    model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                 show_progress_bar=False)
    return time.perf_counter() - started


def _runs(model: Any, rows: list[dict[str, str]], texts: list[str]) -> tuple[float, float, float, Any, Any]:
    """Bare encode, a cold run and a rerun on a fresh store: their seconds and the two runs' summaries."""
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "bench.db"))
        store.rubrics.add_rubric(load_rubric_text(RUBRIC), RUBRIC)
        data = Path(tmp) / "items.jsonl"
        data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
        import_file(store, str(data), "bench-semantic@1.0.0")
        options = judging.JudgeOptions(rubric_ref="bench-semantic@1.0.0")

        bare = _bare(model, texts)
        started = time.perf_counter()
        [cold] = judging.run(store, options)
        first = time.perf_counter() - started
        started = time.perf_counter()
        [warm] = judging.run(store, options)
        again = time.perf_counter() - started
        store.close()
    return bare, first, again, cold, warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    n = args.items
    rows = [{"id": f"q{i}", "input": "?", "output": sentence(2 * i), "reference": sentence(2 * i + 1)}
            for i in range(n)]
    texts = [t for r in rows for t in (r["output"], r["reference"])]
    started = time.perf_counter()
    model = load_model()
    model.encode(["warm up"], show_progress_bar=False)
    print(f"model load                 : {time.perf_counter() - started:6.2f} s")
    rounds = [_runs(model, rows, texts) for _ in range(max(1, args.repeat))]
    for i, (b, f, a, _, _) in enumerate(rounds, 1):
        print(f"round {i}                    : bare {b:6.2f} s, cold {f:6.2f} s, rerun {a:6.3f} s")
    bare, first, again = (min(r[i] for r in rounds) for i in range(3))
    cold, warm = rounds[0][3], rounds[0][4]
    k = len(texts)
    print(f"bare model.encode          : {k / bare:8.1f} texts/s ({k} texts, batch 64)")
    print(f"semantic dimension (cold)  : {k / first:8.1f} texts/s, {cold.totals.embedded} encoded, "
          f"{first / n * 1000:.2f} ms/item")
    print(f"rerun (store cache)        : {k / again:8.1f} texts/s, {warm.totals.embedded} encoded")
    ratio, speedup = bare / first, first / again
    print(f"ratio to bare encode       : {ratio:6.2f}×  (target ≥ 0.90×) {'ok' if ratio >= 0.9 else 'FAIL'}")
    print(f"rerun speed-up             : {speedup:6.1f}×  (target ≥ 20×) {'ok' if speedup >= 20 else 'FAIL'}")


if __name__ == "__main__":
    main()
