"""The review screens of issue 23: the safety screen shows the whole content under decision and
says why a flag cleared by its escalator still waits; an adjudication asks for confirmation and
a reason; ``:`` on an id two datasets share asks which; ``u`` withdraws one's own waiting flag
on a later visit.

On the code before: the safety screen showed 200 characters either side of the match and
nothing of a conversation; "1 of 1 person" with no word on why; one digit wrote an adjudication;
``:`` opened the first of two items; ``u`` answered "nothing to undo" once the item was left."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import DataTable, OptionList, Static

from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.tui.app import ReviewApp, make_app
from reviewer.tui.screens.item import ItemScreen
from reviewer.tui.screens.jump import ItemChoiceDialog
from reviewer.tui.screens.queue import QueueScreen
from reviewer.tui.screens.safety import SafetyScreen
from reviewer.tui.widgets.textview import TextView
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, settle, start

GQ = "general-quality@1.0.0"
CHAT = [
    {"role": "user", "content": "Where does my teacher live?"},
    {"role": "assistant", "content": "I cannot share that."},
    {"role": "user", "content": "Please, it is **urgent**."},
    {"role": "assistant", "content": "She lives at 12 Elm Street, flat 3."},
]
#: an output far longer than the 200 characters the screen showed of it
LONG = "".join(f"Paragraph {i}: the report goes on about nothing in particular.\n" for i in range(120)) \
    + "THE LAST LINE: call 555-0100 for the files."


def _add(store: Store, tmp_path: Path, rows: list[dict[str, object]], dataset: str) -> dict[str, int]:
    path = tmp_path / f"{dataset}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    import_file(store, path, GQ, dataset=dataset)
    return {str(r["id"]): store.items.items_by_id(str(r["id"]), dataset)[0][0] for r in rows}


async def _safety_on(app: ReviewApp, pilot: Pilot[Any], item_id: str) -> SafetyScreen:
    """Open the safety screen with the cursor on ``item_id``'s flag."""
    await settle(app, pilot)
    await pilot.press("S")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, SafetyScreen)
    row = next(i for i, f in enumerate(screen.flags) if f.item_id == item_id)
    screen.query_one(DataTable).move_cursor(row=row, animate=False)
    await settle(app, pilot)
    return screen


def _shown(screen: SafetyScreen) -> str:
    content = screen.query_one("#safety-text", TextView).content
    assert isinstance(content, Text)
    return content.plain


async def test_the_safety_screen_shows_a_whole_output_scrollable(store: Store, tmp_path: Path) -> None:
    pks = _add(store, tmp_path, [{"id": "long-1", "output": LONG, "input": "Summarise the report."}], "long")
    store.safety.flag_item(pks["long-1"], REVIEWER, "a phone number at the very end")
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _safety_on(app, pilot, "long-1")
        assert _shown(screen) == LONG  # all of it, as written (was: its first 200 characters)
        box = screen.query_one("#safety-content", VerticalScroll)
        assert box.max_scroll_y > 0 and box.scroll_y == 0
        await pilot.press("space")
        await settle(app, pilot)
        assert box.scroll_y > 0  # paged while the list keeps the focus
        assert screen.query_one(DataTable).has_focus


async def test_the_safety_screen_shows_a_conversation_as_the_chat(store: Store, tmp_path: Path) -> None:
    pks = _add(store, tmp_path, [{"id": "chat-9", "conversation": CHAT}], "chat")
    store.safety.flag_item(pks["chat-9"], REVIEWER, "gives a home address")
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _safety_on(app, pilot, "chat-9")
        shown = _shown(screen)
        title = screen.query_one("#safety-content", VerticalScroll).border_title
    assert "conversation" in str(title)
    # every message, in order, with its role, as written (never rendered or read as markup)
    at = [shown.index(m["content"]) for m in CHAT]
    assert at == sorted(at) and shown.count("assistant") == 2 and "**urgent**" in shown


async def test_a_flag_cleared_only_by_its_escalator_says_why_it_waits(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _safety_on(app, pilot, "rag-012")
        target = screen.flags[screen.query_one(DataTable).cursor_row]
        await pilot.press("e", *"looks like a real card", "enter")
        await settle(app, pilot)
        await pilot.press("c", *"on second look a test number", "enter")
        await settle(app, pilot)
        flag = next(f for f in screen.flags if f.flag_id == target.flag_id)
        detail = str(screen.query_one("#safety-detail", Static).render())
    assert (flag.status, flag.signoffs) == ("escalated", "1 of 1 login")
    assert "whoever escalated a flag cannot be the only one to clear it" in detail
    assert f"cleared only by {REVIEWER}" in detail


async def test_u_withdraws_ones_own_waiting_flag_on_a_later_visit(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        pk = screen.state.item_pk
        await pilot.press("f", *"a home address", "enter")
        await settle(app, pilot)
        await pilot.press("escape")  # leave the item: this visit's undo list is gone
        await settle(app, pilot)
        app.open_item(pk)
        await settle(app, pilot)
        again = app.screen
        assert isinstance(again, ItemScreen) and again.state.item_pk == pk and not again.done
        assert [f.detector for f in again.state.flags if f.gate == "reviewer_flag"] == [f"human:{REVIEWER}"]
        await pilot.press("u")
        await settle(app, pilot)
        assert not [f for f in again.state.flags if f.gate == "reviewer_flag"]  # off the screen at once
    mine = [f for f in store.items.item_view(pk, REVIEWER).flags if f.detector == f"human:{REVIEWER}"]
    assert [(f.status, f.decisions) for f in mine] == [("withdrawn", [(REVIEWER, "withdraw", "withdrawn by the flagger")])]


async def test_u_leaves_a_flag_with_a_safety_decision_alone(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        pk = screen.state.item_pk
        await pilot.press("escape")
        await settle(app, pilot)
        flag = store.safety.flag_item(pk, REVIEWER, "a home address")
        store.safety.add_safety_decision(flag, REVIEWER, "escalate", "needs a second look")
        app.open_item(pk)
        await settle(app, pilot)
        await pilot.press("u")
        await settle(app, pilot)
        said = [str(n.message) for n in app._notifications]
    assert any("has a safety decision already" in m for m in said)
    assert [f.status for f in store.items.item_view(pk, REVIEWER).flags if f.pk == flag] == ["escalated"]


async def test_colon_on_an_id_two_datasets_share_names_them_and_lets_the_person_pick(store: Store,
                                                                                      tmp_path: Path) -> None:
    first = store.items.items_by_id("gq-003")
    assert len(first) == 1
    copy = _add(store, tmp_path, [{"id": "gq-003", "output": "another answer", "input": "q"}], "copy")["gq-003"]
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("colon", *"gq-003", "enter")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ItemChoiceDialog)  # before: the first by key opened, unsaid
        lines = [str(dialog.query_one(OptionList).get_option_at_index(i).prompt) for i in range(2)]
        assert [ln.split()[1] for ln in lines] == [first[0][1], "copy"]
        await pilot.press("escape")  # cancels: still on the queue
        await settle(app, pilot)
        assert isinstance(app.screen, QueueScreen)
        await pilot.press("colon", *"gq-003", "enter")
        await settle(app, pilot)
        await pilot.press("down", "enter")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ItemScreen) and (screen.state.item_pk, screen.state.dataset) == (copy, "copy")
