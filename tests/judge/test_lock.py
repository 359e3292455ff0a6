"""A judge run never loses a paid call: another connection holds the database's write lock past
the timeout while the judge answers. The run ends ``failed`` in one line saying how many replies
are kept and where; ``--only-missing`` then stores every score without calling the judge again.
On SQLite (``BEGIN IMMEDIATE`` from another connection, ``RUBRICATE_DB_TIMEOUT=1``) and
PostgreSQL (``LOCK TABLE`` from another connection, ``lock_timeout`` 1 s)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text as sql

from tests.cli import run_cli
from tests.judge import helpers
from tests.judge.loopback import GOOD, LoopbackServer, Reply
from tests.store.conftest import pg_schema_url

REF = "judge-test@1.0.0"
store = helpers.store  # the fixture: seven items, on this module's db


class Lock:
    """The database's write lock, held from another connection until :meth:`release`."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.conn: Any = None
        self.taken = threading.Event()

    def take(self) -> None:
        if self.taken.is_set():
            return
        if "://" not in self.db:
            self.conn = sqlite3.connect(self.db, isolation_level=None, check_same_thread=False)
            self.conn.execute("BEGIN IMMEDIATE")
        else:
            import psycopg

            self.conn = psycopg.connect(self.db.replace("postgresql+psycopg://", "postgresql://"))
            self.conn.execute("LOCK TABLE judge_cache, judge_score, judge_run, item IN EXCLUSIVE MODE")
        self.taken.set()

    def release(self) -> None:
        if self.conn is not None:
            self.conn.rollback()
            self.conn.close()
            self.conn = None


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The database, waiting one second for a lock: a SQLite file, a PostgreSQL schema."""
    monkeypatch.setenv("RUBRICATE_DB_TIMEOUT", "1")
    monkeypatch.setenv("RUBRICATE_DATA_DIR", str(tmp_path / "data"))
    if request.param == "sqlite":
        yield str(tmp_path / "judge.db")
    else:
        for url in pg_schema_url():
            yield url + "%20-clock_timeout%3D1000"


def _judge(db: str, server: LoopbackServer, capsys: pytest.CaptureFixture[str], *more: str) -> tuple[int, str]:
    code, _, err = run_cli(["judge", "--rubric", REF, "--model", "openai/judge-x", "--api-base", server.url,
                            "--api-key", "k", "--timeout", "5", "--retries", "0", "--db", db, *more], capsys)
    return code, err


def test_a_lock_past_the_timeout_keeps_every_reply_for_only_missing(
        store: Any, db: str, server: LoopbackServer, capsys: pytest.CaptureFixture[str]) -> None:
    lock = Lock(db)

    def locked_then_good(_: dict[str, Any]) -> str:
        lock.take()  # once the run has started: from the first judge call on
        return GOOD

    server.reset(default=Reply(locked_then_good))
    try:
        code, err = _judge(db, server, capsys)
    finally:
        lock.release()
    lines = err.strip().splitlines()
    pending = store.runs.judge_pending_path()
    assert code == 3 and len(lines) == 1, lines
    assert "locked" in lines[0] and f"judge run 1 failed; 7 judge replies are kept in {pending}" in lines[0]
    assert "--only-missing" in lines[0] and "Traceback" not in err
    assert server.count == 7 and pending.exists()
    with store.db.read() as conn:  # nothing reached the database while it was locked
        assert conn.execute(sql("SELECT count(*) FROM judge_score")).scalar() == 0
        assert conn.execute(sql("SELECT count(*) FROM judge_cache")).scalar() == 0

    server.reset()
    code, err = _judge(db, server, capsys, "--only-missing")
    assert code == 0, err
    assert server.count == 0  # every reply came from what the failed run kept
    with store.db.read() as conn:
        scores = conn.execute(sql("SELECT score FROM judge_score WHERE dimension = 'accuracy'")).scalars().all()
        runs = dict(conn.execute(sql("SELECT pk, status FROM judge_run")).all())
    assert sorted(scores) == [4.0] * 7
    assert runs == {1: "failed", 2: "done"}  # the failed run is closed, never left running
    assert not pending.exists()


def test_a_lock_released_within_the_timeout_is_waited_out(
        store: Any, db: str, server: LoopbackServer, capsys: pytest.CaptureFixture[str]) -> None:
    lock = Lock(db)

    def briefly_locked(_: dict[str, Any]) -> str:
        if not lock.taken.is_set():
            lock.take()
            threading.Timer(0.3, lock.release).start()
        return GOOD

    server.reset(default=Reply(briefly_locked))
    try:
        code, err = _judge(db, server, capsys)
    finally:
        lock.release()
    assert code == 0, err
    assert server.count == 7 and not store.runs.judge_pending_path().exists()
    with store.db.read() as conn:
        assert conn.execute(sql("SELECT count(*) FROM judge_score WHERE dimension = 'accuracy'")).scalar() == 7
        assert conn.execute(sql("SELECT status FROM judge_run")).scalar() == "done"


def test_a_lock_mid_run_stops_new_calls_and_no_call_is_paid_twice(
        store: Any, db: str, server: LoopbackServer, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """150 items (the red team's run): the first batch write fails while calls go on. The run
    starts nothing new once a write has failed, lets the calls in flight finish, keeps every reply;
    the rerun calls only for the items never judged, so the two runs together make 150 calls."""
    import json
    import re

    from reviewer.services.importing import import_file

    items = tmp_path / "more.jsonl"
    items.write_text("".join(json.dumps({"id": f"m{i}", "input": f"Query {i}?", "output": f"Reply {i}."}) + "\n"
                             for i in range(143)))
    import_file(store, str(items), REF)  # with the fixture's seven: 150
    lock = Lock(db)

    def locked_then_good(_: dict[str, Any]) -> str:
        lock.take()
        return GOOD

    server.reset(default=Reply(locked_then_good, delay=0.2))
    try:
        code, err = _judge(db, server, capsys)
    finally:
        lock.release()
    lines = err.strip().splitlines()
    assert code == 3 and len(lines) == 1, lines
    found = re.search(r"judge run 1 failed; (\d+) judge replies are kept", lines[0])
    assert found is not None, lines[0]
    first = server.count
    assert first < 150  # the failed write stopped the run before every item was sent
    assert int(found.group(1)) == first  # every reply paid for is kept

    server.reset()
    code, err = _judge(db, server, capsys, "--only-missing")
    assert code == 0, err
    assert first + server.count == 150  # no call made twice
    with store.db.read() as conn:
        scored = conn.execute(sql("SELECT count(DISTINCT item_pk) FROM judge_score WHERE dimension = 'accuracy' "
                                  "AND score IS NOT NULL")).scalar()
    assert scored == 150


def test_a_damaged_file_of_kept_replies_is_one_line_and_calls_nothing(
        store: Any, db: str, server: LoopbackServer, capsys: pytest.CaptureFixture[str]) -> None:
    pending = store.runs.judge_pending_path()
    pending.parent.mkdir(parents=True, exist_ok=True)
    pending.write_text('{"format": "rubricate-judge-pending/1", "cache": [1, 2]}')
    code, err = _judge(db, server, capsys)
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1, lines
    assert lines[0] == (f"error: {pending}: not a file of kept judge replies ('cache' is not a mapping of "
                        "entries); move it away to go on (the replies in it are then asked for again)")
    assert server.count == 0 and pending.exists()
