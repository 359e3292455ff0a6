"""The safety lane: the status rule, the safety screen's cursor, and a reviewer's `f` flag.

On the code before this lane: the cursor went back to row 0 after every decision; one of two
clearances turned an escalated flag back to "open"; whoever escalated could clear alone; sign-offs
were a bare count; `f` asked no reason, flagged twice and could not be undone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from reviewer.demo.build import build_demo
from reviewer.domain.safety import safety_status
from reviewer.errors import UserError
from reviewer.store import Store, open_store
from reviewer.tui.app import make_app
from reviewer.tui.screens.reason import ReasonDialog
from reviewer.tui.screens.safety import SafetyScreen
from rubrics.loader import load_rubric_text
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, settle, start

RUBRICS = Path(__file__).resolve().parents[2] / "rubrics" / "library"


def test_an_escalated_flag_never_returns_to_open() -> None:
    partial = safety_status([("ana", "escalate"), ("sam", "clear")], needed=2)
    assert partial.state == "escalated"  # the old store wrote "open" here
    assert partial.signoff_text() == "1 of 2 logins"
    assert safety_status([("ana", "escalate"), ("sam", "clear"), ("joe", "clear")], 2).state == "cleared"


def test_sign_offs_are_distinct_people() -> None:
    twice = safety_status([("sam", "clear"), ("sam", "clear")], needed=2)
    assert (twice.state, twice.signoffs) == ("open", 1)


def test_whoever_escalated_cannot_be_the_only_sign_off() -> None:
    alone = safety_status([("ana", "escalate"), ("ana", "clear")], needed=1)
    assert alone.state == "escalated"  # the old store cleared it: one of one sign-offs
    assert safety_status([("ana", "escalate"), ("ana", "clear"), ("sam", "clear")], 1).state == "cleared"
    assert safety_status([("sam", "clear"), ("ana", "escalate")], 1).state == "escalated"  # clearances before count no more
    assert safety_status([("sam", "confirm"), ("joe", "clear")], 1).state == "confirmed"


@pytest.fixture
def two_signoffs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """The demo with rag-answer asking two people to clear a flag."""
    monkeypatch.setenv("RUBRICATE_CONFIG", str(tmp_path / "none.yaml"))
    db = str(tmp_path / "two.db")
    text = (RUBRICS / "rag-answer.yaml").read_text(encoding="utf-8") + "\nreview:\n  safety_signoffs: 2\n"
    s = open_store(db)
    s.rubrics.add_rubric(load_rubric_text(text, "rag-answer.yaml"), text)
    s.close()
    build_demo(db, REVIEWER)
    return open_store(db)


def test_the_store_applies_the_rule(two_signoffs: Store) -> None:
    store = two_signoffs
    store.roles.add_reviewer("sam", "safety")  # bound to the login "sam"
    # sam decides at their own login: the lead acting for sam would be the lead, one person
    # under two names (tests/hostile/test_roles.py)
    sam = open_store(str(store.db.engine.url.database), login="sam")
    flag = store.safety.open_flags()[0].pk
    assert sam.safety.add_safety_decision(flag, "sam", "escalate", "looks like a real card") == "escalated"
    assert store.safety.add_safety_decision(flag, REVIEWER, "clear", "a test number") == "escalated"
    assert sam.safety.add_safety_decision(flag, "sam", "clear", "checked: a test number") == "cleared"
    sam.close()


def rows(screen: SafetyScreen) -> list[tuple[str, ...]]:
    table = screen.query_one(DataTable)
    return [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


async def test_the_cursor_stays_on_the_flag_decided_and_shows_people(two_signoffs: Store) -> None:
    store = two_signoffs
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("S")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, SafetyScreen)
        assert rows(screen)[0][-1] == "0 of 2 logins"
        await pilot.press("down", "down")  # the payment card (third row)
        target = screen.flags[2]
        await pilot.press("c", *"a test card number", "enter")
        await settle(app, pilot)
        # one of two sign-offs: still waiting, and the cursor is still on it (was row 0)
        assert screen.query_one(DataTable).cursor_row == 2 and screen.flags[2].flag_id == target.flag_id
        assert rows(screen)[2][-2:] == ("open", "1 of 2 logins")
        assert target.item_id in str(screen.query_one("#safety-detail", Static).render())
        assert "stays on it" in str(screen.query_one("#safety-said", Static).render())
        await pilot.press("x", *"a real card", "enter")  # confirmed: off the list
        await settle(app, pilot)
        assert all(f.flag_id != target.flag_id for f in screen.flags)
        cursor = screen.query_one(DataTable).cursor_row
        assert cursor == 2 and screen.flags[cursor].item_id != target.item_id  # the next one
        assert "moved to the next flag" in str(screen.query_one("#safety-said", Static).render())


async def test_flag_asks_a_reason_once_per_person_and_undoes(store: Store) -> None:
    before = store.queue.queue_count("safety")
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        pk = screen.state.item_pk
        await pilot.press("f")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ReasonDialog)  # the old `f` flagged at once, with no reason
        await pilot.press("tab", "1", "tab", *"a home address", "enter")
        await settle(app, pilot)
        flags = [f for f in store.safety.open_flags() if f.item_pk == pk and f.detector == f"human:{REVIEWER}"]
        assert [(f.context, f.status) for f in flags] == [("a home address [personal_data]", "open")]
        await pilot.press("f")  # a second flag by the same person is refused (no dialog)
        await settle(app, pilot)
        assert app.screen is screen
        assert store.queue.queue_count("safety") == before + 1
        await pilot.press("u")  # undoes the flag: the last action on this item
        await settle(app, pilot)
    assert store.queue.queue_count("safety") == before
    decisions = [d for f in store.items.item_view(pk, REVIEWER).flags for d in f.decisions]
    assert decisions == [(REVIEWER, "withdraw", "withdrawn by the flagger")]  # a row, not a deletion
    store.safety.flag_item(pk, REVIEWER, "again")  # withdrawn: no longer waiting, so a new flag is fine
    with pytest.raises(UserError, match="already flagged"):
        store.safety.flag_item(pk, REVIEWER, "and again")
