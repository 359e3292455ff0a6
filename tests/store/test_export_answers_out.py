"""Answers out (issue 25 item 4): ``export --format parquet`` read back with pyarrow and checked
row by row against the store on SQLite and PostgreSQL, its column types, hostile text kept as
data; ``export --to langfuse`` checked field by field against Langfuse's score shape, and the
items without a trace id named in one line."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sqlalchemy import select
from sqlmodel import col

from reviewer.store import open_store
from reviewer.store.tables import JudgeRun, JudgeScore
from tests.cli import run_cli
from tests.store.labelled import LABELS_RUBRIC

#: test_labels_and_levels' rubric (a nominal dimension with labels, a graded 1–5 one) with a
#: yes/no dimension added, the three weights summing to 1.
RUBRIC = LABELS_RUBRIC.replace("id: safety-labels", "id: answers-out").replace("weight: 0.5", "weight: 0.3") + """\
  - id: cited
    description: Whether the answer cites its source.
    method: llm_judge
    weight: 0.4
    threshold: 50
    scale: {min: 0, max: 1}
    anchors:
      - {score: 0, label: "No"}
      - {score: 1, label: "Yes"}
"""
REF = "answers-out@1.0.0"
#: Text a terminal would act on, a spreadsheet would run, or a reader would see reversed.
HOSTILE = "\x1b[31mred\x1b[0m =1+1 \u202egnp.exe\u202c [b]bold[/b] \x07bell \ud7ff line\nbreak"

ITEMS: list[dict[str, Any]] = [
    {"id": "a1", "output": "answer one", "metadata": {"trace_id": "tr-1", "topic": HOSTILE},
     "judge": {"model": "judge-x", "scores": {
         "verdict": {"score": 2, "rationale": HOSTILE}, "cited": 1, "helpful": {"error": "timeout"}}},
     "human": [{"reviewer": "ana", "blind": True,
                "scores": {"verdict": {"score": 2, "reason": HOSTILE, "tags": ["terse", "=cmd"]},
                           "cited": 0, "helpful": {"score": 4, "reason": "good enough"}}},
               {"reviewer": "ben", "scores": {"verdict": 1, "cited": 1, "helpful": 5}}]},
    {"id": "a2", "output": "answer two", "metadata": {"trace_id": "tr-2"},
     "judge": {"model": "judge-y", "scores": {"verdict": 3, "cited": 0, "helpful": 2}},
     "human": [{"reviewer": "ana", "scores": {"helpful": 3}}]},
    {"id": "a3", "output": "answer three", "metadata": {"note": "no trace here"},
     "judge": {"model": "judge-x", "scores": {"verdict": 1, "cited": 1, "helpful": 3}},
     "human": [{"reviewer": "ben", "scores": {"verdict": 1, "helpful": 2}}]},
    {"id": "a4", "output": "answer four", "metadata": {"trace_id": 17},
     "human": [{"reviewer": "ana", "scores": {"cited": 1}}]},
]


def _db(tmp_path: Path, db: str, capsys: pytest.CaptureFixture[str]) -> str:
    rubric = tmp_path / "answers-out.yaml"
    rubric.write_text(RUBRIC)
    assert run_cli(["rubric", "add", str(rubric), "--db", db], capsys)[0] == 0
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ITEMS), encoding="utf-8")
    code, _, err = run_cli(["import", str(path), "--rubric", REF, "--dataset", "d", "--db", db], capsys)
    assert code == 0, err
    return db


def _parquet(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> pa.Table:
    out = tmp_path / "scores.parquet"
    code, _, err = run_cli(["export", "--format", "parquet", "--out", str(out), "--db", db], capsys)
    assert code == 0, err
    table = pq.read_table(out)
    assert f"wrote {table.num_rows} row(s)" in err
    return table


def test_parquet_rows_are_the_stores_scores(db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every standing score is one row: each person's rows are the JSON export's human_scores
    (the same provenance), each judge row is the stored judge_score row with its run, its
    run's source, its rationale and time; nothing else is in the file."""
    db = _db(tmp_path, db_url, capsys)
    rows = _parquet(db, tmp_path, capsys).to_pylist()
    store = open_store(db)
    try:
        exported = {r["id"]: r for r in store.items.export_rows(REF, "d")}
        with store.db.read() as conn:
            stored = {(pk_item, dim, model): (score, error, run, source, rationale, at)
                      for pk_item, dim, model, score, error, run, source, rationale, at in conn.execute(
                          select(col(JudgeScore.item_pk), col(JudgeScore.dimension), col(JudgeScore.model),
                                 col(JudgeScore.score), col(JudgeScore.error), col(JudgeScore.run_pk),
                                 col(JudgeRun.source), col(JudgeScore.rationale), col(JudgeScore.created_at))
                          .join(JudgeRun, col(JudgeRun.pk) == col(JudgeScore.run_pk)))}
        pks = {it.item_id: it.pk for it, _ in store.items.item_folds(REF, "d")}
    finally:
        store.close()

    judge_rows = [r for r in rows if r["scorer_type"] == "judge"]
    human_rows = [r for r in rows if r["scorer_type"] == "human"]
    assert len(judge_rows) == len(stored) == 9  # three items judged on three dimensions
    for r in judge_rows:
        score, error, run, source, rationale, at = stored[(pks[r["item_id"]], r["dimension"], r["scorer"])]
        assert (r["score"], r["error"], r["run"], r["kind"]) == (score, error, run, source)
        assert r["reason"] == (rationale or None)
        assert r["created_at"] == (at if at.tzinfo else at.replace(tzinfo=UTC))
        assert (r["revision"], r["current_revision"], r["tags"], r["blind"]) == (1, True, [], None)
    assert sum(1 for r in judge_rows if r["error"] == "timeout" and r["score"] is None) == 1

    expected_humans = [(item, dim, h) for item, row in exported.items() for dim, d in row["dimensions"].items()
                       for h in d["human_scores"]]
    assert len(human_rows) == len(expected_humans) == 10
    for item, dim, h in expected_humans:
        [r] = [r for r in human_rows if (r["item_id"], r["dimension"], r["scorer"]) == (item, dim, h["reviewer"])]
        assert (r["score"], r["kind"], r["reason"], r["tags"], r["blind"], r["revision"], r["current_revision"]) == (
            h["score"], h["kind"], h["reason"], h["tags"], h["blind"], h["revision"], h["current_revision"])
        assert r["created_at"].isoformat() == h["created_at"]
        assert r["run"] is None and r["error"] is None

    for r in rows:  # the item's columns on each of its rows
        meta = exported[r["item_id"]]["metadata"]
        assert (r["rubric"], r["dataset"], json.loads(r["metadata"])) == (REF, "d", meta)
        assert r["trace_id"] == (meta["trace_id"] if isinstance(meta.get("trace_id"), str) else None)
    [helpful] = [r for r in human_rows if (r["item_id"], r["dimension"], r["scorer"]) == ("a1", "helpful", "ana")]
    assert helpful["normalised"] == pytest.approx(0.75)  # 4 on 1–5


