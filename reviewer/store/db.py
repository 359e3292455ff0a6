"""The database: one engine, and the read and write transactions every door of the store
(:class:`reviewer.store.core.Store`) runs its SQL in."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine


class Db:
    """The engine, its dialect, and the transactions every door runs its SQL in."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name

    @contextmanager
    def write(self, durable: bool = True) -> Iterator[Connection]:
        """A read-then-write transaction (SQLite: BEGIN IMMEDIATE, so no 'database is locked').

        ``durable=False`` (SQLite) skips the commit's fsync: for leases and queue bookkeeping,
        which a power cut may roll back harmlessly — never for scores or decisions. An
        application crash still loses nothing committed (WAL with synchronous=NORMAL)."""
        with self.engine.connect() as conn:
            relaxed = not durable and self.dialect == "sqlite"  # PostgreSQL: always durable
            raw = conn.connection.driver_connection if relaxed else None
            if raw is not None:  # on the driver's connection: no transaction begins for it
                raw.execute("PRAGMA synchronous=NORMAL")
            try:
                conn.info["begin_sql"] = "BEGIN IMMEDIATE"
                with conn.begin():
                    yield conn
            finally:
                if raw is not None:
                    raw.execute("PRAGMA synchronous=FULL")

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only transaction (SQLite: deferred, so writers are not held up)."""
        with self.engine.connect() as conn:
            conn.info["begin_sql"] = "BEGIN"
            with conn.begin():
                yield conn

    def close(self) -> None:
        """Dispose of the engine's connections."""
        self.engine.dispose()

    def checkpoint(self) -> None:
        """SQLite: copy the write-ahead log into the database now (PASSIVE: nobody waits). After a
        large import the log holds every page written; the first small commit that crosses the
        auto-checkpoint mark would otherwise copy them all while a reviewer waits."""
        if self.dialect != "sqlite":
            return
        raw = self.engine.raw_connection()  # outside any transaction: a checkpoint cannot run in one
        try:
            raw.cursor().execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        finally:
            raw.close()
