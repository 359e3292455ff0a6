"""Keys and 80×24. On the code before: the footer at 80 columns hid undo, reveal, help and quit;
help was clipped; quick tags needed F2–F6; a typo'd binding id was ignored; remapping agree onto
`n` silently removed "next" and help still showed the defaults; context opened only with an
undocumented tab, after which enter toggled it instead of agreeing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Collapsible
from textual.widgets._footer import FooterKey

from reviewer.errors import UserError
from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.config import TuiSettings
from reviewer.tui.screens.help import HelpScreen
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import focus, mine, settle, start

SMALL = (80, 24)
ROOT = Path(__file__).resolve().parents[2]


def footer_keys(app: App[Any]) -> dict[str, int]:
    """Each footer key's description and the column where it ends."""
    screen = app.screen
    return {k.description: k.region.right for k in screen.query(FooterKey) if k.region.width}


async def test_the_footer_at_80_columns_shows_the_keys_that_matter(store: Store) -> None:
    app = make_app(store, REVIEWER, blind=True)
    async with app.run_test(size=SMALL) as pilot:
        await start(app, pilot)
        shown = {d for d, right in footer_keys(app).items() if right <= SMALL[0]}
        assert {"help", "quit", "agree", "undo", "next", "reason", "reveal"} <= shown


async def test_help_scrolls_and_shows_the_keys_in_force(store: Store) -> None:
    app = make_app(store, REVIEWER, settings=TuiSettings(keymap={"item.agree": "a"}))
    async with app.run_test(size=SMALL) as pilot:
        await start(app, pilot)
        await pilot.press("question_mark")
        await settle(app, pilot)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert ("a", "agree", "item.agree") in help_screen.rows  # was "enter": the default
        box = help_screen.query_one("#help-box")
        assert box.region.right <= SMALL[0] and box.max_scroll_y > 0
        await pilot.press("j", "j", "j")
        await settle(app, pilot)
        assert box.scroll_y > 0


def test_unknown_binding_ids_and_conflicting_keys_are_refused(store: Store) -> None:
    with pytest.raises(UserError, match=r"config.yaml: keymap: unknown binding id 'item.agre'"):
        make_app(store, REVIEWER, settings=TuiSettings(keymap={"item.agre": "a"}))
    with pytest.raises(UserError, match=r"'n' would be both item.agree and item.next on the item screen"):
        make_app(store, REVIEWER, settings=TuiSettings(keymap={"item.agree": "n"}))
    make_app(store, REVIEWER, settings=TuiSettings(keymap={"item.agree": "n", "item.next": "right_square_bracket"}))


def test_the_keymap_file_is_documented_where_people_look() -> None:
    from typer.testing import CliRunner

    from reviewer.cli import _register, app

    _register()
    out = CliRunner().invoke(app, ["review", "--help"], env={"COLUMNS": "200"}).output
    assert "config.yaml" in out and "RUBRICATE_CONFIG" in out and "keymap" in out
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "keymap" in readme and "~/.config/rubricate/config.yaml" in readme


async def test_quick_tags_need_no_function_keys(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SMALL) as pilot:
        screen = await start(app, pilot)
        await pilot.press("1")
        await focus(pilot, screen, 0)
        await pilot.press("r")
        await settle(app, pilot)
        await pilot.press("tab", "3", "tab", *"wrong", "enter")
        await settle(app, pilot)
    rows = [h for h in store.scores.human_rows(screen.state.item_pk) if h.reviewer == REVIEWER]
    assert (rows[-1].reason, rows[-1].tags) == ("wrong", ["judge_too_lenient"])


async def test_context_has_a_key_and_enter_still_agrees(store: Store) -> None:
    app = make_app(store, REVIEWER, rubric_ref=store.rubrics.get_rubric("rag-answer").ref)  # the bundled version
    async with app.run_test(size=(130, 42)) as pilot:
        screen = await start(app, pilot)
        assert screen.state.context
        await pilot.press("tab")  # the old way in: focus lands on the panel's title
        await pilot.press("c")
        await settle(app, pilot)
        assert not screen.query_one(Collapsible).collapsed
        d = screen.focused_dim
        assert d.judge_score is not None
        await pilot.press("enter")
        await settle(app, pilot)
        assert not screen.query_one(Collapsible).collapsed  # enter agreed, it did not fold the panel
        assert d.my_score == d.judge_score
    assert mine(store, screen.state.item_pk)[-1] == (d.dim.id, d.judge_score, "agree")


async def test_colon_jumps_to_an_item_id(store: Store) -> None:
    from reviewer.tui.screens.item import ItemScreen

    app = make_app(store, REVIEWER)
    async with app.run_test(size=(130, 42)) as pilot:
        await settle(app, pilot)
        await pilot.press("colon")
        await settle(app, pilot)
        await pilot.press(*"rag-012", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen) and app.screen.state.item_id == "rag-012"
        await pilot.press("colon")  # from an item too
        await settle(app, pilot)
        await pilot.press(*"gq-003", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen) and app.screen.state.item_id == "gq-003"


BAD_KEYS = [
    ("notakey!!", "'notakey!!' is not a key name"),
    ("!", "write exclamation_mark"),
    ("ctrl+?", "write ctrl+question_mark"),
    ("cmd+a", "'cmd' is not a modifier"),
    ("", "no key given"),
    ("enter,,a", "an empty key between commas"),
]


@pytest.mark.parametrize(("keys", "said"), BAD_KEYS, ids=[k or "empty" for k, _ in BAD_KEYS])
def test_a_key_name_no_key_press_arrives_as_is_refused_at_its_line(keys: str, said: str, tmp_path: Path,
                                                                 store: Store) -> None:
    """A keymap value is checked for key names, at its line (before: accepted, and the binding
    answered to nothing); the app refuses one handed in directly too."""
    from reviewer.tui.config import load_settings

    path = tmp_path / "config.yaml"
    path.write_text(f"lease_minutes: 15\nkeymap:\n  item.next: n\n  item.agree: {keys!r}\n")
    with pytest.raises(UserError) as exc:
        load_settings(path)
    assert str(exc.value).startswith(f"{path}:4: keymap.item.agree: ") and said in str(exc.value)
    assert "\n" not in str(exc.value)
    with pytest.raises(UserError, match=r"config.yaml: keymap.item.agree: "):
        make_app(store, REVIEWER, settings=TuiSettings(keymap={"item.agree": keys}))


def test_key_names_that_arrive_are_accepted_and_spaces_dropped(tmp_path: Path) -> None:
    from reviewer.tui.config import load_settings

    path = tmp_path / "config.yaml"
    path.write_text("keymap:\n  item.agree: ' enter , A '\n  item.next: ctrl+right_square_bracket\n"
                    "  item.jump: exclamation_mark\n")
    assert load_settings(path).keymap == {"item.agree": "enter,A", "item.next": "ctrl+right_square_bracket",
                                          "item.jump": "exclamation_mark"}


async def test_the_key_name_refused_would_have_left_no_agree_key(store: Store) -> None:
    """What the check prevents, shown on the app built without it: agree answers to no key."""
    from reviewer.tui.app import ReviewApp, Session

    app = ReviewApp(store, Session(REVIEWER), TuiSettings(keymap={"item.agree": "notakey!!"}))
    async with app.run_test(size=SMALL) as pilot:
        screen = await start(app, pilot)
        await pilot.press("enter", "a")
        await settle(app, pilot)
        assert all(d.my_score is None for d in screen.state.dims)