def test_parquet_column_types_and_hostile_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The schema is the documented one, column by column; hostile text comes back exactly as
    it went in (Parquet holds data, nothing is escaped or run)."""
    table = _parquet(_db(tmp_path, str(tmp_path / "s.db"), capsys), tmp_path, capsys)
    assert [(f.name, str(f.type)) for f in table.schema] == [
        ("rubric", "string"), ("dataset", "string"), ("item_id", "string"), ("revision", "int64"),
        ("current_revision", "bool"), ("dimension", "string"), ("scorer_type", "string"), ("scorer", "string"),
        ("kind", "string"), ("score", "double"), ("normalised", "double"), ("reason", "string"),
        ("error", "string"), ("not_applicable", "bool"), ("tags", "list<element: string>"), ("blind", "bool"),
        ("run", "int64"), ("created_at", "timestamp[us, tz=UTC]"), ("trace_id", "string"), ("metadata", "string"),
        ("marks", "string")]
    rows = table.to_pylist()
    [ana] = [r for r in rows if (r["item_id"], r["dimension"], r["scorer"]) == ("a1", "verdict", "ana")]
    [judge] = [r for r in rows if (r["item_id"], r["dimension"], r["scorer_type"]) == ("a1", "verdict", "judge")]
    assert ana["reason"] == HOSTILE and ana["tags"] == ["terse", "=cmd"] and ana["blind"] is True
    assert judge["reason"] == HOSTILE
    assert json.loads(ana["metadata"])["topic"] == HOSTILE


def test_parquet_refusals_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Parquet to standard output, or with label columns it does not have, is refused in one
    line; no file is left behind."""
    db = _db(tmp_path, str(tmp_path / "s.db"), capsys)
    code, _, err = run_cli(["export", "--format", "parquet", "--db", db], capsys)
    assert code != 0 and "give --out FILE" in err
    out = tmp_path / "x.parquet"
    code, _, err = run_cli(["export", "--format", "parquet", "--labels", "--out", str(out), "--db", db], capsys)
    assert code != 0 and "without --labels" in err and not out.exists()


