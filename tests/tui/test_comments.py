"""Comments on an item under Pilot, on a real SQLite store: `C` writes one (through the writer,
stored at once), later reviewers see it on the item screen with author and time, a blind session
hides others' comments until the judge is shown, and hostile text is shown as placeholders. On
the code before this lane `C` did nothing, no comment could be written, and the item screen had
no comment panel (``#item-comments`` did not exist)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

from reviewer.errors import UserError
from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.config import TuiSettings
from reviewer.tui.screens.comment import CommentDialog
from reviewer.tui.screens.help import HelpScreen
from tests.hostile.harness import EVERYTHING, raw_controls
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, next_pk, settle, start


def _panel(screen: Any) -> tuple[bool, str]:
    panel = screen.query_one("#item-comments", Static)
    return bool(panel.display), str(panel.render())


async def test_c_writes_a_comment_that_is_stored_and_shown_at_once(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        pk = screen.state.item_pk
        assert _panel(screen)[0] is False  # no comment yet: no panel
        await pilot.press("C")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, CommentDialog)
        await pilot.press("enter")  # empty: refused, the dialog stays
        await settle(app, pilot)
        assert app.screen_stack[-1] is dialog  # still on top
        await pilot.press(*"cites a retracted study")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is screen
        shown, text = _panel(screen)
        assert shown and f"{REVIEWER} · just now: cites a retracted study" in text
        assert not app.write_errors
    [c] = store.comments.comments([pk])[pk]
    assert (c.reviewer, c.text, c.revision) == (REVIEWER, "cites a retracted study", 1)


async def test_escape_writes_nothing(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        await pilot.press("C", *"never mind", "escape")
        await settle(app, pilot)
        assert app.screen is screen and _panel(screen)[0] is False
    assert store.comments.comments([screen.state.item_pk])[screen.state.item_pk] == []


async def test_a_later_reviewer_sees_the_comment_with_author_and_time_hostile_text_made_safe(store: Store) -> None:
    pk = next_pk(store)
    store.comments.add_comment(pk, "ana", "source is a blog " + EVERYTHING)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        assert screen.state.item_pk == pk
        shown, text = _panel(screen)
        assert shown and "comments (1)" in text and " ana · 20" in text and " UTC: source is a blog " in text
        assert raw_controls(EVERYTHING) and raw_controls(text) == []  # escapes shown as placeholders
        assert "␛]0;pwned␇" in text and "[link=http://evil.example]" in text  # markup shown, not read


async def test_a_blind_session_hides_others_comments_until_the_judge_is_shown(store: Store) -> None:
    """A comment can carry an opinion of the judge's scores: blind means blind."""
    pk = next_pk(store)
    store.comments.add_comment(pk, "ana", "the judge is far too lenient on accuracy")
    app = make_app(store, REVIEWER, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        assert screen.state.item_pk == pk and screen.state.judge_hidden
        shown, text = _panel(screen)
        assert not shown and "too lenient" not in text
        await pilot.press("C", *"my own note", "enter")  # one's own comment is always shown
        await settle(app, pilot)
        shown, text = _panel(screen)
        assert shown and "my own note" in text and "too lenient" not in text
        await pilot.press("v")  # the reveal: the judge is shown, and so are the comments
        await settle(app, pilot)
        shown, text = _panel(screen)
        assert shown and "comments (2)" in text and "too lenient" in text
    app = make_app(store, REVIEWER)  # not blind: shown from the start
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        assert "too lenient" in _panel(screen)[1]


async def test_the_comment_key_is_in_help_footer_and_keymap(store: Store) -> None:
    from textual.widgets import Footer

    app = make_app(store, REVIEWER, settings=TuiSettings(keymap={"item.comment": "o"}))
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        assert any(b.binding.id == "item.comment" and b.binding.key == "o" for b in screen.active_bindings.values())
        assert screen.query_one(Footer) is not None
        await pilot.press("o")
        await settle(app, pilot)
        assert isinstance(app.screen, CommentDialog)
        await pilot.press("escape", "question_mark")
        await settle(app, pilot)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        rows = help_screen.rows
        assert ("o", "comment", "item.comment") in rows
    with pytest.raises(UserError, match="'n' would be both item.next and item.comment"):
        make_app(store, REVIEWER, settings=TuiSettings(keymap={"item.comment": "n"}))


async def test_the_write_never_blocks_the_screen(store: Store) -> None:
    """The comment is on screen while its write still waits for the database (the writer's
    thread holds it here until released); it lands in the store once released."""
    import threading

    gate = threading.Event()
    real = store.comments.add_comment

    def slow(*args: Any, **kwargs: Any) -> int:
        assert gate.wait(10)
        return real(*args, **kwargs)

    store.comments.add_comment = slow  # type: ignore[method-assign]  # the gate holds the real write back
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        pk = screen.state.item_pk
        await pilot.press("C", *"held back", "enter")
        await pilot.pause()
        assert "held back" in _panel(screen)[1] and app.gateway.pending == 1
        assert store.comments.comments([pk])[pk] == []  # not in the store yet, and the UI went on
        await pilot.press("j")  # the screen still answers keys
        gate.set()
        await settle(app, pilot)
        assert app.gateway.pending == 0 and not app.write_errors
    assert [c.text for c in store.comments.comments([pk])[pk]] == ["held back"]
