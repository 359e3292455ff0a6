"""put (reviewer/tui/widgets/put.py): the next item's texts cost a layout of the screen only where
a widget's height changes. Before it every ``Static.update`` asked for one (shown below on the
same widget), and the item screen made a dozen of them per item."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Static

from reviewer.tui.widgets.put import put, same_text
from reviewer.tui.widgets.textview import TextView


class Panels(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(Text("one line"), id="panel")
        yield TextView(Text("first\nsecond"), id="view")
        yield Static("below", id="below")


async def test_put_asks_for_a_layout_only_when_the_height_changes() -> None:
    app = Panels()
    async with app.run_test(size=(40, 12)) as pilot:
        panel = app.query_one("#panel", Static)
        await pilot.pause()
        assert put(panel, Text("one line")) is False  # the same text: nothing at all
        assert not panel._repaint_required and not panel._layout_required
        assert put(panel, Text("one more")) is True  # same height: a repaint of this widget
        assert panel._repaint_required and not panel._layout_required
        await pilot.pause()
        assert str(panel.render()) == "one more" and panel.size.height == 1
        assert put(panel, Text("two\nlines")) is True  # taller: the screen is laid out again
        assert panel._layout_required
        await pilot.pause()
        assert panel.size.height == 2 and app.query_one("#below").region.y == 4
        panel.update(Text("two\nrows"))  # what the screens called before: a layout even so
        assert panel._layout_required


async def test_text_views_alike() -> None:
    app = Panels()
    async with app.run_test(size=(40, 12)) as pilot:
        view = app.query_one("#view", TextView)
        await pilot.pause()
        view.update(Text("first\nsecond"))
        assert not view._repaint_required  # the same text: nothing
        view.update(Text("third\nfourth"))
        assert view._repaint_required and not view._layout_required
        view.update(Text("a\nb\nc"))
        assert view._layout_required
        await pilot.pause()
        assert view.size.height == 3


def test_same_text_sees_styles_and_settings() -> None:
    assert same_text(Text("x", style="bold"), Text("x", style="bold"))
    assert not same_text(Text("x", style="bold"), Text("x", style="red"))  # Text.__eq__ says equal
    assert Text("x", style="bold") == Text("x", style="red")
    assert not same_text(Text("x", no_wrap=True), Text("x"))
    marked = Text("ab")
    marked.stylize("reverse", 0, 1)
    assert not same_text(marked, Text("ab"))
    assert not same_text("ab", Text("ab"))
