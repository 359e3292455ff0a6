"""Store figures on SQLite: import 100k items × 4 judge dimensions (target ≤ 5 s), claim + submit
p99 (≤ 10 ms), one page of 200 queue rows at the end of a 100k queue (≤ 20 ms)."""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

from reviewer.services.importing import import_file
from reviewer.store import open_store
from reviewer.store.sorting import QueueCursor

N = 100_000
DIMS = ("accuracy", "relevance", "completeness", "clarity")

with tempfile.TemporaryDirectory() as tmp:
    src = Path(tmp) / "items.jsonl"
    with src.open("w") as fh:
        for i in range(N):
            fh.write(json.dumps({"id": f"i{i:06d}", "input": "q", "output": f"answer number {i}",
                                 "judge": {"model": "m", "scores": {d: 1 + (i + k) % 10 for k, d in enumerate(DIMS)}}}) + "\n")
    store = open_store(str(Path(tmp) / "bench.db"))
    t = time.perf_counter()
    summary = import_file(store, src, "general-quality@1.0.0")
    took = time.perf_counter() - t
    print(f"import {N:,} items × {len(DIMS)} judge dims: {took:.2f} s ({N / took:,.0f} rows/s) "
          f"[{summary.judge_scores:,} judge scores, reader {summary.reader}] target ≤ 5 s: {'PASS' if took <= 5 else 'FAIL'}")
    # Not a target, for the record: every judge score with samples, a rationale and evidence.
    rich = Path(tmp) / "rich.jsonl"
    with rich.open("w") as fh:
        for i in range(N):
            fh.write(json.dumps({"id": f"r{i:06d}", "input": "q", "output": f"answer number {i}",
                                 "judge": {"model": "m", "scores": {d: {"samples": [1 + (i + k) % 10] * 3,
                                                                         "rationale": "because", "evidence": ["answer"]}
                                                                     for k, d in enumerate(DIMS)}}}) + "\n")
    other = open_store(str(Path(tmp) / "rich.db"))
    other.rubrics.get_rubric("general-quality@1.0.0")
    t = time.perf_counter()
    import_file(other, rich, "general-quality@1.0.0")
    print(f"  (for the record) the same with samples, rationale and evidence on every score: "
          f"{time.perf_counter() - t:.2f} s")
    lat = []
    for _ in range(300):
        t = time.perf_counter()
        claim = store.queue.claim_next("triage", "bench")
        assert claim is not None
        store.scores.add_human_score(claim.item_pk, "accuracy", "bench", 7.0)
        store.queue.complete(claim)
        lat.append(time.perf_counter() - t)
    lat.sort()
    p99 = lat[int(0.99 * (len(lat) - 1))]
    print(f"claim + submit + complete: median {statistics.median(lat) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms "
          f"target p99 ≤ 10 ms: {'PASS' if p99 <= 0.010 else 'FAIL'}")
    last = store.queue.queue_page("triage", after=QueueCursor.at(N - 250), limit=200)[-1].cursor.pk
    times = []
    for _ in range(50):
        t = time.perf_counter()
        page = store.queue.queue_page("triage", after=QueueCursor.at(N - 200), limit=200)
        times.append(time.perf_counter() - t)
    times.sort()
    print(f"queue page of {len(page)} rows at the end of {N:,} (keyset): median {statistics.median(times) * 1000:.1f} ms, "
          f"p95 {times[47] * 1000:.1f} ms target ≤ 20 ms: {'PASS' if times[47] <= 0.020 else 'FAIL'} (last key {last})")
