"""A conversation-only item renders as a chat. On the code before it showed "(no input)" and an
empty output."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Static

from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.screens.item import ItemScreen
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, settle

CHAT = [
    {"role": "system", "content": "You are a cooking assistant."},
    {"role": "user", "content": "How long for a soft-boiled egg?"},
    {"role": "assistant", "content": "About six minutes."},
    {"role": "user", "content": "And [bold]hard[/bold]-boiled?"},
    {"role": "assistant", "content": "Ten minutes, then cold water."},
]


async def test_a_conversation_shows_as_a_chat_with_the_turn_under_review_marked(store: Store,
                                                                                 tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"id": "chat-1", "conversation": CHAT}) + "\n", encoding="utf-8")
    import_file(store, path, "general-quality@1.0.0", dataset="chat")
    pk = store.queue.queue_page("triage", search="chat-1")[0].item_pk
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.open_item(pk)
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ItemScreen)
        chat = str(screen.query_one("#item-input", Static).render())
        output = str(screen.query_one("#item-output", Static).render())
    assert "(no input)" not in chat
    assert chat.index("system") < chat.index("user  turn 1") < chat.index("assistant  turn 1") < chat.index(
        "user  turn 2")
    assert "And [bold]hard[/bold]-boiled?" in chat  # shown as typed, never read as markup
    assert "Ten minutes" not in chat  # the message under review sits in the output panel
    assert output.startswith("▶ under review: assistant  turn 2") and "Ten minutes, then cold water." in output
