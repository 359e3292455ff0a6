"""kill -9 during an import and during a judge run leaves nothing half-written (SQLite).

An import is one transaction: killed at any moment, the file's items are all there or none are.
A judge run writes whole items per transaction (every dimension of an item with its summary):
killed at any moment, no item has some of its dimensions from the run, every item with scores
has its summary, and ``--only-missing`` finishes exactly the rest. Without these guards (a
commit per row, or a batch cut inside an item) a kill leaves a partial item that looks judged
(the case below would see a dimension set other than none-or-all).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reviewer.services import judging
from reviewer.services.importing import import_file
from reviewer.store import open_store
from rubrics.loader import load_rubric_file
from tests.judge.helpers import RUBRIC, answer
from tests.judge.loopback import LoopbackServer, Reply

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    s = LoopbackServer().start()
    yield s
    s.stop()


def _integrity(db: str) -> None:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


@pytest.mark.slow
def test_kill9_during_import_leaves_all_or_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "imp.db")
    src = tmp_path / "many.jsonl"
    n = 20000
    src.write_text("".join(json.dumps({"id": f"k{i}", "output": f"answer {i} " * 20,
                                       "human": [{"reviewer": "ana", "scores": {"accuracy": 1 + i % 10}}]}) + "\n"
                           for i in range(n)))
    open_store(db).close()
    rng = random.Random(9)
    seen = set()
    for _ in range(4):
        proc = subprocess.Popen([sys.executable, "-m", "reviewer", "import", str(src), "--rubric",
                                 "general-quality@1.0.0", "--db", db], env=ENV, cwd=str(ROOT),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0 + rng.random() * 2.5)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        _integrity(db)
        conn = sqlite3.connect(db)
        items, scores = (conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("item", "human_score"))
        conn.close()
        assert (items, scores) in ((0, 0), (n, n)), "an import is all or nothing"
        seen.add(items)
        if items:
            break
    store = open_store(db)
    import_file(store, src, "general-quality@1.0.0")  # completes (or changes nothing)
    assert store.queue.queue_count("triage") == n
    store.close()


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _gone(pid: int) -> bool:
    """Exited (no such process, or a zombie nobody has reaped yet)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
                    reason="needs Linux /proc to find the import's reader process")
def test_kill9_of_an_import_leaves_no_reader_process(tmp_path: Path) -> None:
    """A large import reads the file in a forked child. Before: the child kept its own copy of the
    pipe's reading end, so with the importer killed it waited for ever on a full pipe — orphaned
    ``reviewer import`` processes were found after test runs. Now it gets a broken pipe and exits."""
    db = str(tmp_path / "imp.db")
    src = tmp_path / "many.jsonl"
    src.write_text("".join(json.dumps({"id": f"k{i}", "output": f"answer {i} " * 20,
                                       "human": [{"reviewer": "ana", "scores": {"accuracy": 1 + i % 10}}]}) + "\n"
                           for i in range(60000)))
    open_store(db).close()
    proc = subprocess.Popen([sys.executable, "-m", "reviewer", "import", str(src), "--rubric",
                             "general-quality@1.0.0", "--db", db], env=ENV, cwd=str(ROOT),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (readers := _children(proc.pid)) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert readers, "the import started no reader process (or finished first)"
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 30
    while not all(_gone(pid) for pid in readers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in readers if not _gone(pid)]
    for pid in left:  # do not leave it behind for the next test
        os.kill(pid, signal.SIGKILL)
    assert not left, "the reader process outlived the killed import"


@pytest.mark.slow
def test_kill9_during_judge_leaves_whole_items(tmp_path: Path, server: LoopbackServer) -> None:
    db = str(tmp_path / "judge.db")
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC)
    store = open_store(db)
    store.rubrics.add_rubric(load_rubric_file(rubric), RUBRIC)
    items = tmp_path / "items.jsonl"
    n = 150
    items.write_text("".join(json.dumps({"id": f"q{i}", "input": f"Question {i}?", "output": f"Answer {i}."}) + "\n"
                             for i in range(n)))
    import_file(store, str(items), "judge-test@1.0.0")
    server.reset(default=Reply(answer(4), delay=0.01))
    cmd = [sys.executable, "-m", "reviewer", "judge", "--rubric", "judge-test@1.0.0", "--model",
           "openai/judge-x", "--api-base", server.url, "--api-key", "k", "--concurrency", "4", "--db", db]
    proc = subprocess.Popen(cmd, env=ENV, cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while server.count < 90 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    _integrity(db)
    conn = sqlite3.connect(db)
    dims: dict[int, set[str]] = {}
    for pk, dim in conn.execute("SELECT item_pk, dimension FROM judge_score"):
        dims.setdefault(pk, set()).add(dim)
    summarised = {pk for (pk,) in conn.execute("SELECT pk FROM item WHERE judge_overall IS NOT NULL")}
    conn.close()
    assert all(d == {"accuracy", "brevity"} for d in dims.values()), "every judged item is whole"
    assert set(dims) == summarised, "an item's scores and its summary are written together"
    assert 0 < len(dims) < n, "killed part-way (if this fails the run was too quick or too slow to cut)"
    server.reset()
    [rest] = judging.run(store, judging.JudgeOptions(
        rubric_ref="judge-test@1.0.0", models=["openai/judge-x"], api_base=server.url, api_key="k",
        timeout=5, retries=1, only_missing=True))
    # replies the killed run received but had not written yet come from the judge cache
    assert rest.totals.items == n - len(dims) and server.count == n - len(dims) - rest.totals.cached
    conn = sqlite3.connect(db)
    per_item = conn.execute("SELECT count(*) FROM judge_score WHERE dimension = 'accuracy' "
                            "GROUP BY item_pk").fetchall()
    conn.close()
    assert len(per_item) == n and {c for (c,) in per_item} == {1}, "nothing scored twice"
    store.close()
