"""TUI fixtures: a demo database built once per session, copied for each test; the demo items on
either backend."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from reviewer.demo.build import build_demo
from reviewer.services.importing import import_file
from reviewer.store import Store, open_store
from tests.store.conftest import DEMO, pg_schema_url

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


@pytest.fixture(params=["sqlite", "postgres"])
def either(request: pytest.FixtureRequest, demo_db: Path) -> Iterator[Store]:
    """The demo items on each backend."""
    if request.param == "sqlite":
        s = open_store(str(demo_db))
        yield s
        s.close()
        return
    for url in pg_schema_url():
        s = open_store(url)
        import_file(s, DEMO / "general-quality.jsonl", "general-quality@1.0.0", dataset="demo")
        yield s
        s.close()
