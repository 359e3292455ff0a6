"""The correction editor (``e`` on the item screen): the output as it should have been, written
in a text area prefilled with the current revision's output. ``ctrl+s`` dismisses with the text,
``escape`` with None (nothing written); both are in its footer.

The output under review is hostile: a text area writes its characters to the terminal as they are,
so the editor holds the output with every character a terminal would act on or hide shown as its
visible placeholder (:func:`reviewer.safetext.safe`; newlines and tabs kept), and draws whatever
is typed or pasted into it through the same rule (:class:`SafeTextArea`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widgets import Label, TextArea

from reviewer.domain.corrections import (
    MAX_DIFF_LINES,
    Correction,
    correction_problem,
    latest,
    line_diff,
)
from reviewer.safetext import safe, safe_line, safe_text
from reviewer.tui import palette
from reviewer.tui.screens.footer import footer


class SafeTextArea(TextArea):
    """A text area that never hands the terminal a control, bidi or invisible character: each
    line is drawn with them as placeholders (the text itself is what was typed)."""

    def render_line(self, y: int) -> Strip:
        """The line as the text area draws it, made safe."""
        strip = super().render_line(y)
        segments = list(strip)
        if all(safe_line(s.text) == s.text for s in segments):
            return strip
        # a placeholder is wider than the character it stands for: cut back to the widget's width
        return Strip([Segment(safe_line(s.text), s.style, s.control) for s in segments]).crop_extend(
            0, self.size.width, None)


class CorrectionEditor(ModalScreen[str | None]):
    """Correct the output of ``item_id``: ``ctrl+s`` saves, ``escape`` cancels."""

    BINDINGS = [
        Binding("ctrl+s", "save", "save", id="correction.save", priority=True),
        Binding("escape", "cancel", "cancel", id="correction.cancel", priority=True),
    ]

    def __init__(self, item_id: str, output: str, revision: int) -> None:
        super().__init__()
        self.item_id = item_id
        self.revision = revision
        #: what the editor opens with: the output, its unsafe characters as placeholders
        self.prefill = safe(output)

    def compose(self) -> ComposeResult:
        with Vertical(id="correction-box"):
            yield Label(Text.assemble("The answer ", safe_text(self.item_id, "bold", newlines=False),
                                      f" should have given (revision {self.revision}):"))
            yield SafeTextArea(self.prefill, soft_wrap=True, tab_behavior="indent", id="correction-text")
        yield footer()

    def on_mount(self) -> None:
        self.query_one(SafeTextArea).focus()

    def action_save(self) -> None:
        """Dismiss with the text (the item screen says why, when nothing is stored)."""
        text = self.query_one(SafeTextArea).text
        problem = correction_problem(text)
        if problem is not None:
            self.notify(safe_line(problem), severity="warning", markup=False)
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        """Close without writing anything."""
        self.dismiss(None)


def correction_head(shown: Sequence[Correction]) -> Text:
    """The corrected answer panel's first line: how many, by whom, when (``shown``: one at least)."""
    c = latest(shown)
    if c is None:
        raise ValueError("a corrected answer's panel needs a corrected answer")
    when = f"{c.created_at:%Y-%m-%d %H:%M} UTC" if c.created_at is not None else "just now"
    t = Text()
    t.append(f"corrected answer ({len(shown)})", style="bold")
    t.append(safe_line(f" {c.reviewer}"), style="bold cyan")
    t.append(f" · {when}", style="dim")
    return t


def correction_text(shown: Sequence[Correction], output: str, revision: int) -> Text | None:
    """The newest of the corrected answers ``shown`` to this reviewer (None: none), with its author
    and time: as a line diff against the ``output`` (both as shown) when it corrects the current
    content, ``revision`` (``-`` the output's lines, ``+`` the correction's, both kept in order),
    else as written, saying why (it corrects earlier content, or a text is too long to compare
    here). Every line from data goes through :func:`safe`. Pure (the item screen draws it in a
    worker: a diff of 2,000 lines a side is too slow for the UI thread)."""
    c = latest(shown)
    if c is None:
        return None
    t = correction_head(shown)
    # compared as both are shown (and as the editor was prefilled: unsafe characters as their
    # placeholders), so a line left as it was never reads as changed for holding a control character
    diff = line_diff(safe(output), safe(c.text)) if c.revision == revision else None
    if diff is None:
        why = ("of earlier content" if c.revision != revision
               else f"more than {MAX_DIFF_LINES} lines to compare")
        t.append(f" ({why}: as written)\n", style="dim yellow")
        t.append(safe(c.text))
        return t
    t.append("  - output  + corrected\n", style="dim")
    marks = {"same": ("  ", ""), "output": ("- ", palette.fail()), "correction": ("+ ", palette.added())}
    for side, line in diff:
        mark, style = marks[side]
        t.append(mark + safe(line) + "\n", style=style)
    t.rstrip()
    return t