def _langfuse(db: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[list[dict[str, Any]], str]:
    code, out, err = run_cli(["export", "--to", "langfuse", "--db", db, *extra], capsys)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()], err


def test_langfuse_lines_field_by_field(db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each person's standing score on a traced item is one score object: traceId from the
    item's metadata, name the dimension, value and dataType as its scale says (nominal:
    CATEGORICAL with the anchor label; 0–1: BOOLEAN; else NUMERIC), source ANNOTATION, comment
    the reviewer's reason, authorUserId the reviewer; no judge scores; items without a trace
    id (none, or one that is not text) named in one line on standard error."""
    db = _db(tmp_path, db_url, capsys)
    lines, err = _langfuse(db, capsys)
    got = {(o["traceId"], o["name"], o["authorUserId"]): o for o in lines}
    assert set(got) == {("tr-1", d, r) for d in ("verdict", "cited", "helpful") for r in ("ana", "ben")} | {
        ("tr-2", "helpful", "ana")}
    v = got[("tr-1", "verdict", "ana")]
    assert (v["value"], v["dataType"], v["source"], v["comment"]) == ("unsafe", "CATEGORICAL", "ANNOTATION", HOSTILE)
    assert v["metadata"] == {"rubric": REF, "dataset": "d", "item_id": "a1", "revision": 1, "kind": "import",
                             "tags": ["terse", "=cmd"], "blind": True}
    assert (got[("tr-1", "verdict", "ben")]["value"], got[("tr-1", "cited", "ana")]["value"]) == ("safe", 0)
    assert (got[("tr-1", "cited", "ben")]["value"], got[("tr-1", "cited", "ben")]["dataType"]) == (1, "BOOLEAN")
    h = got[("tr-2", "helpful", "ana")]
    assert (h["value"], h["dataType"]) == (3, "NUMERIC") and "comment" not in h
    assert got[("tr-1", "helpful", "ana")]["comment"] == "good enough"
    for o in lines:
        assert set(o) <= {"id", "traceId", "name", "value", "dataType", "source", "authorUserId", "comment",
                          "timestamp", "metadata", "stringValue"}
        assert o.get("stringValue") == {"CATEGORICAL": o["value"], "NUMERIC": None,
                                        "BOOLEAN": "True" if o["value"] == 1 else "False"}[o["dataType"]]
        assert o["id"].startswith("rubricate-") and o["timestamp"].endswith("+00:00")
    assert len({o["id"] for o in lines}) == len(lines)
    assert err.count("\n") == 1 and "not written: 3 score(s) of 2 item(s) without metadata.trace_id" in err
    assert f"{REF}:d/a3" in err and f"{REF}:d/a4" in err and "a1" not in err


def test_langfuse_ids_stay_and_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A second export gives the same ids (posting again updates, never duplicates); --to with
    --format or an unknown target is refused in one line."""
    db = _db(tmp_path, str(tmp_path / "s.db"), capsys)
    first, _ = _langfuse(db, capsys)
    again, _ = _langfuse(db, capsys, "--out", str(tmp_path / "lf.jsonl"))
    written = [json.loads(line) for line in (tmp_path / "lf.jsonl").read_text(encoding="utf-8").splitlines()]
    assert first == written and not again
    code, _, err = run_cli(["export", "--to", "langfuse", "--format", "csv", "--db", db], capsys)
    assert code != 0 and "leave out --format" in err
    code, _, err = run_cli(["export", "--to", "langsmith", "--db", db], capsys)
    assert code != 0 and "use langfuse" in err


