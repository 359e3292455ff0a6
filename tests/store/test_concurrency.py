"""Several reviewers, one queue: no item is ever held by two at once, none is lost."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from reviewer.services.importing import import_file
from reviewer.store import open_store
from tests.store.claimers import claim_all

N_ITEMS = 3000
WORKERS = 4


#: One dimension, and a review counts with it: each claimer scores it and completes the item (an
#: item completed with nothing scored stays in progress and would be served again).
RACE_RUBRIC = """\
id: race
version: 1.0.0
name: Race
owner: tests
description: One dimension a claimer scores before it completes the item.
scale: {min: 1, max: 10}
review: {partial: true}
dimensions:
  - id: accuracy
    description: Whether the answer is right.
    method: llm_judge
    weight: 1
    threshold: 50
    prompt: Is {output} right?
    anchors: [{range: [1, 5], label: Wrong}, {range: [6, 10], label: Right}]
"""


def _fill(db: str, tmp: Path) -> None:
    from rubrics.loader import load_rubric_text

    path = tmp / "items.jsonl"
    with path.open("w") as fh:
        for i in range(N_ITEMS):
            fh.write(json.dumps({"id": f"c{i:05d}", "output": f"answer {i}",
                                 "judge": {"model": "j", "scores": {"accuracy": 1 + i % 10}}}) + "\n")
    store = open_store(db)
    store.rubrics.add_rubric(load_rubric_text(RACE_RUBRIC, "race.yaml"), RACE_RUBRIC)
    import_file(store, path, "race@1.0.0")
    store.close()


def _race(db: str, tmp: Path, naive: bool) -> Counter[int]:
    ctx = mp.get_context("spawn")
    outs = [str(tmp / f"claimed-{naive}-{i}.json") for i in range(WORKERS)]
    procs = [ctx.Process(target=claim_all, args=(db, f"r{i}", outs[i], naive)) for i in range(WORKERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=240)
        assert p.exitcode == 0
    counts: Counter[int] = Counter()
    for out in outs:
        counts.update(json.loads(Path(out).read_text()))
    return counts


@pytest.mark.slow
def test_four_processes_claim_each_item_exactly_once(db_url: str, tmp_path: Path) -> None:
    _fill(db_url, tmp_path)
    counts = _race(db_url, tmp_path, naive=False)
    assert [pk for pk, n in counts.items() if n > 1] == []
    assert len(counts) == N_ITEMS  # none lost


@pytest.mark.slow
def test_the_same_race_with_a_naive_claim_shows_duplicates(db_url: str, tmp_path: Path) -> None:
    """The harness can fail: read-then-update without a lock hands items out twice."""
    _fill(db_url, tmp_path)
    counts = _race(db_url, tmp_path, naive=True)
    assert sum(1 for n in counts.values() if n > 1) > 0


def test_expired_lease_is_claimable_again_but_not_before(tmp_path: Path) -> None:
    db = str(tmp_path / "lease.db")
    _fill_small = tmp_path / "two.jsonl"
    _fill_small.write_text('{"id": "a", "output": "x"}\n')
    store = open_store(db)
    import_file(store, _fill_small, "general-quality@1.0.0")
    first = store.queue.claim_next("triage", "ana", lease_seconds=1)
    assert first is not None
    assert store.queue.claim_next("triage", "ben") is None  # held
    time.sleep(1.2)
    second = store.queue.claim_next("triage", "ben")
    assert second is not None and second.item_pk == first.item_pk


@pytest.mark.slow
def test_killed_writer_loses_no_acknowledged_score(tmp_path: Path) -> None:
    db = str(tmp_path / "crash.db")
    src = tmp_path / "one.jsonl"
    src.write_text('{"id": "a", "output": "x"}\n')
    store = open_store(db)
    import_file(store, src, "general-quality@1.0.0")
    pk = store.queue.queue_page("triage")[0].item_pk
    ack = tmp_path / "ack.txt"
    rng = random.Random(7)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for _ in range(20):
        proc = subprocess.Popen([sys.executable, "-m", "tests.store.claimers", "score", db, str(pk), str(ack)],
                                env=env, cwd=str(Path(__file__).resolve().parents[2]))
        # Kill at a random moment after the writer is under way. Waiting for its next
        # acknowledgement first keeps the test honest on a loaded machine, where starting
        # Python alone can take longer than a fixed delay (then no score was ever written).
        before = ack.stat().st_size if ack.exists() else 0
        deadline = time.monotonic() + 60
        while (ack.stat().st_size if ack.exists() else 0) == before and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(rng.random() * 0.5)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    acked = {int(x) for x in ack.read_text().split()}
    assert len(acked) > 20
    stored = {h.pk for h in open_store(db).scores.human_rows(pk)}
    assert acked <= stored
    import sqlite3

    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
