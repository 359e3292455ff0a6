"""A long text that costs only the lines on screen: the output and chat panels.

A ``Static`` wraps and renders its whole text whenever it changes — for a 50 KB output that is
a quarter of a second of the UI thread per item or per ``m``. :class:`TextView` renders a line
only when the scroll container shows it (Textual's line API: the compositor asks for the visible
lines alone), and takes its text's wrapped lines from :func:`wrapped`, a cache the app's workers
fill ahead (:func:`prewrap`, at the widths the panels had), so the UI thread neither wraps nor
renders what is off screen. It is a ``Static`` in every other respect (``update``, ``content``),
and shows only a Rich ``Text`` — never markup.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.text import Text
from textual.geometry import Size
from textual.strip import Strip
from textual.widgets import Static

from reviewer.tui.widgets.put import same_text

#: (id of a text, width) → (the text, kept alive so the id stays its own; its wrapped lines)
_WRAPS: OrderedDict[tuple[int, int], tuple[Text, list[Text]]] = OrderedDict()
_LOCK = threading.Lock()
#: the widths panels were last wrapped to (a scroll container asks with and without its
#: scrollbar): where the workers wrap ahead
_WIDTHS: list[int] = []
_CONSOLE = Console(width=200, color_system=None, force_terminal=False)


def wrap(text: Text, width: int) -> list[Text]:
    """``text`` wrapped to ``width`` cells, as Rich wraps it (a line that fits is kept whole)."""
    out: list[Text] = []
    for line in text.split("\n", allow_blank=True):
        plain = line.plain
        if "\t" not in plain and cell_len(plain) <= width:
            out.append(line)
        else:
            parts = list(line.wrap(_CONSOLE, width, overflow="fold"))
            for part in parts[:-1]:
                part.rstrip()  # the space a line was broken at is not shown (nor highlighted)
            out.extend(parts)
    return out


def wrapped(text: Text, width: int, remember: bool = True) -> list[Text]:
    """``text``'s lines at ``width`` (cached: the text must not change afterwards)."""
    key = (id(text), width)
    with _LOCK:
        hit = _WRAPS.get(key)
        if hit is not None and hit[0] is text:
            _WRAPS.move_to_end(key)
            return hit[1]
        if remember and width not in _WIDTHS:
            _WIDTHS.append(width)
            del _WIDTHS[:-4]
    lines = wrap(text, width)
    with _LOCK:
        _WRAPS[key] = (text, lines)
        while len(_WRAPS) > 24:
            _WRAPS.popitem(last=False)
    return lines


def prewrap(*texts: Text) -> None:
    """Wrap ``texts`` ahead at the widths the panels last had (called off the UI thread)."""
    with _LOCK:
        widths = list(_WIDTHS)
    for text in texts:
        for width in widths:
            wrapped(text, width, remember=False)


class TextView(Static):
    """A ``Static`` for a (possibly very long) Rich ``Text``, wrapped to its width."""

    def __init__(self, text: Text, **kwargs: Any) -> None:
        super().__init__(text, **kwargs)
        self._text = text

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        """Show ``content`` (a ``Text``; anything else is shown as its plain string). Unlike a
        ``Static``, nothing is converted or rendered here: lines are, when they are shown. The
        same text again costs nothing, and a text of the same height no layout of the screen."""
        text = content if isinstance(content, Text) else Text(str(content))
        if same_text(text, self._text):
            return
        self._text = text
        width, height = self.content_size
        if layout and width and self.display and (self.styles.height is None or self.styles.height.is_auto):
            layout = len(self.lines(width)) != height  # (the lines the next paint takes, cached)
        self.refresh(layout=layout)

    @property
    def content(self) -> Text:
        """The text shown."""
        return self._text

    @content.setter
    def content(self, content: Any) -> None:
        self.update(content)

    def render(self) -> Text:
        """The text shown (what the compositor paints comes from :meth:`render_line`)."""
        return self._text

    def lines(self, width: int) -> list[Text]:
        """The text wrapped to ``width`` cells."""
        return wrapped(self._text, max(width, 1))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width)) if width else 0

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        style = self.rich_style
        lines = self.lines(width)
        if y >= len(lines):
            return Strip.blank(width, style)
        segments = Segment.apply_style(lines[y].render(self.app.console, end=""), style)
        return Strip(segments).crop_extend(0, width, style)
