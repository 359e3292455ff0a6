"""What a large import does for speed must not show in what it stores: human scores keep the
file's order whichever way they go in (plain ones with four parameters, the rest in full); the
score tables' indexes, dropped while the rows go in, are back exactly as they were, also when the
file is refused; the set check can run batch by batch."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import open_store
from reviewer.store.bulk import deferred_indexes
from reviewer.store.guards import BulkGuardError, set_checked_inserts
from reviewer.store.import_batches import CHUNK, PARALLEL_FROM_LINES

REF = "general-quality@1.0.0"


def _row(i: int) -> dict[str, Any]:
    row: dict[str, Any] = {"id": f"b{i:06d}", "output": f"answer {i}",
                           "judge": {"model": "m", "scores": {"accuracy": 1 + i % 10}}}
    if i % 3 == 0:
        scores: dict[str, Any] = {"accuracy": 1 + i % 10, "clarity": 1 + (i // 3) % 10}
        entry: dict[str, Any] = {"reviewer": f"r{i % 4}", "scores": scores}
        # in the second batch, one entry with a reason and one blind halfway: the batch's plain
        # scores before them must keep their place
        if i == CHUNK + 1501:
            scores["clarity"] = {"score": 5, "reason": "hedged", "tags": ["vague"]}
        if i == CHUNK + 3001:
            entry["blind"] = True
        row["human"] = [entry, {"reviewer": "zoe", "scores": {"relevance": 1 + i % 10}}]
    return row


def test_the_file_has_the_shapes_it_means_to() -> None:
    assert _row(CHUNK + 1501)["human"][0]["scores"]["clarity"]["reason"] == "hedged"
    assert _row(CHUNK + 3001)["human"][0]["blind"] is True


def _expected(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Every human score in file order, as stored."""
    out = []
    for row in rows:
        for entry in row.get("human", []):
            for dim, value in entry["scores"].items():
                score, reason, tags = (value["score"], value.get("reason"), value.get("tags", [])) \
                    if isinstance(value, dict) else (value, None, [])
                out.append((row["id"], dim, entry["reviewer"], float(score), reason, json.dumps(tags),
                            int(entry.get("blind", False)), "import"))
    return out


def _indexes(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))


def test_human_scores_keep_the_files_order_and_the_indexes_come_back(tmp_path: Path) -> None:
    rows = [_row(i) for i in range(PARALLEL_FROM_LINES + 10)]
    path = tmp_path / "big.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    db = tmp_path / "b.db"
    open_store(str(db)).close()
    before = _indexes(db)
    assert {"ix_judge_item_dim", "ix_judge_score_run_pk", "ix_human_item_dim"} <= set(before)
    store = open_store(str(db))
    summary = import_file(store, path, REF)
    store.close()
    assert summary.reader == "child"
    assert _indexes(db) == before
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT i.item_id, h.dimension, h.reviewer, h.score, h.reason, h.tags, h.blind, h.kind "
                              "FROM human_score h JOIN item i ON i.pk = h.item_pk ORDER BY h.pk").fetchall()
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        plan = " ".join(str(r) for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM judge_score WHERE item_pk = 5 AND dimension = 'accuracy'"))
    assert stored == _expected(rows)
    assert "ix_judge_item_dim" in plan  # the rebuilt index is the one queries use


def test_a_refused_file_leaves_the_indexes_and_no_rows(tmp_path: Path) -> None:
    rows = [_row(i) for i in range(PARALLEL_FROM_LINES)]
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"id": "late", "output": 3}\n')
    db = tmp_path / "r.db"
    open_store(str(db)).close()
    before = _indexes(db)
    store = open_store(str(db))
    with pytest.raises(UserError, match=rf"bad.jsonl:{PARALLEL_FROM_LINES + 1}: item late: needs 'output' text"):
        import_file(store, path, REF)
    store.close()
    assert _indexes(db) == before
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM human_score").fetchone() == (0,)


