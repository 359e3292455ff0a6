"""A reading command on a path with no database refuses in one line and creates nothing (issue
23: a mistyped --db made an empty database and `export` exited 0); `demo` honours $RUBRICATE_DB."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli import run_cli
from tests.store.conftest import pg_schema_url

READING = [["export"], ["export", "--format", "csv"], ["calibrate"], ["report", "--rubric", "general-quality@1.0.0"],
           ["queue", "show", "a"], ["review"], ["review", "--reviewer", "ana"]]


def _refused(argv: list[str], db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*argv, "--db", db], capsys)
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and out == "", (code, out, err)
    assert lines[0] == (f"error: {db}: no rubricate database there (a mistyped --db or $RUBRICATE_DB?); nothing "
                        "was created: give an existing database, or make one with `rubricate import`")


@pytest.mark.parametrize("argv", READING, ids=" ".join)
def test_a_mistyped_path_is_refused_and_nothing_is_created(argv: list[str], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    _refused(argv, str(tmp_path / "mistyped.db"), capsys)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", READING[:2], ids=" ".join)
def test_an_empty_file_is_no_database_and_stays_empty(argv: list[str], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    _refused(argv, str(empty), capsys)
    assert [p.name for p in tmp_path.iterdir()] == ["empty.db"] and empty.stat().st_size == 0


def test_an_empty_postgresql_schema_gets_no_tables(capsys: pytest.CaptureFixture[str]) -> None:
    import psycopg

    for url in pg_schema_url():
        _refused(["export"], url, capsys)
        schema = url.rsplit("%3D", 1)[1]
        plain = url.split("?")[0].replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(plain) as conn:
            tables = conn.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = %s",
                                  (schema,)).fetchone()
        assert tables == (0,)


def test_a_store_that_exists_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "a", "output": "x", "judge": {"model": "m", "scores": {"accuracy": 7}}}\n')
    db = str(tmp_path / "t.db")
    assert run_cli(["import", str(items), "--rubric", "general-quality@1.0.0", "--db", db], capsys)[0] == 0
    code, out, _ = run_cli(["export", "--db", db], capsys)
    assert code == 0 and '"id": "a"' in out


def test_demo_builds_where_rubricate_db_points(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RUBRICATE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RUBRICATE_DB", str(tmp_path / "team.db"))
    code, _, err = run_cli(["demo", "--build-only", "--reviewer", "chen"], capsys)
    assert code == 0, err
    assert f"demo database: {tmp_path / 'team.db'} (" in err
    assert (tmp_path / "team.db").is_file() and not (tmp_path / "data" / "demo.db").exists()
    code, out, _ = run_cli(["export", "--db", str(tmp_path / "team.db")], capsys)
    assert code == 0 and out.count("\n") > 10
