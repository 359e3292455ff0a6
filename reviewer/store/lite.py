"""A read-only look at a SQLite store that needs nothing but the standard library.

Loading SQLAlchemy and SQLModel takes longer than a reviewer should wait for the first screen, so
the TUI paints the first page of its queue from here while the full store loads behind it. Only
what the queue screen's first page needs: the queue's condition, columns and order are
:mod:`reviewer.store.queue_sql`'s, as for :meth:`reviewer.store.queue.Queue.queue_page` (a test holds the two
side by side). Anything unexpected — not a SQLite file, a schema this code does not
know, a rubric given without its version — answers None and the caller waits for the full store.
"""

from __future__ import annotations

import contextlib
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from reviewer.store.queue_sql import ORDER_COLUMN, QUEUE_CONDITIONS, queue_row, row_columns
from reviewer.store.views import QueueRow


def sqlite_path(db: str | None) -> Path | None:
    """The file a ``--db`` value names when it is SQLite (a plain path or ``sqlite:///``) and that
    file exists, else None."""
    path = _sqlite_file(db) if db else None
    return path if path is not None and path.is_file() else None


def _sqlite_file(db: str) -> Path | None:
    """The file a ``--db`` value names when it is SQLite, whether or not it exists."""
    if db.startswith("sqlite:///"):
        db = db[len("sqlite:///"):]
    elif "://" in db:
        return None
    return Path(db).expanduser()


def missing_database(db: str) -> bool:
    """Whether ``db`` names a SQLite file that does not exist, or one without the store's tables
    (an empty file: opening it for writing would make it a database); False otherwise, and for a
    server database, which the caller checks. Read-only, and only the
    standard library: `rubricate review` asks before the TUI loads."""
    path = _sqlite_file(db)
    if path is None:
        return False
    if not path.exists():
        return True
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)) as conn:
            found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
                                 ).fetchone()
    except sqlite3.Error:  # not a database, locked, unreadable: the store's open says which
        return False
    return not found


def first_page(path: Path, queue: str, rubric_ref: str | None, dataset: str | None,
               limit: int) -> tuple[list[QueueRow], int] | None:
    """The first ``limit`` rows of the queue and its size, or None when this path cannot say."""
    if queue not in QUEUE_CONDITIONS or (rubric_ref is not None and "@" not in rubric_ref):
        return None
    where, params = QUEUE_CONDITIONS[queue] or "1 = 1", []
    if rubric_ref:
        where += " AND rubric_ref = ?"
        params.append(rubric_ref)
    if dataset:
        where += " AND dataset = ?"
        params.append(dataset)
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return None
    try:
        # a blind queue: the store decides what may be shown (the judge's columns are hidden)
        with contextlib.suppress(sqlite3.Error):
            if conn.execute("SELECT 1 FROM queue_setting WHERE queue = ? AND blind LIMIT 1", [queue]).fetchone():
                return None
        rows = conn.execute(f"SELECT {', '.join(row_columns(queue))} FROM item WHERE {where} ORDER BY {ORDER_COLUMN} LIMIT ?",
                            [*params, limit]).fetchall()
        (total,) = conn.execute(f"SELECT count(*) FROM item WHERE {where}", params).fetchone()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    t = datetime.now(UTC).replace(tzinfo=None)
    return [queue_row(r, t) for r in rows], int(total)
