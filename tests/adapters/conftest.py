"""Adapter fixtures: the store on SQLite and PostgreSQL (the store tests' own), and helpers to
draft and register a rubric from a source file the way ``rubric init`` and ``rubric add`` do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reviewer.services.importing import Opened, open_source
from reviewer.store import Store
from rubrics.draft import draft_rubric
from rubrics.loader import load_rubric_text
from tests.cli import run_cli
from tests.store.conftest import db_url, store  # noqa: F401  (fixtures)

DATA = Path(__file__).resolve().parents[1] / "data" / "adapters"


def drafted(into: Store, path: Path, fmt: str | None = None, rubric_id: str = "drafted") -> tuple[str, Opened]:
    """Register the rubric drafted from ``path`` in ``into``; (its ref, the opened source)."""
    opened = open_source(path, fmt)
    assert opened.converted is not None
    text = draft_rubric(list(opened.converted.dimensions.values()), rubric_id, "evals-team", path.name)
    rubric = load_rubric_text(text, "drafted.yaml")
    into.rubrics.add_rubric(rubric, text, require_newer=True)
    return rubric.ref, opened


def calibration(db: str, ref: str, capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, Any]]:
    """``rubricate calibrate --format json``'s figures per dimension (the command must succeed)."""
    code, out, err = run_cli(["calibrate", "--rubric", ref, "--db", db, "--format", "json"], capsys)
    assert code == 0, err
    return {d["dimension"]: d for d in json.loads(out)["dimensions"]}


def init_add_import(file: Path, rubric_id: str, db: str, capsys: pytest.CaptureFixture[str],
                    *import_args: str) -> tuple[str, str]:
    """``rubric init`` from ``file`` → ``rubric add`` → ``import`` on the command line, each
    succeeding; the import's (stdout, stderr)."""
    rubric = Path(db).with_suffix(".yaml")
    code, _, err = run_cli(["rubric", "init", "--from", str(file), "--out", str(rubric), "--id", rubric_id,
                            "--owner", "evals-team"], capsys)
    assert code == 0, err
    assert run_cli(["rubric", "add", str(rubric), "--db", db], capsys)[0] == 0
    code, out, err = run_cli(["import", str(file), "--rubric", f"{rubric_id}@1.0.0", "--db", db, *import_args],
                             capsys)
    assert code == 0, err
    return out, err
