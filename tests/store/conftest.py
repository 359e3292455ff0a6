"""Store fixtures: a real SQLite file, and a real PostgreSQL schema when the server is there.

``RUBRICATE_TEST_PG_URL`` (set by .ci/run) names the server. Without it the PostgreSQL cases skip
with a reason; with it set and the server unreachable they fail — CI never silently skips them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from reviewer.services.importing import import_file
from reviewer.store import Store, open_store

PG_URL = os.environ.get("RUBRICATE_TEST_PG_URL")
DEMO = Path(__file__).resolve().parents[2] / "reviewer" / "demo"


def pg_schema_url() -> Iterator[str]:
    """A fresh schema on the test server, dropped afterwards; yields a URL that uses it."""
    if not PG_URL:
        pytest.skip("RUBRICATE_TEST_PG_URL is not set: no PostgreSQL server for this run")
    import psycopg

    plain = PG_URL.replace("postgresql+psycopg://", "postgresql://")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(plain, autocommit=True) as conn:  # fails loudly if the server is down
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL on each backend."""
    if request.param == "sqlite":
        yield str(tmp_path / "store.db")
    else:
        yield from pg_schema_url()


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """An opened, migrated store on each backend."""
    s = open_store(db_url)
    yield s
    s.close()


@pytest.fixture
def demo_store(store: Store) -> Store:
    """The store with the general-quality demo items imported."""
    import_file(store, DEMO / "general-quality.jsonl", "general-quality@1.0.0", dataset="demo")
    return store
