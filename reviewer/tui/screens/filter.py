"""The queue list's filter dialog: dataset, judge band, status, disagreement and text.

Disagreement comes in two boxes side by side: the judge and the people apart (the judge panel's
score and people's — a lead's adjudication, else the consensus — at least a quarter of the scale
apart on some dimension), and the judge panel's models apart among themselves.

A typed ``ModalScreen`` that dismisses with the new :class:`QueueFilter` (escape: None, nothing
changes). In a blind session the band and both disagreement boxes are left out, and the dialog
says why: each would tell the reviewer what the judge said. Every value shown (datasets, bands, the
text typed) is data: drawn as plain text, never read as markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Input, Label, Select

from reviewer.safetext import safe_text
from reviewer.store.views import STATUSES, QueueFilter

#: Said in the dialog (and when a blind session asks for them) in place of the judge's filters.
BLIND_NOTE = "band and disagreement filters are off in a blind session: they would show the judge's scores"


class FilterDialog(ModalScreen[QueueFilter | None]):
    """Narrow the queue list; enter applies, tab moves between fields, escape cancels."""

    BINDINGS = [
        Binding("escape", "cancel", "cancel", id="filter.cancel"),
        Binding("ctrl+s", "apply", "apply", id="filter.apply"),
    ]

    def __init__(self, current: QueueFilter, datasets: list[str], bands: list[str], blind: bool) -> None:
        super().__init__()
        self.current = current
        self.datasets = datasets
        self.bands = bands
        self.blind = blind

    def compose(self) -> ComposeResult:
        c = self.current
        with Vertical(id="filter-box"):
            yield Label(Text.assemble(("Filter the queue list", "bold"),
                                      ("   tab: next field · enter: apply · esc: cancel", "dim")))
            yield Label(Text("dataset", style="dim"))
            yield Select([(safe_text(d or "(none)", newlines=False), d) for d in self.datasets],
                         prompt="any dataset", value=c.dataset if c.dataset in self.datasets else Select.NULL,
                         id="filter-dataset")
            yield Label(Text("status", style="dim"))
            yield Select([(s, s) for s in STATUSES], prompt="any status",
                         value=c.status if c.status in STATUSES else Select.NULL, id="filter-status")
            if self.blind:
                yield Label(Text(BLIND_NOTE, style="italic"), id="filter-blind")
            else:
                yield Label(Text("judge's band", style="dim"))
                yield Select([(safe_text(b, newlines=False), b) for b in self.bands], prompt="any band",
                             value=c.band if c.band in self.bands else Select.NULL, id="filter-band")
                with Horizontal(id="filter-disagree"):
                    yield Checkbox("judge and people disagree", c.people_disagree, id="filter-people")
                    yield Checkbox("judge panel disagrees", c.disagreement, id="filter-disagreement")
            yield Label(Text("text in the item id, input or output (matched literally)", style="dim"))
            yield Input(c.text or "", placeholder="any text", id="filter-text")

    def on_mount(self) -> None:
        self.query_one("#filter-text", Input).focus()

    def chosen(self) -> QueueFilter:
        """The filter the fields say."""
        def pick(sel_id: str) -> str | None:
            found = self.query(f"#{sel_id}")
            if not found:
                return None
            value = self.query_one(f"#{sel_id}", Select).value
            return value if isinstance(value, str) else None

        def ticked(box_id: str) -> bool:
            return bool(self.query(f"#{box_id}")) and self.query_one(f"#{box_id}", Checkbox).value

        return QueueFilter(
            dataset=pick("filter-dataset"), band=pick("filter-band"), status=pick("filter-status"),
            disagreement=ticked("filter-disagreement"), people_disagree=ticked("filter-people"),
            text=self.query_one("#filter-text", Input).value.strip() or None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_apply()

    def action_apply(self) -> None:
        """Close with the filter the fields say."""
        self.dismiss(self.chosen())

    def action_cancel(self) -> None:
        """Close without changing the filter."""
        self.dismiss(None)


def describe(filt: QueueFilter) -> Text:
    """The active filter, as the queue's title shows it (values as plain text)."""
    t = Text()
    parts: list[tuple[str, str]] = []
    if filt.dataset:
        parts.append(("dataset", filt.dataset))
    if filt.band:
        parts.append(("band", filt.band))
    if filt.status:
        parts.append(("status", filt.status))
    if filt.people_disagree:
        parts.append(("", "judge and people disagree"))
    if filt.disagreement:
        parts.append(("", "panel disagrees"))
    if filt.text:
        parts.append(("text", f'"{filt.text}"'))
    for i, (key, value) in enumerate(parts):
        if i:
            t.append(" · ", style="dim")
        if key:
            t.append(f"{key} ", style="dim")
        t.append_text(safe_text(value, "bold", newlines=False))
    return t
