"""Mark mode (the item screen's ``x``): a cursor in the output as written, a span from where the
mark started to the cursor, ended with ``x`` or enter, given up with escape.

The text is shown as written (``safe``: a control character is a visible placeholder) with the
reviewer's earlier marks on it, so the span on screen is the span stored: offsets are counted in
the source text (:mod:`reviewer.domain.marks`), and mapped to the text as shown only to draw.
Motion keys move the cursor — by character (left/right, ``h``/``l``), by word (ctrl+left/right,
``w``/``b``), by line as wrapped on screen (up/down, ``j``/``k``) — and the span always runs from
its start to the character under the cursor, both included; ``space`` starts it again at the
cursor. The mouse: press, drag and release over the text selects a span and ends the mark.

The screen dismisses with ``(start, end)`` in source offsets, or None (escape).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Static

from reviewer.safetext import safe, safe_line
from reviewer.tui.messages import MarkTextReady
from reviewer.tui.screens.deferred import deferred
from reviewer.tui.screens.footer import AppKeysFirst, footer
from reviewer.tui.widgets.markdown import body
from reviewer.tui.widgets.textview import TextView, prewrap

#: the span being marked, and the cursor (its last character) on top of it
SPAN_STYLE = "reverse"
CURSOR_STYLE = "bold reverse underline"
_WORD = re.compile(r"\w+", re.UNICODE)


def shown_offsets(source: str) -> list[int]:
    """For each offset ``i`` into ``source`` (and its end), the offset into ``safe(source)``.
    (Every character shows as one or more: when the lengths agree, each shows as one.)"""
    if len(safe(source)) == len(source):
        return list(range(len(source) + 1))
    out = [0]
    for ch in source:
        out.append(out[-1] + len(safe(ch)))
    return out


def line_starts(plain: str, lines: list[Text]) -> list[int]:
    """Where each wrapped line of ``plain`` starts in it (the wrap drops the newline that ends a
    line and the spaces a line was broken at: a line is looked for from where the last ended)."""
    starts: list[int] = []
    pos = 0
    for line in lines:
        part = line.plain
        at = plain.find(part, pos) if part else pos
        at = pos if at < 0 else at
        starts.append(at)
        pos = at + len(part)
        if plain[pos:pos + 1] == "\n":
            pos += 1
    return starts


class MarkView(TextView):
    """The output as written, with the span being marked and the cursor drawn over the lines on
    screen (a style over the line's characters; the text itself is never changed or re-wrapped)."""

    def __init__(self, text: Text, **kwargs: Any) -> None:
        super().__init__(text, **kwargs)
        #: the span and the cursor, in offsets into the text as shown
        self.span = (0, 1)
        self.cursor = 0
        #: whether the text is the one marked (not yet: a placeholder while it is prepared)
        self.marking = False
        self._starts: tuple[int, list[int]] | None = None

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        """Show ``content``; the line starts are found again for it."""
        self._starts = None
        super().update(content, layout=layout)

    def starts(self) -> list[int]:
        """Where each wrapped line starts, at the current width (cached per width)."""
        width = max(self.content_size.width, 1)
        if self._starts is None or self._starts[0] != width:
            self._starts = (width, line_starts(self.content.plain, self.lines(width)))
        return self._starts[1]

    def line_of(self, offset: int) -> int:
        """The wrapped line an offset into the shown text is on."""
        return max(bisect_right(self.starts(), offset) - 1, 0)

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        lines = self.lines(width)
        if y >= len(lines) or not self.marking:
            return super().render_line(y)
        start = self.starts()[y]
        line = lines[y].copy()
        end = start + len(line.plain)
        a, b = max(self.span[0], start), min(self.span[1], end)
        if a < b:
            line.stylize(SPAN_STYLE, a - start, b - start)
        if start <= self.cursor < end:
            line.stylize(CURSOR_STYLE, self.cursor - start, self.cursor - start + 1)
        elif self.cursor == end and self.line_of(self.cursor) == y:  # on the line's newline: a block after it
            line.append(" ", style=CURSOR_STYLE)
        segments = line.render(self.app.console, end="")
        return Strip(Segment.apply_style(segments, self.rich_style)).crop_extend(0, width, self.rich_style)

    def offset_at(self, x: int, y: int) -> int:
        """The offset into the shown text of the character at content cell ``(x, y)``."""
        lines = self.lines(max(self.content_size.width, 1))
        if not lines:
            return 0
        row = min(max(y, 0), len(lines) - 1)
        plain = lines[row].plain
        cells, col = 0, 0
        while col < len(plain) and cells + cell_len(plain[col]) <= x:
            cells += cell_len(plain[col])
            col += 1
        return self.starts()[row] + min(col, max(len(plain) - 1, 0))


class MarkScroll(VerticalScroll, can_focus=False):
    """The text's scroll: never focused, so the arrow keys move the cursor, not the view."""


class MarkScreen(AppKeysFirst, Screen[tuple[int, int] | None]):
    """Mark a span of ``source`` (the text under review) beside ``dimension``; ``marks``: the
    reviewer's earlier marks on it, drawn as in the item screen."""

    BINDINGS = [
        Binding("x,enter", "end", "end mark", id="mark.end", priority=True),
        Binding("escape", "cancel", "cancel", id="mark.cancel"),
        Binding("space", "anchor", "start here", id="mark.anchor"),
        Binding("w,ctrl+right", "word(1)", "word", id="mark.next_word"),
        Binding("b,ctrl+left", "word(-1)", "word back", show=False, id="mark.previous_word"),
        Binding("l,right", "char(1)", "char", show=False, id="mark.next_char"),
        Binding("h,left", "char(-1)", "char back", show=False, id="mark.previous_char"),
        Binding("j,down", "line(1)", "line", show=False, id="mark.next_line"),
        Binding("k,up", "line(-1)", "line up", show=False, id="mark.previous_line"),
    ]

    def __init__(self, item_id: str, dimension: str, source: str, marks: tuple[tuple[int, int], ...] = ()) -> None:
        super().__init__()
        self.item_id, self.dimension, self.source = item_id, dimension, source
        self.marks = marks
        #: each source offset's offset into the text as shown (prepared in a worker: None till then)
        self._shown: list[int] | None = None
        #: the span's start and the cursor, in source offsets (the cursor's character is in the span)
        self.start_at = 0
        self.cursor = 0
        self._dragging = False
        #: the words' first and last characters, in source offsets (found on the first word move)
        self._words: tuple[list[int], list[int]] | None = None

    def compose(self) -> ComposeResult:
        title = Text.assemble((" mark ", "bold reverse"), (safe_line(f"  {self.item_id} · {self.dimension}"), "bold"),
                              ("   space starts the span at the cursor · x or enter ends it · escape cancels", "dim"))
        yield Static(title, id="mark-title")
        with MarkScroll(id="mark-scroll", classes="panel"):
            yield MarkView(Text(f"preparing {len(self.source)} characters to mark…", style="dim"), id="mark-view")
        yield Static(id="mark-span")
        yield footer()

    def on_mount(self) -> None:
        self._view = self.query_one("#mark-view", MarkView)
        self._scroll = self.query_one("#mark-scroll", MarkScroll)
        self._scroll.border_title = "output · as written"
        self._prepare(self.source, self.marks)

    @work(thread=True, exclusive=True, group="mark-text")
    def _prepare(self, source: str, marks: tuple[tuple[int, int], ...]) -> None:
        """The offset map and the text as shown with the earlier marks, made here, off the UI
        thread (pure; about 50 ms at the 2,000-line bound), and wrapped ahead at the panels' widths.
        Keys pressed meanwhile move the cursor in the source; the screen draws it once ready."""
        text = body(source, True, (), marks)
        prewrap(text)
        self.post_message(MarkTextReady(shown_offsets(source), text))

    def on_mark_text_ready(self, message: MarkTextReady) -> None:
        self._shown = message.shown
        self._view.marking = True
        self._view.update(message.text)
        self._show()

    # --- the span ---------------------------------------------------------------------------
    @property
    def span(self) -> tuple[int, int]:
        """The span in source offsets: from its start to the cursor's character, both included."""
        if not self.source:
            return (0, 0)
        a, b = sorted((self.start_at, self.cursor))
        return a, min(b + 1, len(self.source))

    def _show(self) -> None:
        a, b = self.span
        view, shown = self._view, self._shown
        if shown is not None:  # (not yet: the span and cursor are drawn once the text is ready)
            view.span = (shown[a], shown[b])
            view.cursor = shown[self.cursor] if self.source else 0
            view.refresh()
        said = self.source[a:b]
        info = Text(f"{b - a} character{'s' if b - a != 1 else ''} ({a}–{b}): ", style="dim")
        info.append(safe_line(said if len(said) <= 200 else said[:200] + "…"))
        self.query_one("#mark-span", Static).update(info)
        self.call_after_refresh(self._keep_in_view)

    @deferred
    def _keep_in_view(self) -> None:
        if self._shown is None:
            return
        line = self._view.line_of(self._view.cursor)
        top, height = int(self._scroll.scroll_y), self._scroll.scrollable_content_region.height
        if line < top:
            self._scroll.scroll_to(y=line, animate=False)
        elif height and line >= top + height:
            self._scroll.scroll_to(y=line - height + 1, animate=False)

    def _to(self, offset: int) -> None:
        self.cursor = min(max(offset, 0), max(len(self.source) - 1, 0))
        self._show()

    # --- keys -------------------------------------------------------------------------------
    def action_char(self, step: int) -> None:
        """Move the cursor a character."""
        self._to(self.cursor + step)

    def action_word(self, step: int) -> None:
        """Move the cursor to the end of this or the next word (``w``), or the start of this or
        the previous one (``b``): the span grows a word at a time, whole words included."""
        if self._words is None:  # found once per mark, on the first word move
            found = [(m.start(), m.end() - 1) for m in _WORD.finditer(self.source)]
            self._words = ([a for a, _ in found], [b for _, b in found])
        begins, lasts = self._words
        if step > 0:
            i = bisect_right(lasts, self.cursor)
            self._to(lasts[i] if i < len(lasts) else len(self.source) - 1)
        else:
            i = bisect_left(begins, self.cursor)
            self._to(begins[i - 1] if i else 0)

    def action_line(self, step: int) -> None:
        """Move the cursor a line as wrapped on screen, keeping its column where the line allows
        (none before the text is ready: its lines are not known yet)."""
        view = self._view
        if self._shown is None:
            return
        starts = view.starts()
        here = view.line_of(view.cursor)
        there = min(max(here + step, 0), len(starts) - 1)
        column = view.cursor - starts[here]
        end = starts[there + 1] if there + 1 < len(starts) else len(view.content.plain)
        self._to(self._source_offset(min(starts[there] + column, max(end - 1, starts[there]))))

    def action_anchor(self) -> None:
        """Start the span again at the cursor."""
        self.start_at = self.cursor
        self._show()

    def action_end(self) -> None:
        """End the mark: the span is handed back (stored by the item screen)."""
        a, b = self.span
        self.dismiss((a, b) if b > a else None)

    def action_cancel(self) -> None:
        """Give the mark up: nothing is stored."""
        self.dismiss(None)

    def _source_offset(self, shown: int) -> int:
        """The source offset of the character at ``shown`` in the text as shown (the text is ready)."""
        assert self._shown is not None, "offsets in the text as shown are taken once it is shown"
        return max(bisect_right(self._shown, shown) - 1, 0)

    # --- the mouse --------------------------------------------------------------------------
    def _mouse_offset(self, event: events.MouseEvent, inside: bool = False) -> int | None:
        """The source offset under the mouse (the view's nearest character while dragging past
        its edge); None outside the text when ``inside``. (The screen holds the mouse while a
        span is dragged: offsets are taken from the screen's, not the receiving widget's.)"""
        view = self._view
        if self._shown is None:
            return None  # the text is not drawn yet: nothing under the mouse
        region = view.content_region
        if inside and not region.contains_point(event.screen_offset):
            return None
        at = event.screen_offset - region.offset
        return self._source_offset(view.offset_at(at.x, at.y))

    def on_mouse_down(self, event: events.MouseDown) -> None:
        at = self._mouse_offset(event, inside=True)
        if at is not None and self.source:
            self._dragging = True
            self.start_at = min(at, len(self.source) - 1)
            self._to(at)
            self.capture_mouse()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._dragging:
            at = self._mouse_offset(event)
            if at is not None:
                self._to(at)

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._dragging:
            self._dragging = False
            self.release_mouse()
            at = self._mouse_offset(event)
            if at is not None:
                self._to(at)
            self.action_end()
