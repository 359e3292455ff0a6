"""Sorted pages found by cursor (keyset) on both backends: for every order and direction, pages
of any size, each starting after the last row of the one before, are exactly the slices of the
list read whole (ties of equal values, no value, numbers written as text); each page is a seek
into the order's index (the plan says so); a metadata key's index is bounded."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from sqlalchemy import ColumnElement, text
from sqlalchemy.engine import URL

from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.store.queue_order import class_of, class_page, seeks, sort_classes
from reviewer.store.queue_sort_index import MAX_KEY_INDEXES, index_name, use_key_index
from reviewer.store.sorting import QueueCursor, QueueOrder
from reviewer.store.views import QueueFilter
from tests.store.sort_oracle import all_rows, expected

if TYPE_CHECKING:
    from tests.hostile.team import Team

REF = "general-quality@1.0.0"
MISSING = object()
#: metadata "k": runs of equal numbers (5 as a number, as text, as 5.0), equal text, no key,
#: null and other JSON values, several of each
TIED: list[Any] = [5, "5", 5, 5.0, "5.0", 2, 2, "a", "a", "b", "a", MISSING, None, MISSING, True, MISSING, 5, "2",
                   -1, "-1", "a", None, [1], MISSING, 2]
#: a key with a quote and a percent sign (written into the index's SQL as a literal)
ODD_KEY = "it's 100%"


def _load(store: Store, tmp_path: Path) -> None:
    """Items whose judge scores take three values (one in five has none), people's scores on a
    third (so the gap ties too) and the tied metadata above, under two keys."""
    rows = []
    for i, v in enumerate(TIED):
        meta = {} if v is MISSING else {"k": v, ODD_KEY: v}
        row: dict[str, Any] = {"id": f"t{i:02d}", "input": "q", "output": f"out {i}", "metadata": meta}
        if i % 5 != 3:
            row["judge"] = {"model": "m1", "scores": {"accuracy": 1 + 3 * (i % 3)}}
        if i % 3 == 0:
            row["human"] = [{"reviewer": "ann", "scores": {"accuracy": 4}}]
        rows.append(row)
    path = tmp_path / "tied.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_file(store, path, REF, dataset="d")


ORDERS = [QueueOrder(by, desc) for by in ("queue", "judge", "people", "panel", "age") for desc in (False, True)]
ORDERS += [QueueOrder("metadata", desc, key) for key in ("k", ODD_KEY, "absent") for desc in (False, True)]


def _pages(store: Store, order: QueueOrder, size: int, filt: QueueFilter | None = None) -> list[list[int]]:
    pages, after = [], None
    while True:
        page = store.queue.queue_page("triage", after=after, limit=size, filt=filt, order=order)
        pages.append([r.item_pk for r in page])
        if len(page) < size:
            return pages
        after = page[-1].cursor


def test_keyset_pages_are_the_slices_of_the_whole_list(store: Store, tmp_path: Path) -> None:
    _load(store, tmp_path)
    rows = all_rows(store)
    for order in ORDERS:
        whole = [r.item_pk for r in store.queue.queue_page("triage", limit=1000, order=order)]
        assert whole == expected(rows, order), order
        for size in (1, 2, 3, 7):
            pages = _pages(store, order, size)
            # page n is the list's rows from n * size on: what OFFSET n * size would give
            assert pages == [whole[n * size:(n + 1) * size] for n in range(len(whole) // size + 1)], (order, size)


def test_keyset_pages_under_a_filter(store: Store, tmp_path: Path) -> None:
    _load(store, tmp_path)
    for order in ORDERS:
        filt = QueueFilter(text="out 1")  # items 1 and 10 to 19
        whole = [r.item_pk for r in store.queue.queue_page("triage", limit=1000, order=order, filt=filt)]
        assert 0 < len(whole) < len(TIED)
        assert sum(_pages(store, order, 2, filt), []) == whole, order


def test_a_cursor_of_another_order_is_refused(store: Store, tmp_path: Path) -> None:
    _load(store, tmp_path)
    last = store.queue.queue_page("triage", limit=2, order=QueueOrder("judge"))[-1].cursor
    with pytest.raises(ValueError, match="cursor"):
        store.queue.queue_page("triage", limit=2, after=last, order=QueueOrder("age"))
    with pytest.raises(ValueError, match="cursor"):
        store.queue.queue_page("triage", limit=2, after=QueueCursor.at(last.pk), order=QueueOrder("judge"))


def _plan(store: Store, order: QueueOrder, k: int, seek: ColumnElement[bool] | None) -> str:
    """The database's plan for class ``k``'s page (PostgreSQL told not to scan the table or
    sort where it can help it: on a few rows it would, and the question is whether it can use
    the index at all)."""
    dialect = store.db.dialect
    target = URL.create("postgresql+psycopg" if dialect == "postgresql" else "sqlite").get_dialect()()
    sql = str(class_page(order, [], dialect, k, seek, 200).compile(
        dialect=target, compile_kwargs={"literal_binds": True}))
    with store.db.read() as conn:
        if dialect == "postgresql":
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
            conn.exec_driver_sql("SET LOCAL enable_bitmapscan = off")
            conn.exec_driver_sql("SET LOCAL enable_sort = off")
            return "\n".join(r[0] for r in conn.execute(text("EXPLAIN " + sql.replace("%%", "%"))))
        return "\n".join(r[3] for r in conn.execute(text("EXPLAIN QUERY PLAN " + sql)))


@pytest.mark.parametrize("order", [QueueOrder(by, desc) for by in ("judge", "people", "panel", "age")
                                   for desc in (False, True)]
                         + [QueueOrder("metadata", desc, key) for key in ("k", ODD_KEY) for desc in (False, True)])
def test_each_class_of_a_sorted_page_reads_its_index(store: Store, tmp_path: Path, order: QueueOrder) -> None:
    name = f"ix_item_sort_{order.by}"
    if order.by == "metadata":
        assert order.key is not None
        # made before the items come: made on a table whose rows were updated, PostgreSQL lets
        # a transaction use it only once every transaction older than it has ended (in any
        # session on the server: other tests' too)
        assert use_key_index(store.db, order.key)
        name = index_name(order.key)
    _load(store, tmp_path)
    cursor = store.queue.queue_page("triage", limit=3, order=order)[-1].cursor
    for k in range(len(sort_classes(order, store.db.dialect))):
        if order.by == "age" and k == 1:
            continue  # no item is without its time added (NOT NULL): SQLite knows, and reads nothing
        found = seeks(order, store.db.dialect, cursor) if k == class_of(cursor.values) else []
        for seek in (None, *found):
            plan = _plan(store, order, k, seek)
            assert name in plan, (k, plan)
            if len(found) == 2 and seek is found[0]:
                continue  # the rest of one value's tie: its rows may be sorted by the next value
            # the class is never sorted whole: at most the ties of a value (by the key after it)
            if store.db.dialect == "sqlite":
                assert "USE TEMP B-TREE FOR ORDER BY" not in plan, (k, plan)
            else:
                assert "Incremental Sort" in plan or "  Sort" not in plan, (k, plan)


def _key_indexes(store: Store) -> set[str]:
    with store.db.read() as conn:
        if store.db.dialect == "postgresql":
            got = conn.execute(text("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
                                    "AND indexname LIKE 'ix_item_meta_%'"))
        else:
            got = conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix_item_meta_%'"))
        return set(got.scalars())


def test_metadata_key_indexes_are_made_once_and_bounded(store: Store, tmp_path: Path) -> None:
    _load(store, tmp_path)
    rows = all_rows(store)
    keys = [f"key{i}" for i in range(MAX_KEY_INDEXES + 2)]
    for key in keys:
        store.queue.queue_page("triage", limit=5, order=QueueOrder("metadata", False, key))
    # the two made first were dropped for the last two
    assert _key_indexes(store) == {index_name(k) for k in keys[2:]}
    with store.db.read() as conn:
        assert set(conn.execute(text("SELECT sort_key FROM queue_sort_index")).scalars()) == set(keys[2:])
    # a key sorted by again has its index back (the oldest then goes); the order is the same
    order = QueueOrder("metadata", True, "k")
    first = [r.item_pk for r in store.queue.queue_page("triage", limit=1000, order=order)]
    assert index_name("k") in _key_indexes(store) and len(_key_indexes(store)) == MAX_KEY_INDEXES
    assert first == expected(rows, order)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_login_that_may_not_make_an_index_sorts_the_same(backend: str, tmp_path: Path) -> None:
    """A person's PostgreSQL login (``db roles``' grants: no index on the owner's tables) sorts
    by a metadata key in the same order, by a scan, and makes no index; the owner's store then
    makes it."""
    from tests.hostile.team import make_team

    with ExitStack() as stack:
        t, _ = make_team(backend, tmp_path, stack)
        _sorted_as_a_person(t, tmp_path)


def _sorted_as_a_person(t: Team, tmp_path: Path) -> None:
    _load(t.owner, tmp_path)
    order = QueueOrder("metadata", False, "k")
    ana = t.as_("ana")
    theirs = sum(_pages(ana, order, 4), [])
    assert _key_indexes(t.owner) == (set() if t.backend == "postgres" else {index_name("k")})
    assert theirs == sum(_pages(t.owner, order, 4), []) == expected(all_rows(t.owner), order)
    assert index_name("k") in _key_indexes(t.owner)


def test_a_large_import_samples_the_item_table_on_postgres(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL plans the queue list's pages from its sample of the item table: an import of
    at least ``ANALYZE_AFTER`` items takes a new one at once (here the bound is lowered to the
    test's 25 items; one item short of it takes none)."""
    from reviewer.store import items as items_module
    from reviewer.store import open_store
    from tests.store.conftest import pg_schema_url

    def analyzed(store: Store) -> bool:
        with store.db.read() as conn:
            return bool(conn.execute(text("SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables "
                                          "WHERE relname = 'item' AND schemaname = current_schema()")).scalar_one())

    for bound, want in ((len(TIED) + 1, False), (len(TIED), True)):
        monkeypatch.setattr(items_module, "ANALYZE_AFTER", bound)
        urls = pg_schema_url()
        store = open_store(next(urls))
        try:
            _load(store, tmp_path)
            assert analyzed(store) is want, bound
        finally:
            store.close()
            for _ in urls:
                pass
