"""What the review screens read from the store, on SQLite and PostgreSQL: a flag carries its
item's conversation (the safety screen shows the chat under decision; before, only the output,
empty for a conversation item)."""

from __future__ import annotations

import json
from pathlib import Path

from reviewer.services.importing import import_file
from reviewer.store import Store

CHAT = [{"role": "user", "content": "Where does she live?"},
        {"role": "assistant", "content": "At 12 Elm Street."}]


def test_a_flag_carries_its_items_conversation(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"id": "c1", "conversation": CHAT}) + "\n"
                    + json.dumps({"id": "o1", "output": "plain"}) + "\n", encoding="utf-8")
    import_file(store, path, "general-quality@1.0.0", dataset="chat")
    store.roles.add_reviewer("ana", "lead")  # the first role of a store, bound to this login
    for item_id in ("c1", "o1"):
        store.safety.flag_item(store.items.items_by_id(item_id)[0][0], "ana", "an address")
    flags = {f.item_id: f for f in store.safety.open_flags()}
    assert flags["c1"].conversation == CHAT and flags["c1"].output == ""
    assert flags["o1"].conversation is None and flags["o1"].output == "plain"
