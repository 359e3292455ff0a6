"""The history panel (``h`` on the queue and item screens): the reviewer's own last decisions on
this queue, newest first — item, their current score on each dimension they touched, time —
read a page of :data:`PAGE` at a time in a worker (:meth:`reviewer.store.history.History.
recent_decisions`). ``enter`` goes to the item under the cursor (the screen dismisses with its
key; the screen that opened the panel opens it), ``]``/``[`` page, ``escape`` goes back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from reviewer.domain.provenance import as_utc
from reviewer.safetext import safe_line, safe_text
from reviewer.tui import adapter
from reviewer.tui.gateway import reads
from reviewer.tui.host import ReviewHost, host_of
from reviewer.tui.messages import HistoryLoaded
from reviewer.tui.screens.footer import AppKeysFirst, footer
from reviewer.tui.widgets.tables import fill_fitted

if TYPE_CHECKING:
    from reviewer.store.history import Decision

#: Decisions per page.
PAGE = 50
COLUMNS = ("when (UTC)", "item", "dataset", "your scores")


def decision_scores(scores: tuple[tuple[str, float | None], ...]) -> Text:
    """``accuracy 7 · clarity undone``: the dimension names are the rubric's, drawn as plain text."""
    t = Text()
    for i, (dim, score) in enumerate(scores):
        if i:
            t.append(" · ", style="dim")
        t.append_text(safe_text(dim, "dim", newlines=False))
        t.append(" ")
        t.append("undone" if score is None else f"{score:g}", style="dim italic" if score is None else "bold")
    return t


class HistoryScreen(AppKeysFirst):
    """One's own last decisions on this queue; dismisses with the item key to open (or None)."""

    AUTO_FOCUS = "#history-table"

    BINDINGS = [
        Binding("enter", "open", "open item", id="history.open", priority=True),
        Binding("right_square_bracket", "page(1)", "older", id="history.older"),
        Binding("left_square_bracket", "page(-1)", "newer", id="history.newer"),
        Binding("escape", "close", "back", id="history.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        #: decisions before this page (newest first)
        self.skipped = 0
        self.rows: list[Decision] = []

    @property
    def rapp(self) -> ReviewHost:
        """The app, as a screen may use it (:mod:`reviewer.tui.host`)."""
        return host_of(self.app)

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble((" history ", "bold reverse"), ("  reading your decisions…", "dim")),
                     id="history-title")
        table: DataTable[Any] = DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
        yield table
        yield footer()

    def on_mount(self) -> None:
        self.load()

    @reads("your history", group="history")
    def load(self) -> None:
        """Read the page after the first :attr:`skipped` decisions."""
        s, offset = self.rapp.session, self.skipped
        rows = self.rapp.gateway.read(lambda store: adapter.history_page(store, s.reviewer, s.queue, offset, PAGE))
        self.post_message(HistoryLoaded(rows, offset))

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        if message.offset != self.skipped:
            return  # another page was asked for meanwhile
        self.rows = message.rows
        fill_fitted(self.query_one(DataTable), COLUMNS, [
            (Text(f"{as_utc(r.at):%Y-%m-%d %H:%M:%S}"), safe_text(r.item_id, newlines=False),
             safe_text(r.dataset or "", newlines=False), decision_scores(r.scores)) for r in self.rows])
        s = self.rapp.session
        page = self.skipped // PAGE + 1
        title = Text()
        title.append(" history ", style="bold reverse")
        if self.rows:
            what = f"  {s.reviewer} on {s.queue}: decisions {self.skipped + 1}–{self.skipped + len(self.rows)}, newest first"
        else:
            what = f"  {s.reviewer} on {s.queue}: " + ("no decisions yet" if page == 1 else "no older decisions")
        title.append(safe_line(what), style="dim")
        title.append("   enter: open · ] older · [ newer · escape: back", style="dim")
        self.query_one("#history-title", Static).update(title)

    def action_page(self, step: int) -> None:
        """Older or newer decisions."""
        if step > 0 and len(self.rows) < PAGE:
            self.notify("no older decisions")
            return
        if step < 0 and self.skipped == 0:
            return
        self.skipped = max(0, self.skipped + step * PAGE)
        self.load()

    def action_open(self) -> None:
        """Go to the item under the cursor."""
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row is None or table.cursor_row >= len(self.rows):
            return
        self.dismiss(self.rows[table.cursor_row].item_pk)

    def action_close(self) -> None:
        """Back, opening nothing."""
        self.dismiss(None)
