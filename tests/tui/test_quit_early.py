"""Quitting while the queue's page read is under way ended the app with ``NoMatches: No nodes
match 'DataTable'`` (exit 1): the read's answer queued the table's fill on the app, and the app
runs what is queued once more as it unmounts, after the screen's widgets are gone. A screen's
deferred work does nothing once its screen is taken down (reviewer.tui.screens.deferred); while the
screen is up, a missing widget is still an error."""

from __future__ import annotations

import pytest
from textual.css.query import NoMatches
from textual.widgets import DataTable

from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.messages import PageLoaded
from reviewer.tui.screens.queue import FIRST_ROWS, QueueScreen
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, settle


async def test_a_page_landing_as_the_app_quits_is_dropped(store: Store) -> None:
    """ctrl+q's quit, then the page read under way arrives (the race made certain): the app
    exits 0, its table never filled."""
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, QueueScreen) and len(screen.rows) > FIRST_ROWS  # (the rest deferred too)
        await app.action_quit()  # what ctrl+q runs
        screen.post_message(PageLoaded(screen.rows, screen.total))
    assert app._exception is None, repr(app._exception)
    assert app.return_code == 0


@pytest.mark.parametrize("attempt", range(5))
async def test_refresh_then_quit_at_once_exits_cleanly(store: Store, attempt: int) -> None:
    """A page read in a worker (what ``r`` starts) and ctrl+q while it runs: without the rule
    most of these runs exited 1, as in a terminal."""
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        screen.action_refresh()
        await pilot.press("ctrl+q")
    assert app._exception is None, repr(app._exception)
    assert app.return_code == 0


async def test_a_missing_widget_on_a_live_screen_is_still_an_error(store: Store) -> None:
    """The rule skips a screen taken down, nothing else: a queue screen that is up and has lost
    its table still fails loudly when a page arrives."""
    app = make_app(store, REVIEWER)
    with pytest.raises(NoMatches):
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            screen = app.screen
            assert isinstance(screen, QueueScreen)
            await screen.query_one(DataTable).remove()
            screen.post_message(PageLoaded(screen.rows, screen.total))
            await settle(app, pilot)
