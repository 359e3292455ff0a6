"""Span marks under Pilot, on a real SQLite store: ``x`` opens mark mode on the output as written,
motion keys (and the mouse) make the span, ``x``/enter stores it at once (the offsets index the
item's text: the stored substring is the one marked), escape stores nothing; the mark is drawn
on the output (segments carry the mark's style), beside a scored dimension the reason dialog
follows; a revised item shows its current revision's marks only. Before this lane ``x`` did
nothing on the item screen and there was no ``span_mark`` table."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from rich.style import Style

from reviewer.cli.queue_show import item_record
from reviewer.domain.marks import marked_source
from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.screens.item import ItemScreen
from reviewer.tui.screens.mark import MarkScreen
from reviewer.tui.screens.reason import ReasonDialog
from reviewer.tui.widgets.markdown import MARK_STYLE
from reviewer.tui.widgets.textview import TextView
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, focus, next_pk, open_item, settle, start

MARKED = Style.parse(MARK_STYLE)


def _marked_text(screen: ItemScreen) -> str:
    """The characters the output panel draws with the mark's style (from the segments painted)."""
    view = screen.query_one("#item-output", TextView)
    out = []
    for y in range(len(view.lines(view.content_size.width))):
        for seg in view.render_line(y):
            style = seg.style
            if style is not None and style.underline and style.bgcolor == MARKED.bgcolor:
                out.append(seg.text)
        out.append("\n")
    return re.sub(r"\s+", " ", "".join(out)).strip()


def _words(source: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"\w+", source)]


async def _mark(app: Any, pilot: Any, *keys: str) -> None:
    await pilot.press("x")
    await settle(app, pilot)
    assert isinstance(app.screen, MarkScreen)
    await pilot.press(*keys)
    await settle(app, pilot)


