"""A decision that asks for confirmation and a reason: a typed ``ModalScreen`` that dismisses
with what was decided (enter on the reason) or None (escape: nothing is written).
:class:`Decision` is the one dialog; a subclass may ask for more before the reason (the lead's
reject asks for the lead's own score: :class:`reviewer.tui.screens.review_of.RejectDialog`).
The safety screen's decisions and the calibration drill-down's adjudications are
:class:`ReasonRequired`, dismissed with the reason alone; each subclass names what is decided
and carries its own binding id (``decision.cancel``, ``adjudication.cancel``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Label

from reviewer.safetext import safe_text

R = TypeVar("R")


class Decision(ModalScreen[R | None], Generic[R]):
    """Say what will be written, ask for any fields of :meth:`fields` and then why; enter on the
    reason decides (:meth:`decided`), escape cancels."""

    #: the reason's box: its id and what it says while empty
    REASON_ID = "decision-input"
    REASON_PLACEHOLDER = "reason (enter confirms, escape cancels)"

    def __init__(self, prompt: Text) -> None:
        super().__init__()
        self.prompt = prompt

    def compose(self) -> ComposeResult:
        with Vertical(id="decision-box"):
            yield Label(self.prompt)
            yield from self.fields()
            yield Input(placeholder=self.REASON_PLACEHOLDER, id=self.REASON_ID)

    def fields(self) -> Iterator[Widget]:
        """The inputs asked for before the reason (none here)."""
        return iter(())

    def ready(self, submitted: Input) -> bool:
        """Whether enter in ``submitted`` may go on to the reason's check: the fields before it
        are checked here (and enter in one moves on to the next). Nothing to check here."""
        return True

    def decided(self, reason: str) -> R | None:
        """What the dialog dismisses with, given the reason (None: stay open)."""
        raise NotImplementedError

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if not self.ready(event.input):
            return
        reason = self.query_one(f"#{self.REASON_ID}", Input).value.strip()
        if not reason:
            self.notify("a reason is required (escape cancels)", severity="warning")
            return
        result = self.decided(reason)
        if result is not None:
            self.dismiss(result)

    def action_cancel(self) -> None:
        """Close without writing anything."""
        self.dismiss(None)


class ReasonRequired(Decision[str]):
    """Say what will be written, ask why; enter confirms with the reason, escape cancels."""

    def decided(self, reason: str) -> str:
        """The reason itself."""
        return reason


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


__all__ = ["AdjudicationDialog", "Decision", "ReasonRequired"]
