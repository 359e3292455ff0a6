"""A read-only look at a SQLite store that needs nothing but the standard library.

Loading SQLAlchemy and SQLModel takes longer than a reviewer should wait for the first screen, so
the TUI paints the first page of its queue from here while the full store loads behind it. Only
what the queue screen's first page needs; the same rows as :meth:`QueueMixin.queue_page` (a test
holds the two side by side). Anything unexpected — not a SQLite file, a schema this code does not
know, a rubric given without its version — answers None and the caller waits for the full store.
"""

from __future__ import annotations

import contextlib
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from reviewer.store.views import REVIEW_COUNTS, QueueRow

#: ``{reviewed}``: the queue's count of complete reviews (``REVIEW_COUNTS``).
_COLUMNS = ("pk, item_id, dataset, rubric_ref, judge_overall, judge_band, judge_passed, flagged, n_errors,"
            " {reviewed}, lease_reviewer, lease_until")
_QUEUE_FILTERS = {
    "triage": "",
    "audit": " AND EXISTS (SELECT 1 FROM audit_sample a WHERE a.item_pk = item.pk)",
    # the item's safety status derived from its flags' decisions (flag rows are never updated)
    "safety": " AND item.safety IN ('open', 'escalated')",
}


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


def no_database(db: str) -> str:
    """What a reading command says when ``db`` holds no rubricate database (it creates none)."""
    return (f"{db}: no rubricate database there (a mistyped --db or $RUBRICATE_DB?); nothing was created: "
            "give an existing database, or make one with `rubricate import`")


def missing_database(db: str) -> str | None:
    """:func:`no_database` when ``db`` names a SQLite file that does not exist, or one without the
    store's tables (an empty file: opening it for writing would make it a database); None
    otherwise, and for a server database, which the caller checks. Read-only, and only the
    standard library: `rubricate review` asks before the TUI loads."""
    path = _sqlite_file(db)
    if path is None:
        return None
    if not path.exists():
        return no_database(db)
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)) as conn:
            found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
                                 ).fetchone()
    except sqlite3.Error:  # not a database, locked, unreadable: the store's open says which
        return None
    return None if found else no_database(db)


def first_page(path: Path, queue: str, rubric_ref: str | None, dataset: str | None,
               limit: int) -> tuple[list[QueueRow], int] | None:
    """The first ``limit`` rows of the queue and its size, or None when this path cannot say."""
    if queue not in _QUEUE_FILTERS or (rubric_ref is not None and "@" not in rubric_ref):
        return None
    where, params = "1 = 1" + _QUEUE_FILTERS[queue], []
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
        columns = _COLUMNS.format(reviewed=REVIEW_COUNTS[queue])
        rows = conn.execute(f"SELECT {columns} FROM item WHERE {where} ORDER BY pk LIMIT ?",
                            [*params, limit]).fetchall()
        (total,) = conn.execute(f"SELECT count(*) FROM item WHERE {where}", params).fetchone()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    t = datetime.now(UTC).replace(tzinfo=None)
    return [QueueRow(r[0], r[1], r[2], r[3], r[4], r[5], None if r[6] is None else bool(r[6]), bool(r[7]), r[8],
                     r[9], r[10] if r[11] is not None and datetime.fromisoformat(r[11]) > t else None, r[0])
            for r in rows], int(total)
