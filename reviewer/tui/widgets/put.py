"""Putting new text into a widget at the least cost to the UI thread.

``Static.update`` repaints the widget and asks for a layout of the whole screen (every widget
placed again, then every line of the screen painted over). Going to the next item changes the
text of a dozen widgets, most of them to text of the same height, several to the very same text
(the rubric's anchors, a panel hidden on both items). :func:`put` compares first: the same text
costs nothing, text of the same height a repaint of that widget alone, and only a change of
height a layout.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static


def same_text(a: object, b: object) -> bool:
    """Whether two texts (or groups of texts) show the same: characters, styled spans and each
    text's own settings (``Text.__eq__`` looks at the characters and spans alone)."""
    if a is b:
        return True
    if isinstance(a, Group) and isinstance(b, Group):
        return len(a.renderables) == len(b.renderables) and all(
            same_text(x, y) for x, y in zip(a.renderables, b.renderables, strict=True))
    if not isinstance(a, Text) or not isinstance(b, Text):
        return False
    return (len(a) == len(b) and a.style == b.style and a.justify == b.justify and a.overflow == b.overflow
            and a.no_wrap == b.no_wrap and a.end == b.end and a.tab_size == b.tab_size and a == b)


def put(widget: Static, text: Text | Group) -> bool:
    """Show ``text`` in ``widget``: nothing when it shows it already, a repaint of the widget when
    its height stays (or is fixed by the stylesheet), a layout when it changes. Returns whether
    anything was repainted."""
    if same_text(widget.content, text):
        return False
    width, height = widget.content_size
    widget.update(text, layout=False)
    if not widget.display:
        return True  # hidden: no room taken; shown again, it is laid out then
    if not width:
        widget.refresh(layout=True)  # never laid out yet: the layout finds its size
    elif (widget.styles.height is None or widget.styles.height.is_auto) \
            and widget.get_content_height(widget.size, widget.size, width) != height:
        widget.refresh(layout=True)  # (a height the stylesheet fixes never changes)
    return True
