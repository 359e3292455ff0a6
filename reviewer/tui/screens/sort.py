"""The queue list's sort dialog: the order (queue order, the judge's score, either disagreement,
age, a metadata key typed here) and its direction.

A typed ``ModalScreen`` that dismisses with the new :class:`QueueOrder` (escape: None, nothing
changes). In a blind session the judge's orders are left out, and the dialog says why. The key
typed is data: drawn as plain text, never read as markup. A refused order (metadata without a
key) is said in one line and the dialog stays open.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Input, Label, Select

from reviewer.errors import UserError
from reviewer.safetext import safe_line
from reviewer.store.sorting import JUDGE_ORDERS, ORDERS, QueueOrder

#: Said in the dialog in place of the judge's orders.
BLIND_SORT_NOTE = "the judge's score and disagreement are not offered in a blind session: they would show the judge"


class SortDialog(ModalScreen[QueueOrder | None]):
    """Pick the list's order; ctrl+s (or enter in the key's field) applies, tab moves between
    fields, escape cancels."""

    BINDINGS = [
        Binding("escape", "cancel", "cancel", id="sort.cancel"),
        Binding("ctrl+s", "apply", "apply", id="sort.apply"),
    ]

    def __init__(self, current: QueueOrder, blind: bool) -> None:
        super().__init__()
        self.current = current
        self.blind = blind

    def orders(self) -> list[str]:
        """The orders offered (not the judge's while blind)."""
        return [o for o in ORDERS if not (self.blind and o in JUDGE_ORDERS)]

    def compose(self) -> ComposeResult:
        c = self.current
        offered = self.orders()
        with Vertical(id="sort-box"):
            yield Label(Text.assemble(("Sort the queue list", "bold"),
                                      ("   tab: next field · ctrl+s: apply · esc: cancel", "dim")))
            yield Select([(ORDERS[o], o) for o in offered], allow_blank=False,
                         value=c.by if c.by in offered else "queue", id="sort-by")
            yield Checkbox("descending: high to low, newest first", c.descending, id="sort-descending")
            yield Label(Text("metadata key (sorting by metadata): numbers first, as numbers; then text", style="dim"))
            yield Input(c.key or "", placeholder="a key of the items' metadata", id="sort-key")
            yield Label(Text("claiming the next item (g, n) keeps the queue's own order", style="dim italic"))
            if self.blind:
                yield Label(Text(BLIND_SORT_NOTE, style="italic"), id="sort-blind")

    def on_mount(self) -> None:
        self.query_one("#sort-by", Select).focus()

    def chosen(self) -> QueueOrder:
        """The order the fields say (UserError when they say none)."""
        by = self.query_one("#sort-by", Select).value
        key = self.query_one("#sort-key", Input).value.strip()
        return QueueOrder(by if isinstance(by, str) else "queue", self.query_one("#sort-descending", Checkbox).value,
                          key if by == "metadata" else None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_apply()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.value == "metadata":  # the key is what is asked for next
            self.query_one("#sort-key", Input).focus()

    def action_apply(self) -> None:
        """Close with the order the fields say, or say in one line why not."""
        try:
            order = self.chosen()
        except UserError as err:
            self.notify(safe_line(str(err)), severity="warning", markup=False)
            return
        self.dismiss(order)

    def action_cancel(self) -> None:
        """Close without changing the order."""
        self.dismiss(None)