def test_formats_md_lists_the_tidy_columns_as_they_are() -> None:
    """docs/formats.md's table is the columns in order with their types: the one list the
    writer reads, checked against the page a user reads."""
    from reviewer.services.tidy import TIDY_COLUMNS

    text = (Path(__file__).resolve().parents[2] / "docs" / "formats.md").read_text(encoding="utf-8")
    section = text.split("## Tidy export", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:3] for line in section.splitlines() if line.startswith("| `")]
    assert [(a.strip().strip("`"), b.strip().strip("`")) for a, b in rows] == [(n, t) for n, t, _ in TIDY_COLUMNS]


def test_a_failed_parquet_export_leaves_the_old_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The file appears whole or not at all: an export refused after the writer started (an
    unknown rubric, found while the rows are read) leaves the file that was there as it was
    and nothing beside it; a good one replaces it."""
    db = _db(tmp_path, str(tmp_path / "s.db"), capsys)
    outdir = tmp_path / "out"
    outdir.mkdir()
    out = outdir / "scores.parquet"
    out.write_bytes(b"the previous export")
    code, _, err = run_cli(["export", "--format", "parquet", "--out", str(out), "--rubric", "nope@9.9.9",
                            "--db", db], capsys)
    assert code != 0 and err.count("\n") == 1 and "nope@9.9.9" in err
    assert out.read_bytes() == b"the previous export" and [p.name for p in outdir.iterdir()] == ["scores.parquet"]
    code, _, err = run_cli(["export", "--format", "parquet", "--out", str(out), "--db", db], capsys)
    assert code == 0, err
    assert pq.read_table(out).num_rows > 0 and [p.name for p in outdir.iterdir()] == ["scores.parquet"]


def test_langfuse_a_mean_between_levels_is_numeric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An imported mean of several people (``"aggregate": true``) between the levels of a yes/no
    or a nominal dimension is no boolean and no category: it goes out as the NUMERIC it is."""
    db = _db(tmp_path, str(tmp_path / "s.db"), capsys)
    extra = tmp_path / "crowd.jsonl"
    extra.write_text(json.dumps({"id": "a5", "output": "answer five", "metadata": {"trace_id": "tr-5"},
                                 "human": [{"reviewer": "crowd", "aggregate": True,
                                            "scores": {"cited": 0.5, "verdict": 1.5, "helpful": 4}}]}) + "\n")
    code, _, err = run_cli(["import", str(extra), "--rubric", REF, "--dataset", "d", "--db", db], capsys)
    assert code == 0, err
    lines, _ = _langfuse(db, capsys)
    got = {o["name"]: (o["value"], o["dataType"]) for o in lines if o["traceId"] == "tr-5"}
    assert got == {"cited": (0.5, "NUMERIC"), "verdict": (1.5, "NUMERIC"), "helpful": (4, "NUMERIC")}


def test_langfuse_lines_read_back_by_import_from_langfuse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The lines are Langfuse's shape as rubricate's own Langfuse reader takes it too: drafted
    into a rubric (`rubric init`), imported (`import --from langfuse`), every person's score comes
    back on its trace with its reviewer, reason, and value (a category by its label)."""
    db = _db(tmp_path, str(tmp_path / "s.db"), capsys)
    _langfuse(db, capsys, "--out", str(tmp_path / "lf.jsonl"))
    lines = [json.loads(line) for line in (tmp_path / "lf.jsonl").read_text(encoding="utf-8").splitlines()]
    back = str(tmp_path / "back.db")
    draft = tmp_path / "lf.yaml"
    for argv in (["rubric", "init", "--from", str(tmp_path / "lf.jsonl"), "--out", str(draft)],
                 ["rubric", "add", str(draft), "--db", back],
                 ["import", str(tmp_path / "lf.jsonl"), "--from", "langfuse", "--rubric", "lf@1.0.0", "--db", back]):
        code, _, err = run_cli(argv, capsys)
        assert code == 0, err
    code, out, err = run_cli(["export", "--labels", "--db", back], capsys)
    assert code == 0, err
    got = {(r["id"], dim, h["reviewer"]): (h["score"], d["human_labels"][h["reviewer"]], h["reason"])
           for r in map(json.loads, out.splitlines()) for dim, d in r["dimensions"].items() for h in d["human_scores"]}
    assert len(got) == len(lines) == 7
    for o in lines:
        score, label, reason = got[(o["traceId"], o["name"], o["authorUserId"])]
        assert reason == o.get("comment")
        assert (label if o["dataType"] == "CATEGORICAL" else score) == o["value"]
