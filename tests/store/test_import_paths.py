"""A large first import into SQLite is read by a forked child while the parent writes: it must
store exactly what the one-process path stores, and a bad last line must still leave nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import reviewer.store.items as importer  # the items door reads the file: its module holds the threshold
from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import open_store
from reviewer.store.import_batches import PARALLEL_FROM_LINES

N = PARALLEL_FROM_LINES + 7
DIMS = ("accuracy", "relevance", "completeness", "clarity")


def _row(i: int) -> dict[str, Any]:
    row: dict[str, Any] = {"id": f"x{i:06d}", "input": f"question {i}", "output": f"answer {i}",
                           "judge": {"model": "m1" if i % 3 else "m2",
                                     "scores": {d: 1 + (i + k) % 10 for k, d in enumerate(DIMS)}}}
    if i % 5 == 0:  # the detailed shape: samples, rationale, evidence, an error
        row["judge"]["scores"]["accuracy"] = {"samples": [6, 7, 8], "rationale": "why", "evidence": ["q"]}
        row["judge"]["scores"]["clarity"] = {"error": "reply did not parse", "raw_reply": "{oops"}
    if i % 7 == 0:
        row["human"] = [{"reviewer": "ana", "scores": {"accuracy": 4, "clarity": {"score": 9, "reason": "ok"}}}]
        row["group"], row["metadata"] = f"g{i // 14}", {"model": "a"}
    return row


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("imp") / "big.jsonl"
    path.write_text("".join(json.dumps(_row(i)) + "\n" for i in range(N)))
    return path


def _content(db: Path) -> dict[str, Any]:
    store = open_store(str(db))
    rows = list(store.items.export_rows())
    store.close()
    for row in rows:  # when each score was written differs between two imports; the rest may not
        for d in row["dimensions"].values():
            for h in d["human_scores"]:
                h.pop("created_at")
    with sqlite3.connect(db) as conn:
        judge = conn.execute("SELECT i.item_id, j.dimension, j.model, j.score, j.normalised, j.samples, j.std,"
                             " j.rationale, j.evidence, j.error, j.raw_reply, j.method FROM judge_score j"
                             " JOIN item i ON i.pk = j.item_pk ORDER BY 1, 2").fetchall()
        human = conn.execute("SELECT i.item_id, h.dimension, h.reviewer, h.score, h.reason, h.kind"
                             " FROM human_score h JOIN item i ON i.pk = h.item_pk ORDER BY 1, 2").fetchall()
        items = conn.execute("SELECT item_id, judge_overall, judge_band, judge_passed, n_errors, grp, metadata,"
                             " content_hash FROM item ORDER BY item_id").fetchall()
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    return {"export": rows, "judge": judge, "human": human, "items": items}


def test_child_reader_stores_what_the_inline_path_stores(big_file: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    fast = open_store(str(tmp_path / "child.db"))
    summary = import_file(fast, big_file, "general-quality@1.0.0", dataset="d")
    fast.close()
    assert summary.reader == "child"
    assert (summary.rows, summary.inserted) == (N, N)
    monkeypatch.setattr(importer, "PARALLEL_FROM_LINES", 10 * N)
    slow = open_store(str(tmp_path / "inline.db"))
    summary2 = import_file(slow, big_file, "general-quality@1.0.0", dataset="d")
    slow.close()
    assert summary2.reader == "inline"
    assert (summary.judge_scores, summary.human_scores) == (summary2.judge_scores, summary2.human_scores)
    a, b = _content(tmp_path / "child.db"), _content(tmp_path / "inline.db")
    assert len(a["judge"]) == summary.judge_scores and len(a["human"]) == summary.human_scores > 0
    for key in ("items", "judge", "human", "export"):
        assert a[key] == b[key], key
    # and the detailed shapes went through as they were given
    detailed = [r for r in a["judge"] if r[0] == "x000005" and r[1] in ("accuracy", "clarity")]
    assert [(r[1], r[3], r[5], r[7], r[9]) for r in detailed] == [
        ("accuracy", 7.0, "[6.0, 7.0, 8.0]", "why", None), ("clarity", None, "[]", "", "reply did not parse")]


def test_a_bad_last_line_leaves_nothing_on_the_child_path(big_file: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(big_file.read_text() + '{"id": "late", "output": "x", "judge": {"scores": {"accuracy": 11}}}\n')
    store = open_store(str(tmp_path / "bad.db"))
    with pytest.raises(UserError, match=rf"bad.jsonl:{N + 1}: item late: judge accuracy: score 11 is off the scale"):
        import_file(store, bad, "general-quality@1.0.0")
    assert store.queue.queue_count("triage") == 0
    store.close()
    with sqlite3.connect(tmp_path / "bad.db") as conn:
        assert conn.execute("SELECT count(*) FROM judge_score").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM judge_run").fetchone() == (0,)
