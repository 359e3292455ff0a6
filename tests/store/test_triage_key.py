"""The triage key on both backends: unreviewed items before reviewed ones, judge errors and open
safety flags before any routing priority, then higher priority first (clamped, so no priority
reaches into the steps above it); and calibrate's priorities written in one statement."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import event, select, update
from sqlmodel import col

from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.store.queue import PRIORITY_CAP, REVIEWED_STEP, URGENT_STEP, refresh_triage_keys
from reviewer.store.tables import Item

REF = "general-quality@1.0.0"


def _items(store: Store, tmp_path: Path, n: int) -> list[int]:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps({"id": f"i{i:03d}", "output": f"answer {i}"}) + "\n" for i in range(n)))
    import_file(store, path, REF)
    with store.db.read() as conn:
        return list(conn.execute(select(col(Item.pk)).order_by(col(Item.pk))).scalars())


def test_urgent_items_come_first_then_priority_and_reviewed_items_last(store: Store, tmp_path: Path) -> None:
    huge, errored, low, reviewed = _items(store, tmp_path, 4)
    store.queue.set_queue_settings("triage", REF, reviewers_per_item=2)  # a reviewed item stays in triage
    store.queue.set_priorities(REF, {huge: 99_999.0, errored: 0.0, low: 5.0, reviewed: 99_999.0})
    with store.db.write() as conn:  # a priority past the cap, written by other means, is clamped by the key
        conn.execute(update(Item).where(col(Item.pk).in_([huge, reviewed])).values(priority=1e9))
        conn.execute(update(Item).where(col(Item.pk) == errored).values(n_errors=1))
        conn.execute(update(Item).where(col(Item.pk) == reviewed).values(n_reviewed=1))
        refresh_triage_keys(conn, "1 = 1", {})
    with store.db.read() as conn:
        keys = {pk: key for pk, key in conn.execute(select(col(Item.pk), col(Item.triage_key)))}
    assert keys == {huge: -PRIORITY_CAP, errored: -URGENT_STEP, low: -5.0, reviewed: REVIEWED_STEP - PRIORITY_CAP}
    served: list[int] = []
    for _ in range(4):  # each claim passes over the ones before, as claiming ahead does
        claim = store.queue.claim_next("triage", "ana", REF, exclude=served)
        assert claim is not None
        served.append(claim.item_pk)
    assert served == [errored, huge, low, reviewed]


def test_priorities_are_written_in_one_statement(store: Store, tmp_path: Path) -> None:
    pks = _items(store, tmp_path, 40)
    updates: list[bool] = []

    def seen(_conn: Any, _cursor: Any, statement: str, _params: Any, _context: Any, executemany: bool) -> None:
        if " ".join(statement.split()).upper().startswith("UPDATE ITEM SET PRIORITY"):
            updates.append(executemany)

    event.listen(store.db.engine, "before_cursor_execute", seen)
    try:
        store.queue.set_priorities(REF, {pk: float(i) for i, pk in enumerate(pks)})
    finally:
        event.remove(store.db.engine, "before_cursor_execute", seen)
    assert updates == [True]  # one UPDATE, every item's priority a parameter set of it
    with store.db.read() as conn:
        stored = {pk: p for pk, p in conn.execute(select(col(Item.pk), col(Item.priority)))}
    assert stored == {pk: float(i) for i, pk in enumerate(pks)}
    first = store.queue.claim_next("triage", "ana", REF)
    assert first is not None and first.item_pk == pks[-1]  # the highest priority is served first
