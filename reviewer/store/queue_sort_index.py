"""The indexes that keep the queue list sorted by a metadata key quick: one per key, made the
first time the list is sorted by it, at most :data:`MAX_KEY_INDEXES`.

Each index holds the key's two sort values (:func:`reviewer.store.queue_order.metadata_sql`: the
number and the text, written word for word as the page's statement says them) and the item key,
so a sorted page is a seek into it. The ``queue_sort_index`` table lists them with the time each
was made; making one past the bound drops the one made first (and its row). An index is a copy
of what the item rows hold: dropping one loses nothing, and without it the list is in the same
order, only read by a scan of the queue (as it is where the login may not make an index: a
PostgreSQL login that does not own the tables). PostgreSQL may also hold a new index back from
transactions until every transaction older than it has ended (when the table's rows were updated
in place): until then the same order is read by a scan.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from reviewer.store.db import Db
from reviewer.store.queue_order import metadata_sql
from reviewer.store.tables import now

#: The most metadata keys kept indexed at once: each index costs every import and judge write
#: on the item table a little, and its room on disk.
MAX_KEY_INDEXES = 8
#: PostgreSQL's SQLSTATE for a login that may not do what it asked.
INSUFFICIENT_PRIVILEGE = "42501"
#: Every key's index is named this and a hash of the key (the key is data; a name is not).
PREFIX = "ix_item_meta_"


def index_name(key: str) -> str:
    """The name of the metadata key's index."""
    return PREFIX + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def use_key_index(db: Db, key: str) -> bool:
    """Make the key's index unless it is there (dropping the one made first when
    :data:`MAX_KEY_INDEXES` are); whether the key has one now. A login that may not make it
    sorts without it."""
    name = index_name(key)
    with db.read() as conn:
        there = conn.execute(text("SELECT 1 FROM queue_sort_index WHERE name = :name"), {"name": name}).first()
    if there is None:
        try:
            _make(db, key, name)
        except DBAPIError as err:
            if getattr(err.orig, "sqlstate", None) != INSUFFICIENT_PRIVILEGE:
                raise
            return False  # not this login's to make (PostgreSQL): the same order, by a scan
    return True


def _make(db: Db, key: str, name: str) -> None:
    number, value = metadata_sql(key, db.dialect)
    ddl = f"CREATE INDEX IF NOT EXISTS {name} ON item (({number}), ({value}), pk)"
    if db.dialect == "postgresql":  # the driver reads ``%`` as a placeholder's start
        ddl = ddl.replace("%", "%%")
    with db.write() as conn:
        made = conn.execute(text("SELECT name FROM queue_sort_index ORDER BY created_at, name")).scalars().all()
        for old in made[:max(0, len(made) - MAX_KEY_INDEXES + 1)]:
            conn.exec_driver_sql(f"DROP INDEX IF EXISTS {old}")
            conn.execute(text("DELETE FROM queue_sort_index WHERE name = :name"), {"name": old})
        conn.exec_driver_sql(ddl)
        if db.dialect == "postgresql":
            # the planner knows the new index's values only once the table is sampled: before,
            # it guesses a class of the list small and sorts it whole
            conn.exec_driver_sql("ANALYZE item")
        conn.execute(text("INSERT INTO queue_sort_index (name, sort_key, created_at) VALUES (:name, :key, :t) "
                          "ON CONFLICT (name) DO NOTHING"), {"name": name, "key": key, "t": now()})


__all__ = ["MAX_KEY_INDEXES", "index_name", "use_key_index"]
