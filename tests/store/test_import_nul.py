"""A NUL character (``\\u0000``) in an imported file: PostgreSQL cannot store it, so there the file
is refused, each such line named, nothing written; SQLite keeps the text exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from reviewer.store import open_store
from reviewer.store.tables import Item
from tests.cli import run_cli

REF = "general-quality@1.0.0"


def _rows() -> list[dict[str, object]]:
    judged = {"model": "m", "scores": {"accuracy": {"score": 3, "rationale": "half\u0000way"}}}
    return [
        {"id": "fine", "input": "Why?", "output": "Because."},
        {"id": "in-text", "input": "a\u0000b", "output": "fine"},
        {"id": "in-meta", "input": "q", "output": "fine", "metadata": {"note": {"deep": ["x\u0000"]}}},
        {"id": "in-judge", "input": "q", "output": "fine", "judge": judged},
        {"id": "literal", "input": "a backslash: \\u0000 is six characters, not a NUL", "output": "fine"},
    ]


def _count(db: str) -> int:
    store = open_store(db)
    try:
        with store.db.read() as conn:
            return int(conn.execute(select(func.count()).select_from(Item)).scalar_one())
    finally:
        store.close()


def test_a_nul_is_refused_on_postgresql_and_kept_on_sqlite(db_url: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _rows()))
    code, out, err = run_cli(["import", str(path), "--rubric", REF, "--db", db_url], capsys)
    if db_url.startswith("postgresql"):
        assert code == 1 and out == "", err
        assert "Traceback" not in err and "a bug in rubricate" not in err, err
        lines = err.splitlines()
        said = "holds a NUL character (\\u0000), which a PostgreSQL database cannot store; remove it"
        assert lines == [f"error: {path}:2: item in-text: input {said} from the text (a SQLite database keeps it)",
                         f"error: {path}:3: item in-meta: metadata {said} from the text (a SQLite database keeps it)",
                         f"error: {path}:4: item in-judge: judge {said} from the text (a SQLite database keeps it)"]
        assert _count(db_url) == 0  # nothing written, not even the good rows
        path.write_text(json.dumps(_rows()[0]) + "\n" + json.dumps(_rows()[4]) + "\n")
        code, out, err = run_cli(["import", str(path), "--rubric", REF, "--db", db_url], capsys)
        assert code == 0 and _count(db_url) == 2, err  # the same file without them goes in
        return
    assert code == 0, err
    assert _count(db_url) == 5
    store = open_store(db_url)
    try:
        with store.db.read() as conn:
            texts: dict[str, str] = dict(conn.exec_driver_sql("SELECT item_id, input FROM item").all())
    finally:
        store.close()
    assert texts["in-text"] == "a\u0000b"