def test_deferred_indexes_are_gone_inside_and_back_after_an_error(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    store = open_store(str(db))
    before = _indexes(db)
    with pytest.raises(RuntimeError, match="stop"), store.db.write() as conn, deferred_indexes(conn, ("judge_score",)):
        inside = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "ix_judge_item_dim" not in inside and "ix_human_item_dim" in inside  # only the table named
        raise RuntimeError("stop")
    store.close()
    assert _indexes(db) == before


def test_the_set_check_called_between_batches_refuses_a_bad_row_there(tmp_path: Path) -> None:
    """The importer calls the check after each batch; a bad name written before the call is
    refused by it (not only at the block's end)."""
    store = open_store(str(tmp_path / "s.db"))
    insert = ("INSERT INTO human_score (item_pk, dimension, reviewer, score, kind, blind, revision, created_at) "
              "VALUES (1, 'accuracy', ?, 3, 'import', 0, 1, '2026-01-01')")
    reached = []
    with pytest.raises(BulkGuardError, match="reviewer name must be non-empty"), store.db.write() as conn, \
            set_checked_inserts(conn) as check:
        conn.exec_driver_sql(insert, ("ana",))
        check()  # a good batch passes
        conn.exec_driver_sql(insert, ("bad\x07name",))
        check()
        reached.append("after the bad batch")
    assert reached == []
    store.close()


def test_an_imported_gap_is_the_folds_whoever_scored(tmp_path: Path) -> None:
    """The import remembers each dimension's gap by the people's scores alone (not their names or
    order): items scored alike by other people, or by one person twice (the last entry stands),
    store the gap their own fold gives."""
    from reviewer.domain import human_gap

    rows = []
    for i in range(40):
        people = [{"reviewer": f"p{(i + k) % 7}", "scores": {"accuracy": 1 + (i + k) % 3 * 4}} for k in range(1 + i % 3)]
        if i % 4 == 0:  # the first person scores again: their second entry stands
            people.append({"reviewer": people[0]["reviewer"], "scores": {"accuracy": 10}})
        rows.append({"id": f"g{i}", "output": "x", "judge": {"model": "m", "scores": {"accuracy": 1 + i % 10}},
                     "human": list(reversed(people)) if i % 5 == 0 else people})
    path = tmp_path / "gap.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = open_store(str(tmp_path / "g.db"))
    import_file(store, path, REF)
    rubric = store.rubrics.get_rubric(REF)
    folds = list(store.items.item_folds(REF))
    assert len(folds) == 40
    for it, fold in folds:
        assert it.human_gap == human_gap(rubric, fold.dims), it.item_id
    assert len({it.human_gap for it, _ in folds}) > 3
    store.close()


def test_imported_triage_keys_are_the_rules(store: Any, tmp_path: Path) -> None:
    """The queue's order key of imported items is the one rule (``TRIAGE_KEY_SQL``): on SQLite it
    is evaluated as each row goes in (``bulk_insert(derived=...)``), on PostgreSQL refreshed over
    the batch's rows. Recomputing it over every item afterwards changes nothing; without either
    (the keys left at their default) every key would be 0."""
    from reviewer.store.queue import refresh_triage_keys

    rows = []
    for i in range(30):
        row: dict[str, Any] = {"id": f"t{i}", "output": "x", "judge": {"model": "m", "scores": {
            "accuracy": {"error": "timeout"} if i % 5 == 0 else 1 + i % 10}}}
        if i % 3 == 0:  # one or two complete reviews
            row["human"] = [{"reviewer": f"r{k}", "scores": {d: 5 for d in
                             ("accuracy", "relevance", "completeness", "conciseness", "clarity")}}
                            for k in range(1 + i % 2)]
        rows.append(row)
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_file(store, path, REF)
    with store.db.read() as conn:
        imported = dict(conn.exec_driver_sql("SELECT item_id, triage_key FROM item").all())
    with store.db.write() as conn:
        refresh_triage_keys(conn, "1 = 1", {})
        recomputed = dict(conn.exec_driver_sql("SELECT item_id, triage_key FROM item").all())
    assert imported == recomputed
    assert set(imported.values()) == {-100000.0, 0.0, 900000.0, 1000000.0, 1900000.0, 2000000.0}
