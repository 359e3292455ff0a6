"""Databases for the guard and role cases: a populated store on SQLite and on PostgreSQL, one
with this lane's guards and one migrated without them (to show each attack works there), and a
raw connection an attacker would use (the stdlib ``sqlite3`` module, or psycopg)."""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from reviewer.services.importing import import_file
from reviewer.store import Store, engine, open_store

PG_URL = os.environ.get("RUBRICATE_TEST_PG_URL")
REF = "general-quality@1.0.0"
GUARD = "0007g_history_guards"


def pg_url(schema: str) -> str:
    assert PG_URL
    return f"{PG_URL}?options=-csearch_path%3D{schema}"


def plain_pg() -> str:
    if not PG_URL:
        pytest.skip("RUBRICATE_TEST_PG_URL is not set: no PostgreSQL server for this run")
    return PG_URL.replace("postgresql+psycopg://", "postgresql://")


@contextmanager
def pg_schema() -> Iterator[str]:
    """A fresh schema on the test server, dropped afterwards."""
    import psycopg

    plain = plain_pg()
    schema = f"g_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield schema
    finally:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def open_without(url: str, skip: tuple[str, ...]) -> Store:
    """A store migrated with every migration but ``skip`` (the database before a guard)."""
    kept = [m for m in engine.MIGRATIONS if m[0] not in skip]
    with mock.patch.object(engine, "MIGRATIONS", kept):
        return open_store(url)


def populate(store: Store, tmp: Path) -> dict[str, Any]:
    """One row in every history table, written through the store (as its first lead)."""
    src = tmp / f"items-{uuid.uuid4().hex[:6]}.jsonl"
    rows = [{"id": f"p-{v}", "output": f"answer {v}", "group": "g1", "variant": v,
             "judge": {"model": "m", "scores": {"accuracy": 7}},
             "human": [{"reviewer": "ana", "scores": {"accuracy": 6}}]} for v in "ab"]
    verdict = {"pair": {"a": "p-a", "b": "p-b"}, "judge": {"model": "m", "winner": "a"}}  # a pair_judgment row
    src.write_text("\n".join(json.dumps(r) for r in [*rows, verdict]) + "\n")
    import_file(store, src, REF)
    rows[0]["output"] = "answer a, revised"
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    import_file(store, src, REF, update_existing=True)  # an item_revision row
    store.roles.add_reviewer("lee", "lead")
    store.roles.add_reviewer("sam", "safety")
    # the item not revised (rows of a revised item's older revisions stay out of its views)
    pk = next(r.item_pk for r in store.queue.queue_page("triage") if r.item_id == "p-b")
    store.scores.add_human_score(pk, "accuracy", "lee", 5.0)
    flag = store.safety.flag_item(pk, "lee")
    store.safety.add_safety_decision(flag, "sam", "escalate", "needs a second look")
    store.scores.add_pair_choice(pk, "lee", pk)
    store.comments.add_comment(pk, "lee", "the second paragraph cites a retracted study")
    store.scores.add_reveal(pk, "lee")
    store.lead_reviews.accept(store.scores.add_human_score(pk, "accuracy", "sam", 4.0), "lee")
    store.corrections.add_correction(pk, "lee", "answer b, as it should have been")
    return {"item_pk": pk, "flag": flag}


class Raw:
    """A raw DB-API connection in one transaction that is rolled back at the end."""

    def __init__(self, backend: str, target: str) -> None:
        self.backend = backend
        if backend == "sqlite":
            self.conn: Any = sqlite3.connect(target, isolation_level=None)
            self.conn.execute("BEGIN")
        else:
            import psycopg

            self.conn = psycopg.connect(plain_pg(), options=f"-csearch_path={target}")

    def run(self, sql: str) -> int:
        """Execute ``sql``; the rows it changed."""
        cur = self.conn.execute(sql)
        return int(cur.rowcount)

    def one(self, sql: str) -> Any:
        return self.conn.execute(sql).fetchone()

    def close(self) -> None:
        self.conn.rollback()
        self.conn.close()


def refused(backend: str) -> tuple[type[BaseException], ...]:
    """The errors a database raises when a trigger refuses a statement."""
    if backend == "sqlite":
        return (sqlite3.IntegrityError, sqlite3.DatabaseError)
    import psycopg

    return (psycopg.Error,)
