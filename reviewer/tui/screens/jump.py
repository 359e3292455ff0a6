"""``:`` asks for an item id and opens that item (a typed dialog; escape cancels). An id is
unique only within a rubric and dataset: when several items share it, :class:`ItemChoiceDialog`
names each one's dataset and rubric and the person picks (never an arbitrary one of them)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from reviewer.safetext import safe_text


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


class ItemChoiceDialog(ModalScreen[int | None]):
    """Several items share the id: one line per item (dataset · rubric); enter opens the one
    highlighted (its key), escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "cancel", id="jump.choice_cancel")]

    def __init__(self, item_id: str, found: list[tuple[int, str, str]]) -> None:
        super().__init__()
        self.item_id, self.found = item_id, found

    def compose(self) -> ComposeResult:
        with Vertical(id="reason-box"):
            yield Label(Text.assemble(safe_text(self.item_id, "bold", newlines=False),
                                      f" is the id of {len(self.found)} items; which one? "
                                      "(enter opens, escape cancels)"))
            yield OptionList(*[Option(Text.assemble(("dataset ", "dim"), safe_text(ds or "(none)", "bold", newlines=False),
                                                    ("  rubric ", "dim"), safe_text(ref, newlines=False)), id=str(pk))
                               for pk, ds, ref in self.found], id="jump-choice")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(int(event.option.id or 0))

    def action_cancel(self) -> None:
        """Close without moving."""
        self.dismiss(None)
