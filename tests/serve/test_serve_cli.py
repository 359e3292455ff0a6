"""``rubricate serve link|revoke|links`` as a shell runs them: the link on standard output alone,
its token nowhere in the store or the listing; bad input in one line, nothing written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.cli import run_cli
from tests.serve.served import build


def test_link_revoke_and_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "demo.db"
    build(db)
    code, out, err = run_cli(["serve", "link", "ben", "--db", str(db), "--expires", "12h",
                              "--url", "https://review.example.org/"], capsys)
    assert code == 0 and err.count("\n") == 1 and "serve revoke ben" in err
    prefix = "https://review.example.org/l/"
    assert out.startswith(prefix) and out.count("\n") == 1
    token = out.strip()[len(prefix):]
    code, out, _ = run_cli(["serve", "links", "--db", str(db)], capsys)
    assert code == 0 and token not in out and [line.split("\t")[0] for line in out.splitlines()] == ["ben", "ana"]
    with sqlite3.connect(db) as conn:
        assert token not in str(conn.execute("SELECT * FROM serve_link").fetchall())
    assert run_cli(["serve", "revoke", "ben", "--db", str(db)], capsys)[1] == "ben: 1 live link revoked\n"


@pytest.mark.parametrize("args, says", [
    (["serve", "link", "ben", "--expires", "2w"], "--expires '2w': give a number and a unit"),
    (["serve", "link", "ben", "--expires", "400d"], "at most 365d"),
    (["serve", "link", "zed"], "zed holds no role"),
])
def test_bad_link_requests_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        args: list[str], says: str) -> None:
    db = tmp_path / "demo.db"
    build(db)
    with sqlite3.connect(db) as conn:
        before = conn.execute("SELECT count(*) FROM serve_link").fetchone()
    code, out, err = run_cli([*args, "--db", str(db)], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and says in err, err
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM serve_link").fetchone() == before


def test_link_on_a_missing_database_creates_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["serve", "link", "ana", "--db", str(tmp_path / "nope.db")], capsys)
    assert code == 1 and err.count("\n") == 1 and not (tmp_path / "nope.db").exists()
