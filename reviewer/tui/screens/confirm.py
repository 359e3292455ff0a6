"""A decision that asks for confirmation and a reason: a typed ``ModalScreen`` that dismisses
with the reason (enter) or None (escape: nothing is written). The safety screen's decisions and
the calibration drill-down's adjudications are both of this kind; each subclass names what is
decided and carries its own binding id (``decision.cancel``, ``adjudication.cancel``)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from reviewer.safetext import safe_text


class ReasonRequired(ModalScreen[str | None]):
    """Say what will be written, ask why; enter confirms with the reason, escape cancels."""

    def __init__(self, prompt: Text) -> None:
        super().__init__()
        self.prompt = prompt

    def compose(self) -> ComposeResult:
        with Vertical(id="decision-box"):
            yield Label(self.prompt)
            yield Input(placeholder="reason (enter confirms, escape cancels)", id="decision-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if not event.value.strip():
            self.notify("a reason is required (escape cancels)", severity="warning")
            return
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        """Close without writing anything."""
        self.dismiss(None)


class AdjudicationDialog(ReasonRequired):
    """Confirm a lead's adjudication of one item's dimension, with the reason for it."""

    BINDINGS = [Binding("escape", "cancel", "cancel", id="adjudication.cancel")]

    def __init__(self, item_id: str, dimension: str, value: float, humans: str) -> None:
        super().__init__(Text.assemble(
            "Adjudicate ", safe_text(item_id, "bold", newlines=False), " · ",
            safe_text(dimension, "bold", newlines=False), " at ", (f"{value:g}", "bold reverse"),
            ("\n(humans: ", "dim"), safe_text(humans, "dim", newlines=False), (")", "dim"),
            "\nIt settles this item for calibration. Why? (required)"))
        self.value = value


__all__ = ["AdjudicationDialog", "ReasonRequired"]
