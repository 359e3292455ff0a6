"""Corrected answers under Pilot, on a real SQLite store: ``e`` opens an editor holding the
output; ``ctrl+s`` stores the correction (author, revision) through the writer and the item screen
shows it as a diff against the output at once; a save identical to the output or to one's last
correction stores nothing and says so; escape writes nothing; a blind session shows only one's
own; hostile text never reaches the terminal raw, in the editor or in the panel."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

from reviewer.errors import UserError
from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.config import TuiSettings
from reviewer.tui.screens.correction import CorrectionEditor, SafeTextArea
from reviewer.tui.screens.help import HelpScreen
from reviewer.tui.screens.item import ItemScreen
from tests.hostile.harness import EVERYTHING, raw_controls
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, next_pk, settle, start


def _panel(screen: Any) -> tuple[bool, str]:
    panel = screen.query_one("#item-correction", Static)
    return bool(panel.display), str(panel.render())


async def _edit(app: Any, pilot: Any, *keys: str) -> CorrectionEditor:
    """Open the editor with ``e`` and type ``keys`` at the end of the text."""
    await pilot.press("e")
    await settle(app, pilot)
    editor = app.screen
    assert isinstance(editor, CorrectionEditor)
    area = editor.query_one(SafeTextArea)
    area.move_cursor(area.document.end)
    await pilot.press(*keys)
    return editor


async def test_e_stores_a_correction_with_author_and_revision_and_shows_it_as_a_diff(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        pk, output = screen.state.item_pk, screen.state.output
        assert _panel(screen)[0] is False  # no correction yet: no panel
        editor = await _edit(app, pilot, "enter", *"Sources: WHO, 2024?", "backspace", ".")
        assert editor.query_one(SafeTextArea).text == output + "\nSources: WHO, 2024."  # prefilled with the output
        assert app.screen_stack[-1] is editor  # "?" was typed, not help opened
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is screen
        shown, text = _panel(screen)
        assert shown and f"corrected answer (1) {REVIEWER} · just now" in text
        assert "+ Sources: WHO, 2024." in text  # the added line, marked
        first = output.splitlines()[0]
        assert f"  {first}" in text and f"- {first}" not in text  # unchanged lines kept, unmarked
        assert not app.write_errors
    [c] = store.corrections.corrections([pk])[pk]
    assert (c.reviewer, c.revision, c.text) == (REVIEWER, 1, output + "\nSources: WHO, 2024.")
    assert c.created_at is not None


async def test_a_save_identical_to_the_output_or_to_ones_last_correction_stores_nothing(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        pk = screen.state.item_pk
        await _edit(app, pilot)  # untouched
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is screen and _panel(screen)[0] is False
        assert any("same as the output: nothing stored" in str(n.message) for n in app._notifications)
        await _edit(app, pilot, *" (fixed)")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await _edit(app, pilot)  # opens on the output again: make it the last correction
        area = app.screen.query_one(SafeTextArea)
        area.text = store.corrections.corrections([pk])[pk][-1].text
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert any("same as your last correction: nothing stored" in str(n.message) for n in app._notifications)
        await _edit(app, pilot)
        app.screen.query_one(SafeTextArea).text = " \n "  # emptied: refused in the editor, which stays
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, CorrectionEditor)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen and not app.write_errors
    assert [c.text.endswith(" (fixed)") for c in store.corrections.corrections([pk])[pk]] == [True]
    # the store applies the same rule, whoever calls it
    item_output = screen.state.output
    assert store.corrections.add_correction(pk, REVIEWER, item_output) is None
    assert store.corrections.add_correction(pk, REVIEWER, item_output + " (fixed)") is None
    assert len(store.corrections.corrections([pk])[pk]) == 1


async def test_escape_writes_nothing(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        await _edit(app, pilot, *"never mind")
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen and _panel(screen)[0] is False
    assert store.corrections.corrections([screen.state.item_pk])[screen.state.item_pk] == []


async def test_a_later_reviewer_sees_it_blind_sessions_only_their_own_hostile_text_made_safe(store: Store) -> None:
    pk = next_pk(store)
    with store.db.read() as conn:
        from sqlalchemy import text as sql

        output = str(conn.execute(sql("SELECT output FROM item WHERE pk = :pk"), {"pk": pk}).scalar_one())
    store.corrections.add_correction(pk, "ana", output + "\nsee " + EVERYTHING)
    app = make_app(store, REVIEWER, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        assert screen.state.item_pk == pk and screen.state.judge_hidden
        assert _panel(screen)[0] is False  # blind: ana's correction is an opinion of the output
        await pilot.press("v")
        await settle(app, pilot)
        shown, text = _panel(screen)
        assert shown and "corrected answer (1) ana · 20" in text and "+ see " in text
        assert raw_controls(EVERYTHING) and raw_controls(text) == []
        assert "␛]0;pwned␇" in text and "[link=http://evil.example]" in text  # markup shown, not read


async def test_the_editor_never_hands_the_terminal_a_control_character(store: Store) -> None:
    """The output under review is hostile: the editor holds it with its unsafe characters as
    placeholders, and draws what is typed or pasted through the same rule."""
    pk = next_pk(store)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        assert screen.state.item_pk == pk
        screen.state.output = "fine \x1b]0;pwned\x07 text \u202eevil"
        editor = await _edit(app, pilot)
        area = editor.query_one(SafeTextArea)
        assert area.text == "fine ␛]0;pwned␇ text ⟨U+202E⟩evil"
        area.insert("\x1b[2J pasted")
        await pilot.pause()
        drawn = "".join(seg.text for y in range(3) for seg in area.render_line(y))
        assert "␛[2J pasted" in drawn and raw_controls(drawn) == []
        await pilot.press("escape")
        await settle(app, pilot)
        await _edit(app, pilot)  # the editor as it opened: unchanged, though it differs from the raw output
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert any("same as the output: nothing stored" in str(n.message) for n in app._notifications)
    assert store.corrections.corrections([pk])[pk] == []


async def test_the_correction_key_is_in_help_and_keymap(store: Store) -> None:
    app = make_app(store, REVIEWER, settings=TuiSettings(keymap={"item.correct": "E"}))
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        await pilot.press("E")
        await settle(app, pilot)
        editor = app.screen
        assert isinstance(editor, CorrectionEditor)
        keys = {b.binding.id: b.binding.key for b in editor.active_bindings.values()}
        assert keys["correction.save"] == "ctrl+s" and keys["correction.cancel"] == "escape"
        await pilot.press("escape", "question_mark")
        await settle(app, pilot)
        assert app.screen is not screen and isinstance(app.screen, HelpScreen)
        assert ("E", "correct answer", "item.correct") in app.screen.rows
    with pytest.raises(UserError, match="'n' would be both item.next and item.correct"):
        make_app(store, REVIEWER, settings=TuiSettings(keymap={"item.correct": "n"}))


async def test_the_write_never_blocks_the_screen(store: Store) -> None:
    """The correction is on screen while its write still waits for the database (the writer's
    thread holds it here until released); it lands in the store once released."""
    import threading

    gate = threading.Event()
    real = store.corrections.add_correction

    def slow(*args: Any, **kwargs: Any) -> int | None:
        assert gate.wait(10)
        return real(*args, **kwargs)

    store.corrections.add_correction = slow  # type: ignore[method-assign]  # the gate holds the real write back
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        pk = screen.state.item_pk
        await _edit(app, pilot, *" held back")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "held back" in _panel(screen)[1] and app.gateway.pending == 1
        assert store.corrections.corrections([pk])[pk] == []  # not in the store yet, and the UI went on
        await pilot.press("j")
        gate.set()
        await settle(app, pilot)
        assert app.gateway.pending == 0 and not app.write_errors
    assert [c.text.endswith(" held back") for c in store.corrections.corrections([pk])[pk]] == [True]


async def test_a_correction_of_earlier_content_is_shown_as_written_not_diffed_against_the_new(
        store: Store, tmp_path: Any) -> None:
    import json

    from reviewer.services.importing import import_file

    pk = next_pk(store)
    with store.db.read() as conn:
        from sqlalchemy import text as sql

        item_id, dataset, ref = conn.execute(sql("SELECT item_id, dataset, rubric_ref FROM item WHERE pk = :pk"),
                                             {"pk": pk}).one()
    store.corrections.add_correction(pk, "ana", "the first text, corrected")
    src = tmp_path / "new.jsonl"
    src.write_text(json.dumps({"id": item_id, "output": "an entirely new answer"}) + "\n")
    import_file(store, src, ref, dataset=dataset, update_existing=True)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.open_item(pk)  # (its new content moved it in the queue's order)
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ItemScreen)
        assert screen.state.item_pk == pk and screen.state.revision == 2
        shown, text = _panel(screen)
        assert shown and "(of earlier content: as written)" in text and "the first text, corrected" in text
        assert "- an entirely new answer" not in text and "+ " not in text



async def test_a_line_left_as_it_was_is_unchanged_in_the_diff_though_it_holds_a_control_character(
        store: Store) -> None:
    """The editor opens with the output's unsafe characters as placeholders, so a line kept as it
    was holds the placeholder, not the raw character: the diff compares the output as shown."""
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        screen.state.output = "first \x1b[31mred\x1b[0m line\nsecond line"
        await _edit(app, pilot, "enter", *"third line")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        shown, text = _panel(screen)
        assert shown and "+ third line" in text
        assert "  first ␛[31mred␛[0m line" in text and "- first" not in text and "+ first" not in text
        assert raw_controls(text) == [] and not app.write_errors


async def test_a_line_drawn_with_placeholders_keeps_the_editors_width(store: Store) -> None:
    """A placeholder is wider than the character it stands for: a line of pasted controls is still
    drawn exactly as wide as the editor (never past its edge)."""
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        screen.state.output = "ok"
        editor = await _edit(app, pilot)
        area = editor.query_one(SafeTextArea)
        area.insert("\u202e\u2066\u200b" * 40)  # each drawn as a many-cell placeholder
        await pilot.pause()
        widths = {area.render_line(y).cell_length for y in range(3)}
        assert widths == {area.size.width}
