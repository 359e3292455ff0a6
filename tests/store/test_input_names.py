"""Names that come in on the command line are checked like the ids of an item file (issue 23):
a dataset name with a terminal escape or a trailing newline is refused in one line, and nothing is
written (it would reach `export --format csv` on standard output raw)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import Store
from tests.cli import run_cli

GQ = "general-quality@1.0.0"


def _items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "a", "output": "x", "judge": {"model": "m", "scores": {"accuracy": 7}}}\n')
    return path


@pytest.mark.parametrize("name", ["march\x1b]0;owned\x07", "march\n", " march", "m" * 201, "a\u200bb"])
def test_a_bad_dataset_name_is_refused_and_nothing_is_written(name: str, store: Store, tmp_path: Path) -> None:
    with pytest.raises(UserError, match="^--dataset: the dataset name "):
        import_file(store, _items(tmp_path), GQ, dataset=name)
    assert list(store.items.export_rows(GQ)) == []


def test_a_plain_dataset_name_is_kept(store: Store, tmp_path: Path) -> None:
    import_file(store, _items(tmp_path), GQ, dataset="march-2026 run 1")
    assert [r["dataset"] for r in store.items.export_rows(GQ)] == ["march-2026 run 1"]


def test_the_cli_refuses_an_escape_in_a_dataset_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.db")
    code, _, err = run_cli(["import", str(_items(tmp_path)), "--rubric", GQ, "--dataset", "x\x1b[2J", "--db", db],
                           capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "\x1b" not in err, err
    assert "holds a control or invisible character; remove it" in err
    code, out, _ = run_cli(["export", "--format", "csv", "--db", db], capsys)
    assert code == 0 and "\x1b" not in out and out.count("\n") == 1  # the header alone: nothing imported


def test_the_cli_refuses_a_rubric_ref_with_a_trailing_newline(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.db")
    code, _, err = run_cli(["import", str(_items(tmp_path)), "--rubric", GQ + "\n", "--db", db], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "bad-ref: version '1.0.0\\n' must be semver" in err
