"""A large import into SQLite lifts the per-row insert guards of ``human_score`` and
``judge_score`` for its own transaction and checks the rows it wrote once, as a set
(reviewer.store.guards.set_checked_inserts). These cases show the guards are back after the
import (the same trigger SQL), still refuse a forged change afterwards, and that the set check —
not the lifted triggers — is what stops a bad row written meanwhile."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from reviewer.services.importing import import_file
from reviewer.store import open_store
from reviewer.store.guards import BulkGuardError, set_checked_inserts
from reviewer.store.import_batches import PARALLEL_FROM_LINES

REF = "general-quality@1.0.0"


def _triggers(db: str) -> dict[str, str]:
    conn = sqlite3.connect(db)
    try:
        return dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall())
    finally:
        conn.close()


def test_a_large_import_leaves_every_guard_as_it_was(tmp_path: Path) -> None:
    db = str(tmp_path / "big.db")
    open_store(db).close()
    before = _triggers(db)
    assert "human_score_printable_name" in before and "judge_score_no_replace" in before
    path = tmp_path / "big.jsonl"
    with path.open("w") as fh:
        for i in range(PARALLEL_FROM_LINES):  # large enough for the set-checked path
            fh.write(json.dumps({"id": f"b{i}", "output": "x", "judge": {"model": "m", "scores": {"accuracy": 7}},
                                 "human": [{"reviewer": "ana", "scores": {"accuracy": 6}}]}) + "\n")
    store = open_store(db)
    summary = import_file(store, path, REF)
    store.close()
    assert summary.human_scores == PARALLEL_FROM_LINES
    assert _triggers(db) == before
    raw = sqlite3.connect(db)
    for sql in ("UPDATE human_score SET score = 10", "DELETE FROM judge_score",
                "INSERT OR REPLACE INTO human_score (pk, item_pk, dimension, reviewer, score, kind, blind, revision, "
                "created_at) SELECT pk, item_pk, dimension, reviewer, 1, kind, blind, revision, created_at "
                "FROM human_score LIMIT 1",
                "INSERT INTO human_score (item_pk, dimension, reviewer, score, kind, blind, revision, created_at) "
                "VALUES (1, 'accuracy', ' ana', 3, 'import', 0, 1, '2026-01-01')"):
        with pytest.raises(sqlite3.DatabaseError):
            raw.execute(sql)
    raw.close()


@pytest.mark.parametrize(("reviewer", "kind", "message"), [
    ("bad\x07name", "import", "reviewer name must be non-empty and printable"),
    ("ana", "adjudication", "adjudication needs a reviewer with the lead role"),
])
def test_the_set_check_refuses_what_the_lifted_trigger_would(tmp_path: Path, reviewer: str, kind: str,
                                                              message: str) -> None:
    """Inside the block the row goes in (the trigger is lifted: this insert is what it would have
    refused); the check at the end refuses it, the transaction rolls back, the guards are back."""
    db = str(tmp_path / "s.db")
    store = open_store(db)
    before = _triggers(db)
    insert = ("INSERT INTO human_score (item_pk, dimension, reviewer, score, kind, blind, revision, created_at) "
              "VALUES (1, 'accuracy', ?, 3, ?, 0, 1, '2026-01-01')")
    with pytest.raises(BulkGuardError, match=message), store.db.write() as conn, set_checked_inserts(conn):
        conn.exec_driver_sql(insert, (reviewer, kind))
        assert conn.exec_driver_sql("SELECT count(*) FROM human_score").scalar() == 1
    assert _triggers(db) == before
    with store.db.read() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM human_score").scalar() == 0
    with pytest.raises(Exception, match=message), store.db.write() as conn:  # the trigger itself, back in force
        conn.exec_driver_sql(insert, (reviewer, kind))
    store.close()
