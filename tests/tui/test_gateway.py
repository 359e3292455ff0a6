"""The TUI's gateway under Pilot, with faults made in the database itself (a trigger that refuses
a write, a table gone under a read), on SQLite and on PostgreSQL: a refused write is rolled back
on screen with the undo stack and said in one line; a failed read is a line and the app runs on."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import text

from reviewer.store import Store, open_store
from reviewer.tui.app import ReviewApp, make_app
from reviewer.tui.screens.item import ItemScreen
from reviewer.tui.screens.queue import QueueScreen
from reviewer.tui.screens.safety import SafetyScreen
from reviewer.tui.widgets.dimension_card import DimensionCard
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, mine, settle, start

REFUSAL = "refused by a trigger of the test"


def refuse_scores(store: Store) -> None:
    """From now on the database refuses every new human score (a trigger, not a Python fault)."""
    with store.db.write() as conn:
        if conn.dialect.name == "sqlite":
            conn.execute(text(f"CREATE TRIGGER refuse_scores BEFORE INSERT ON human_score "
                              f"BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END"))
        else:
            conn.execute(text(f"CREATE FUNCTION refuse_scores() RETURNS trigger AS $$ BEGIN "
                              f"RAISE EXCEPTION '{REFUSAL}'; END $$ LANGUAGE plpgsql"))
            conn.execute(text("CREATE TRIGGER refuse_scores BEFORE INSERT ON human_score "
                              "FOR EACH ROW EXECUTE FUNCTION refuse_scores()"))


def errors_said(app: ReviewApp) -> list[str]:
    return [str(n.message) for n in app._notifications if n.severity == "error"]


async def test_a_refused_score_is_rolled_back_on_screen(either: Store) -> None:
    store = either
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        index = screen.focus_index
        d = screen.state.dims[index]
        assert d.my_score is None
        refuse_scores(store)
        await pilot.press("3")
        await settle(app, pilot)
        # the score the store refused is gone from the screen: the dimension unscored again, the
        # card saying so, nothing left on the undo stack, and one line saying what happened
        assert d.my_score is None and screen.done == []
        card = screen.query_one(f"#card-{index}", DimensionCard)
        assert not card.has_class("-scored")
        said = errors_said(app)
        assert len(said) == 1 and "\n" not in said[0]
        assert f"could not save {screen.state.item_id}/{d.dim.id}" in said[0] and REFUSAL in said[0]
        assert f"undone on screen: {screen.state.item_id} {d.dim.id} unscored again" in said[0]
        assert app.is_running and app.write_errors
        assert mine(store, screen.state.item_pk) == []


async def test_a_refused_undo_puts_the_score_back(either: Store) -> None:
    store = either
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        d = screen.state.dims[screen.focus_index]
        await pilot.press("3")
        await settle(app, pilot)
        assert d.my_score == 3 and len(screen.done) == 1
        refuse_scores(store)
        await pilot.press("u")
        await settle(app, pilot)
        # the undo (a new row) was refused: the store still holds the 3, and so does the screen,
        # with the score back on the undo stack for another try
        assert d.my_score == 3 and len(screen.done) == 1 and screen.done[0].dim is d
        assert any(f"undo on {screen.state.item_id} {d.dim.id} taken back" in s for s in errors_said(app))
        assert [(dim, score) for dim, score, _ in mine(store, screen.state.item_pk)] == [(d.dim.id, 3.0)]


async def test_a_failed_read_is_a_line_and_the_app_runs_on(either: Store) -> None:
    store = either
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        with store.db.write() as conn:  # the safety queue's table is gone under the app
            conn.execute(text("ALTER TABLE safety_flag RENAME TO safety_flag_gone"))
        await pilot.press("S")
        await settle(app, pilot)
        assert isinstance(app.screen, SafetyScreen) and app.is_running and app.return_code is None
        said = errors_said(app)
        assert len(said) == 1 and said[0].startswith("could not read the safety queue: ") and "\n" not in said[0]
        with store.db.write() as conn:
            conn.execute(text("ALTER TABLE safety_flag_gone RENAME TO safety_flag"))
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, QueueScreen)
        await pilot.press("g")  # and the app still reviews
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)


async def test_two_refused_scores_on_one_dimension_roll_back_to_what_the_store_holds(demo_db: Path) -> None:
    """Two scores on one dimension, both refused, their refusals heard after both were entered:
    the screen goes back to the dimension's value before the first (unscored), not to the first
    refused score (the second's "before"). The writer is held behind another connection's write
    lock while both are entered, and that connection adds the refusing trigger."""
    store = open_store(str(demo_db))
    app = make_app(store, REVIEWER)
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await start(app, pilot)
            index = screen.focus_index
            d = screen.state.dims[index]
            assert d.my_score is None and index + 1 < len(screen.state.dims)
            lock = sqlite3.connect(demo_db, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")  # the writer now waits (busy timeout) behind this
            lock.execute(f"CREATE TRIGGER refuse_scores BEFORE INSERT ON human_score "
                         f"BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END")
            await pilot.press("3")
            if screen.focus_index != index:  # the focus moved on to the next dimension: back to it
                await pilot.press("k")
            assert screen.focus_index == index
            await pilot.press("4")
            assert d.my_score == 4 and len(screen.done) == 2 and app.gateway.pending >= 2
            lock.execute("COMMIT")
            lock.close()
            await settle(app, pilot)
            assert d.my_score is None and screen.done == []
            assert len(app.write_errors) == 2 and mine(store, screen.state.item_pk) == []
    finally:
        store.close()
