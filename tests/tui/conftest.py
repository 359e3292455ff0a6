"""TUI fixtures: a demo database built once per session, copied for each test."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from reviewer.demo.build import build_demo
from reviewer.store import Store, open_store

REVIEWER = "tess"


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    build_demo(str(path), REVIEWER)
    return path


@pytest.fixture
def demo_db(demo_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "demo.db"
    shutil.copy(demo_template, target)
    monkeypatch.setenv("RUBRICATE_CONFIG", str(tmp_path / "config.yaml"))  # no user config leaks in
    return target


@pytest.fixture
def store(demo_db: Path) -> Iterator[Store]:
    s = open_store(str(demo_db))
    yield s
    s.close()
