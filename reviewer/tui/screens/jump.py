"""``:`` asks for an item id and opens that item (a typed dialog; escape cancels)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class JumpDialog(ModalScreen[str | None]):
    """Ask for an item id; enter opens it, escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "cancel", id="jump.cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="reason-box"):
            yield Label(Text("Go to item (its id):", style="bold"))
            yield Input(placeholder="e.g. gq-042", id="jump-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        """Close without moving."""
        self.dismiss(None)
