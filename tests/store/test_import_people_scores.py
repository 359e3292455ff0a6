"""People's scores made elsewhere (a spreadsheet), imported onto items the judge already scored:
same content (by content, not the row's hash, which covers the scores too) adds them to the
current revision with the judge's scores kept; only changed content makes a revision.

Old code: the row with a ``human`` field hashed differently, so it was refused without
``--update``, and ``--update`` started revision 2 without the judge's scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli import run_cli
from tests.store.conftest import db_url  # noqa: F401  (the fixture: SQLite and PostgreSQL)

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")
ITEMS = [{"id": "q1", "input": "Why is the sky blue?", "output": "Rayleigh scattering.", "metadata": {"model": "a"}},
         {"id": "q2", "input": "What is 2 + 2?", "output": "4", "metadata": {"model": "b"}}]
JUDGE = {"model": "judge-x", "scores": {d: 8 for d in DIMS}}
PEOPLE = [{"reviewer": "ana", "scores": {d: 6 for d in DIMS}},
          {"reviewer": "ben", "scores": {"accuracy": {"score": 5, "reason": "the mechanism is named, not explained"},
                                         **{d: 7 for d in DIMS[1:]}}}]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _export(db: str, capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in map(json.loads, run_cli(["export", "--db", db], capsys)[1].splitlines())}


def test_people_scores_join_the_current_revision(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str],  # noqa: F811
) -> None:
    judged = _write(tmp_path / "judged.jsonl", [{**it, "judge": JUDGE} for it in ITEMS])
    assert run_cli(["import", str(judged), "--rubric", REF, "--db", db_url], capsys)[0] == 0
    # the spreadsheet: the same items (keys in another order, no judge), with people's scores
    sheet = _write(tmp_path / "people.jsonl", [{"human": PEOPLE, **dict(reversed(list(it.items())))} for it in ITEMS])
    code, out, err = run_cli(["import", str(sheet), "--rubric", REF, "--db", db_url], capsys)
    assert code == 0, err
    assert "0 new, 0 updated, 2 unchanged; 0 judge scores, 20 human scores" in out + err
    rows = _export(db_url, capsys)
    q1 = rows["q1"]
    assert q1["revision"] == 1
    assert {d: v["judge"] for d, v in q1["dimensions"].items()} == {d: 8 for d in DIMS}  # the judge's kept
    assert q1["dimensions"]["accuracy"]["human"] == {"ana": 6, "ben": 5}
    assert q1["dimensions"]["accuracy"]["human_scores"][1]["reason"] == "the mechanism is named, not explained"
    assert q1["judge_overall"] is not None and q1["overall"] != q1["judge_overall"]  # people's scores count

    # the same spreadsheet again: nothing new (no score twice)
    code, out, err = run_cli(["import", str(sheet), "--rubric", REF, "--db", db_url], capsys)
    assert code == 0 and "2 unchanged; 0 judge scores, 0 human scores" in out + err
    assert _export(db_url, capsys) == rows

    # other content is still a revision: refused without --update, a new revision with it
    edited = _write(tmp_path / "edited.jsonl", [{**ITEMS[0], "output": "Blue light scatters most.", "human": PEOPLE}])
    code, _, err = run_cli(["import", str(edited), "--rubric", REF, "--db", db_url], capsys)
    assert code == 1 and "item q1 already exists with other content; pass --update" in err
    assert run_cli(["import", str(edited), "--rubric", REF, "--update", "--db", db_url], capsys)[0] == 0
    q1 = _export(db_url, capsys)["q1"]
    assert q1["revision"] == 2 and all(v["judge"] is None for v in q1["dimensions"].values())
