"""The triage key orders items by reviews done, then errors and flags, then routing priority. It
is computed as a double: an item with more than 2,147 complete reviews (an import of a large
panel) no longer overflows PostgreSQL's 32-bit integer product, and a priority past the key's room
is refused in one line instead of being clamped — on both backends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.store.queue import PRIORITY_CAP

REF = "general-quality@1.0.0"


def test_an_item_with_thousands_of_reviews_imports_and_goes_last(store: Store, tmp_path: Path) -> None:
    dims = [d.id for d in store.rubrics.get_rubric(REF).dimensions]
    panel = [{"reviewer": f"r{i}", "scores": {d: 3 for d in dims}} for i in range(2200)]
    path = tmp_path / "panel.jsonl"
    path.write_text(json.dumps({"id": "big", "output": "o", "human": panel}) + "\n"
                    + json.dumps({"id": "fresh", "output": "o"}) + "\n")
    import_file(store, path, REF, dataset="panel")
    page = store.queue.queue_page("triage", REF, "panel")
    assert {r.item_id: r.reviewed for r in page} == {"big": 2200, "fresh": 0}
    claim = store.queue.claim_next("triage", "ana", REF, "panel")
    assert claim is not None and claim.item_id == "fresh"  # the item nobody reviewed comes first


@pytest.mark.parametrize("bad", [-1.0, PRIORITY_CAP + 1, float("nan"), 1e12])
def test_a_priority_past_the_keys_room_is_refused(store: Store, tmp_path: Path, bad: float) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"id": "a", "output": "o"}) + "\n")
    import_file(store, path, REF, dataset="one")
    pk = store.queue.queue_page("triage", REF, "one")[0].item_pk
    with pytest.raises(UserError, match="outside 0–99,999; nothing was written"):
        store.queue.set_priorities(REF, {pk: bad})
    store.queue.set_priorities(REF, {pk: PRIORITY_CAP})
