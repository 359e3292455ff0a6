"""80×24 and NO_COLOR. On the code before: at 80 columns the item screen's footer had no score
entry at all (the digit keys were hidden) and the pair view's cut off undo, next and reveal after
"A better · B better · tie · why"; under NO_COLOR "fail", "FLAG" and a Low band's label were red
greys, dark on dark (black on red for the band)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import DataTable
from textual.widgets._footer import FooterKey

from reviewer.store import Store
from reviewer.tui import palette
from reviewer.tui.app import ReviewApp, make_app
from reviewer.tui.screens.pair import PairScreen
from reviewer.tui.screens.queue import QueueScreen
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import press_to, settle, start

SMALL = (80, 24)
REVAL = "reval-issue-framing@1.0.0"


@pytest.fixture(autouse=True)
def _colour_back() -> Iterator[None]:
    yield
    palette.use_color(True)  # the app sets it at start; leave it as a test without an app expects


def footer_in_view(app: ReviewApp) -> list[str]:
    """The actions of the footer entries whose whole key and label lie within the terminal."""
    return [k.action for k in app.screen.query(FooterKey)
            if k.region.width and k.region.right <= app.size.width]


async def test_the_keys_that_matter_fit_80_columns_on_the_item_screen(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SMALL) as pilot:
        await start(app, pilot)
        shown = footer_in_view(app)
        for action in ("score(1)", "agree", "next_item", "undo", "help", "quit"):
            assert action in shown, f"{action} not in the first 80 columns: {shown}"
        score = next(k for k in app.screen.query(FooterKey) if k.action == "score(1)")
        assert score.key_display == "0-9"  # one entry for the ten digit keys


async def test_the_queue_footer_names_quit_once(store: Store) -> None:
    """The queue's own ``q`` and the app's ``ctrl+q`` both showed "quit" in its footer; ``q``
    still quits and help still lists it."""
    app = make_app(store, REVIEWER)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        quits = [k.description for k in app.screen.query(FooterKey) if "quit" in k.action]
        assert quits == ["quit"]
        assert app.return_code is None
        await pilot.press("q")  # still quits
        await pilot.pause()
        assert app.return_code is not None


async def test_reveal_fits_80_columns_while_blind(store: Store) -> None:
    app = make_app(store, REVIEWER, blind=True)
    async with app.run_test(size=SMALL) as pilot:
        await start(app, pilot)
        shown = footer_in_view(app)
        assert {"score(1)", "agree", "next_item", "undo", "reveal", "help", "quit"} <= set(shown), shown


async def test_the_pair_view_keeps_choice_next_and_undo_in_80_columns(store: Store) -> None:
    app = make_app(store, REVIEWER, rubric_ref=REVAL)
    async with app.run_test(size=SMALL) as pilot:
        await press_to(app, pilot, "g", PairScreen)
        shown = footer_in_view(app)
        assert {"score(1)", "agree", "choose(0)", "choose(1)", "choose(-1)", "next_item", "undo",
                "help", "quit"} <= set(shown), shown


async def test_a_keymap_that_moves_a_digit_is_what_the_footer_shows(store: Store) -> None:
    from reviewer.tui.config import TuiSettings

    # 5 moved to z: "0-9" would no longer say which keys score (Textual itself drops a key's
    # display only on the binding remapped, here score_5, not on score_1 that carries the entry)
    app = make_app(store, REVIEWER, settings=TuiSettings(keymap={"item.score_5": "z"}))
    async with app.run_test(size=(160, 50)) as pilot:
        await start(app, pilot)
        score = next(k for k in app.screen.query(FooterKey) if k.action == "score(1)")
        assert score.key_display == "1"


def _cells(app: ReviewApp, column: str) -> list[Any]:
    table = app.screen.query_one(DataTable)
    key = next(k for k, c in table.columns.items() if str(c.label) == column)
    return [table.get_cell(row, key) for row in table.rows]


async def test_no_color_marks_fail_flag_and_bands_without_colour(store: Store,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(store, REVIEWER)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, QueueScreen)
        fails = [c for c in _cells(app, "pass") if isinstance(c, Text) and c.plain == "fail"]
        bands = [c for c in _cells(app, "band") if isinstance(c, Text) and c.plain.strip() == "Low"]
        assert fails and bands
        assert {str(c.style) for c in fails} == {"bold"}  # was "red": dark grey on dark grey
        assert {str(c.style) for c in bands} == {"reverse"}  # was "black on red"
    assert palette.alarm() == "bold reverse"  # FLAG, a judge error, an escalation


async def test_with_colour_the_styles_are_as_they_were(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        fails = [c for c in _cells(app, "pass") if isinstance(c, Text) and c.plain == "fail"]
        assert fails and {str(c.style) for c in fails} == {"red"}
    assert palette.label("red") == "black on red" and palette.alarm() == "bold red"
