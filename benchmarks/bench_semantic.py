"""Semantic similarity throughput with the real MiniLM model, and the cache on a second run.

Prints sentences/s for batch encoding (cold: every text reaches the model), then encodes the same
texts again and prints how many reached the model (0 when the cache works) and that rate.

Run: .venv/bin/python benchmarks/bench_semantic.py [--sentences N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from rubrics.judge.cache import MemoryCache
from rubrics.methods.semantic import Embedder, load_model

WORDS = ("refund", "policy", "opened", "items", "days", "customer", "receipt", "store", "credit",
         "return", "within", "the", "a", "for", "and", "is", "can", "be", "with", "no")


def sentences(n: int) -> list[str]:
    return [" ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(8 + i % 12)) + f" {i}."
            for i in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=2000)
    n = parser.parse_args().sentences
    started = time.perf_counter()
    load_model()
    print(f"model load                 : {time.perf_counter() - started:6.2f} s")
    texts = sentences(n)
    store = MemoryCache()
    embedder = Embedder(cache=store, batch_size=64)
    started = time.perf_counter()
    embedder.encode(texts)
    cold = n / (time.perf_counter() - started)
    print(f"cold batch encoding        : {cold:8.1f} sentences/s ({n} sentences, batch 64)")
    before = embedder.encoded
    started = time.perf_counter()
    embedder.encode(texts)
    warm = n / (time.perf_counter() - started)
    print(f"second run (in-memory LRU) : {warm:8.1f} sentences/s, {embedder.encoded - before} reached the model")
    fresh = Embedder(cache=store)
    started = time.perf_counter()
    fresh.encode(texts)
    persisted = n / (time.perf_counter() - started)
    print(f"new process (store cache)  : {persisted:8.1f} sentences/s, {fresh.encoded} reached the model")
    print(f"cache hit on second run    : {'yes' if embedder.encoded == before and fresh.encoded == 0 else 'NO'}")


if __name__ == "__main__":
    main()
