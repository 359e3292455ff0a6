"""A person's scores carry the time they were given (``"at"`` on a human entry): a gold item
scored last month counts in last month's week, not the import's. Entries without one are stamped
with the import's time, one time for the whole import; a bad time is refused in one line."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.cli import run_cli
from tests.store.conftest import db_url  # noqa: F401  (the fixture: SQLite and PostgreSQL)

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _times(db: str, capsys: pytest.CaptureFixture[str]) -> dict[tuple[str, str, str], datetime]:
    """(item, reviewer, dimension) → the stored time, as the JSON Lines export gives it."""
    out: dict[tuple[str, str, str], datetime] = {}
    for row in map(json.loads, run_cli(["export", "--db", db], capsys)[1].splitlines()):
        for dim, d in row["dimensions"].items():
            for h in d["human_scores"]:
                out[(row["id"], h["reviewer"], dim)] = datetime.fromisoformat(h["created_at"])
    return out


def test_a_scores_own_time_is_kept(tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    """Proves: ``at`` (any zone) is stored as that moment in UTC, on plain scores and on scores with
    a reason, on new items and on scores added to an unchanged item; the rest get the import's time.
    Without the change every score carried the import's time."""
    before = datetime.now(UTC)
    first = _write(tmp_path / "a.jsonl", [
        {"id": "g1", "input": "q", "output": "o", "human": [
            {"reviewer": "ana", "at": "2026-10-05T09:30:00+02:00", "scores": {d: 6 for d in DIMS}},
            {"reviewer": "ben", "scores": {"accuracy": {"score": 5, "reason": "thin"}}}]},
        {"id": "g2", "input": "q", "output": "o2", "human": [
            {"reviewer": "ben", "at": "2026-10-12T10:00:00Z", "scores": {"accuracy": {"score": 4, "reason": "why"}}}]},
    ])
    code, _, err = run_cli(["import", str(first), "--rubric", REF, "--db", db_url], capsys)
    assert code == 0, err
    # the same content again, with a score given later: it joins the current revision at its time
    again = _write(tmp_path / "b.jsonl", [
        {"id": "g2", "input": "q", "output": "o2", "human": [
            {"reviewer": "chen", "at": "2026-10-20T08:00:00Z", "scores": {"clarity": 3}}]}])
    code, _, err = run_cli(["import", str(again), "--rubric", REF, "--db", db_url], capsys)
    assert code == 0, err
    after = datetime.now(UTC)
    times = _times(db_url, capsys)
    assert times[("g1", "ana", "accuracy")] == times[("g1", "ana", "clarity")] == datetime(2026, 10, 5, 7, 30, tzinfo=UTC)
    assert times[("g2", "ben", "accuracy")] == datetime(2026, 10, 12, 10, 0, tzinfo=UTC)
    assert times[("g2", "chen", "clarity")] == datetime(2026, 10, 20, 8, 0, tzinfo=UTC)
    assert before - timedelta(seconds=1) <= times[("g1", "ben", "accuracy")] <= after


@pytest.mark.parametrize(("at", "words"), [
    ("2026-10-05T09:30:00", "has no zone"),
    ("last tuesday", "is not a time"),
    (20261005, "must be a time as text"),
    ("2999-01-01T00:00:00Z", "lies in the future"),
])
def test_a_bad_time_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], at: object,
                                           words: str) -> None:
    """Proves: a time without a zone, not a time, not text, or in the future: one line naming the
    file's line, the item and what to give; nothing stored."""
    bad = _write(tmp_path / "bad.jsonl", [
        {"id": "ok", "input": "q", "output": "o"},
        {"id": "g1", "input": "q", "output": "o", "human": [{"reviewer": "ana", "at": at, "scores": {"accuracy": 6}}]}])
    db = str(tmp_path / "s.db")
    code, out, err = run_cli(["import", str(bad), "--rubric", REF, "--db", db], capsys)
    assert code != 0
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and f"{bad}:2" in lines[0] and "g1" in lines[0] and words in lines[0], err
    assert run_cli(["export", "--db", db], capsys)[1].strip() == ""