async def test_keys_make_a_mark_stored_at_its_offsets_and_drawn(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        state, dim = screen.state, screen.focused_dim.dim.id
        source = marked_source(state.output, state.conversation)
        w = _words(source)
        assert w[1][0] == w[0][1] + 1  # (one space between the first two words)
        # w: to the end of the first word; l l: past the space, to the second word's start;
        # space: the span starts there; w w: to the end of the fourth word (the one-letter second is
        # passed over: from its start, w goes to the end of the next word; x then ends it)
        await _mark(app, pilot, "w", "l", "l", "space", "w", "w")
        mark_screen = app.screen
        assert isinstance(mark_screen, MarkScreen) and mark_screen.span == (w[1][0], w[3][1])
        await pilot.press("x")
        await settle(app, pilot)
        assert app.screen is screen  # the dimension is not scored: no reason dialog
        assert not app.write_errors
        assert screen._marking == {}  # landed: its ticket is let go (kept only while it may be refused)
        [m] = store.marks.marks([state.item_pk])[state.item_pk]
        assert (m.start, m.end, m.dimension, m.reviewer, m.revision) == (w[1][0], w[3][1], dim, REVIEWER, 1)
        assert m.text == source[m.start:m.end] and m.score_pk is None
        assert _marked_text(screen) == re.sub(r"\s+", " ", m.text)  # rendered markdown: found by its text
        await pilot.press("m")  # as written: drawn at its offsets
        await settle(app, pilot)
        assert _marked_text(screen) == re.sub(r"\s+", " ", m.text)
    row = next(r for r in store.items.export_rows() if r["id"] == state.item_id)  # exported with the score
    assert [(e["start"], e["end"], e["text"], e["dimension"], e["author"], e["revision"]) for e in row["marks"]] == [
        (m.start, m.end, m.text, dim, REVIEWER, 1)]
    assert len(item_record(store, state.item_pk)["marks"]) == 1  # what queue show counts


async def test_lines_and_characters_move_the_cursor(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        await _mark(app, pilot, "l", "l", "h")
        mark_screen = app.screen
        assert isinstance(mark_screen, MarkScreen) and mark_screen.span == (0, 2)
        await pilot.press("down")
        await settle(app, pilot)
        view = mark_screen._view
        assert view.line_of(view.cursor) == 1 and mark_screen.cursor == view.starts()[1] + 1  # the column kept
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is screen
    [m] = store.marks.marks([screen.state.item_pk])[screen.state.item_pk]
    assert m.start == 0 and m.end == mark_screen.cursor + 1


async def test_escape_stores_nothing(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        await _mark(app, pilot, "w", "w", "escape")
        assert app.screen is screen and _marked_text(screen) == ""
    assert store.marks.marks([screen.state.item_pk])[screen.state.item_pk] == []


async def test_beside_a_scored_dimension_the_reason_follows(store: Store) -> None:
    """Scored first: the mark belongs to that score's row, and the reason dialog opens for it."""
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        pk, dim, index = screen.state.item_pk, screen.focused_dim.dim.id, screen.focus_index
        await pilot.press("3")
        await settle(app, pilot)
        await focus(pilot, screen, index)  # on the dimension just scored (the focus may have moved on)
        await _mark(app, pilot, "w", "enter")
        assert isinstance(app.screen, ReasonDialog)
        await pilot.press(*"the first word is wrong", "enter")
        await settle(app, pilot)
        assert app.screen_stack[-1] is screen and not app.write_errors
    [m] = store.marks.marks([pk])[pk]
    rows = [h for h in store.scores.human_rows(pk) if h.reviewer == REVIEWER and h.dimension == dim]
    assert m.dimension == dim and m.score_pk == rows[0].pk  # the score it was made beside
    assert rows[-1].reason == "the first word is wrong"


async def test_the_mouse_drags_a_span(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        source = marked_source(screen.state.output, screen.state.conversation)
        await pilot.press("x")
        await settle(app, pilot)
        await pilot.mouse_down("#mark-view", offset=(2, 0))
        await pilot.hover("#mark-view", offset=(6, 0))
        await pilot.mouse_up("#mark-view", offset=(6, 0))
        await settle(app, pilot)
        assert app.screen is screen
    [m] = store.marks.marks([screen.state.item_pk])[screen.state.item_pk]
    assert (m.start, m.end, m.text) == (2, 7, source[2:7])


async def test_a_revised_item_shows_only_the_current_revisions_marks(store: Store, tmp_path: Path) -> None:
    """A mark on revision 1 stays in the store as history; the revised text shows none of it,
    and a new mark is made on (and drawn on) revision 2."""
    pk = next_pk(store)
    view = store.items.item_view(pk)
    store.marks.add_mark(pk, store.rubrics.get_rubric(view.rubric_ref).dimensions[0].id, REVIEWER, 0,
                         len(view.output.split()[0]))
    src = tmp_path / "revised.jsonl"
    src.write_text(json.dumps({"id": view.item_id, "input": view.input, "output": "Entirely new wording here."}) + "\n")
    import_file(store, src, view.rubric_ref, dataset=view.dataset, update_existing=True)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_item(app, pilot, pk)
        assert screen.state.revision == 2
        assert [m.revision for m in screen.state.marks] == [1]  # kept, as history
        assert _marked_text(screen) == ""  # not drawn on the new text
        await _mark(app, pilot, "w", "w", "x")
        assert _marked_text(screen) == "Entirely new"
    assert [(m.revision, m.text) for m in store.marks.marks([pk])[pk]] == [
        (1, view.output.split()[0]), (2, "Entirely new")]


async def test_a_mark_after_control_characters_keeps_its_source_offsets(store: Store, tmp_path: Path) -> None:
    """Control characters show as placeholders longer than themselves (``⟨U+202E⟩``): the span on
    screen is mapped back, so the stored offsets index the text as written and its substring is
    the word marked; on the output as written the mark is drawn over that word alone."""
    output = "ok \u202e\x1b[2J then wrong claim"
    src = tmp_path / "hostile.jsonl"
    src.write_text(json.dumps({"id": "hostile-1", "input": "q", "output": output}) + "\n")
    import_file(store, src, "general-quality@1.0.0", dataset="hostile")
    pk = store.queue.queue_page("triage", search="hostile-1")[0].item_pk
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_item(app, pilot, pk)
        await pilot.press("m")  # as written
        await _mark(app, pilot, *["w"] * 4, "b", "space", "w", "x")
        [m] = store.marks.marks([pk])[pk]
        assert (m.start, m.end, m.text) == (output.index("wrong"), output.index("wrong") + 5, "wrong")
        assert _marked_text(screen) == "wrong"


async def test_a_mark_on_text_changed_meanwhile_is_refused_and_taken_off(store: Store, tmp_path: Path) -> None:
    """The item is revised while it is open: the mark made on the text read is refused by the
    store (its offsets index the old text), said in one line, and taken off the output."""
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        state = screen.state
        src = tmp_path / "changed.jsonl"
        src.write_text(json.dumps({"id": state.item_id, "input": state.input, "output": "Changed meanwhile."}) + "\n")
        import_file(store, src, state.rubric.ref, dataset=state.dataset, update_existing=True)
        await _mark(app, pilot, "w", "w", "x")
        await settle(app, pilot)
        assert len(app.write_errors) == 1 and "has changed since it was opened" in app.write_errors[0]
        assert "\n" not in app.write_errors[0]
        assert state.marks == [] and _marked_text(screen) == ""
    assert store.marks.marks([state.item_pk])[state.item_pk] == []


def _mask(screen: ItemScreen) -> str:
    """The output panel's first painted line with every character not drawn in the mark's style
    blanked: what is highlighted, and where."""
    view = screen.query_one("#item-output", TextView)
    out = []
    for seg in view.render_line(0):
        style = seg.style
        marked = style is not None and style.underline and style.bgcolor == MARKED.bgcolor
        out.append(seg.text if marked else " " * len(seg.text))
    return "".join(out).rstrip()


async def test_marks_of_one_two_and_three_characters_are_drawn_where_they_were_made(
        store: Store, tmp_path: Path) -> None:
    """A one-, two- and three-character mark shows highlighted on the rendered output and on the
    output as written — and where it was made only: ``a`` and ``is`` occur elsewhere in the text,
    left plain. (Before, the rendered view looked marks up by their text with the evidence's rule,
    which skips anything under four characters: none of the three was drawn.)"""
    output = "It is a city. Canberra is not Sydney."
    src = tmp_path / "short.jsonl"
    src.write_text(json.dumps({"id": "short-1", "input": "q", "output": output}) + "\n")
    import_file(store, src, "general-quality@1.0.0", dataset="short")
    pk = store.queue.queue_page("triage", search="short-1")[0].item_pk
    dim = store.rubrics.get_rubric("general-quality@1.0.0").dimensions[0].id
    spans = [(6, 7), (output.index("is", 10), output.index("is", 10) + 2), (output.index("not"), output.index("not") + 3)]
    for a, b in spans:
        store.marks.add_mark(pk, dim, REVIEWER, a, b)
    expected = "".join(c if any(a <= i < b for a, b in spans) else " " for i, c in enumerate(output)).rstrip()
    assert expected.split() == ["a", "is", "not"]
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_item(app, pilot, pk)
        assert _mask(screen).strip() == expected.strip()  # rendered markdown
        offset = _mask(screen).index("a") - 6
        assert _mask(screen) == " " * offset + expected  # in place: the second "is", not the first
        await pilot.press("m")  # as written
        await settle(app, pilot)
        assert _mask(screen) == " " * offset + expected
