"""A queue's condition, columns and order are written once (:mod:`reviewer.store.queue_sql`):
the store's page and the standard-library first page the TUI paints while it starts both follow
that table — change a queue's condition there and both reads change alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.services.importing import import_file
from reviewer.store import open_store
from reviewer.store.lite import first_page
from reviewer.store.queue_sql import QUEUE_CONDITIONS
from tests.store.conftest import DEMO

REF = "general-quality@1.0.0"


def test_both_reads_of_a_queue_follow_its_one_condition(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "q.db"
    store = open_store(str(db))
    try:
        import_file(store, DEMO / "general-quality.jsonl", REF, dataset="demo")
        store.queue.create_audit_sample(REF, 7, seed=2)

        def both() -> tuple[list[int], list[int]]:
            lite = first_page(db, "audit", REF, None, 500)
            assert lite is not None
            assert lite[1] == store.queue.queue_count("audit", REF)
            return [r.item_pk for r in store.queue.queue_page("audit", REF, limit=500)], [r.item_pk for r in lite[0]]

        sample = len(store.queue.audit_pks(REF))  # the demo's own audit items and the 7 drawn
        store_rows, lite_rows = both()
        assert store_rows == lite_rows and len(store_rows) == sample >= 7
        # another rule for the audit queue, stated once: every third item of the rubric
        monkeypatch.setitem(QUEUE_CONDITIONS, "audit", "item.pk % 3 = 0")
        store_rows, lite_rows = both()
        assert store_rows == lite_rows == [pk for pk in range(1, 500) if pk % 3 == 0][:len(store_rows)]
        assert len(store_rows) not in (0, sample)
    finally:
        store.close()
