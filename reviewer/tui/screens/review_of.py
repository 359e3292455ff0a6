"""A lead's review of one person's scores (``rubricate review --review-of NAME``): their current
scores, newest first, a page at a time (read in workers, the next page when the cursor nears the
end), each with the item, the person's score and reason, the judge's score and this lead's
verdict so far. ``a`` accepts; ``x`` (or ``d``) rejects, asking for the reason and the lead's own
score, which is stored as the lead's adjudication with that note (:mod:`reviewer.store.lead_reviews`).
A verdict shows at once and is rolled back on screen if the store refuses it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import DataTable, Input, Static

from reviewer.domain.wording import score_text
from reviewer.safetext import safe_line, safe_text
from reviewer.tui import adapter, palette
from reviewer.tui.gateway import reads
from reviewer.tui.host import AnswersWrites, ReviewHost, ReviewOf, host_of
from reviewer.tui.messages import ReviewPageLoaded, WriteFailed, Written
from reviewer.tui.screens.confirm import Decision
from reviewer.tui.screens.footer import AppKeysFirst, footer
from reviewer.tui.widgets.tables import add_fitted, fill_fitted

if TYPE_CHECKING:
    from reviewer.store.lead_reviews import ReviewedScore

COLUMNS = ("given (UTC)", "item", "dimension", "score", "judge", "verdict")
#: Scores read per page.
PAGE = 50
#: The next page is read once the cursor is this close to the last row read.
AHEAD = 10


def verdict_text(row: ReviewedScore) -> Text:
    """The lead's verdict on a score as its cell: accepted, rejected with the lead's score, or none yet."""
    if row.verdict == "accept":
        return Text("accepted", style="green")
    if row.verdict == "reject":
        return Text(f"rejected → {score_text(row.lead_score)}", style=palette.fail())
    return Text("—", style="dim")


def cells(row: ReviewedScore) -> tuple[Text, ...]:
    """One score as the table's cells (every text from the data through safe_text: never markup)."""
    return (Text(row.created_at.strftime("%Y-%m-%d %H:%M")), safe_text(row.item_id, newlines=False),
            safe_text(row.dimension, newlines=False), Text(score_text(row.score), justify="right"),
            Text(score_text(row.judge), justify="right"), verdict_text(row))


@dataclass(frozen=True)
class Rejection:
    """What the lead entered to reject a score: their own score and why."""

    value: float
    note: str


class RejectDialog(Decision[Rejection]):
    """Ask for the lead's own score and the reason; enter on the score moves to the reason,
    enter on the reason rejects; escape writes nothing."""

    BINDINGS = [Binding("escape", "cancel", "cancel", id="reject.cancel")]
    REASON_ID = "reject-reason"
    REASON_PLACEHOLDER = "why it is wrong (enter rejects, escape cancels)"

    def __init__(self, row: ReviewedScore, person: str) -> None:
        super().__init__(Text.assemble(
            "Reject ", safe_text(person, "bold", newlines=False), "'s ", (score_text(row.score), "bold"), " on ",
            safe_text(row.item_id, "bold", newlines=False), " · ", safe_text(row.dimension, "bold", newlines=False),
            (f"  (judge {score_text(row.judge)})", "dim"),
            f"\nYour score ({row.scale_min:g}–{row.scale_max:g}), stored as your adjudication, and why (required):"))
        self.row = row

    def fields(self) -> Iterator[Widget]:
        """The lead's own score, before the reason."""
        yield Input(placeholder=f"your score, {self.row.scale_min:g}–{self.row.scale_max:g} (enter: on to the reason)",
                    id="reject-score")

    def _value(self) -> float | None:
        """The score typed, if it is a number on the dimension's scale (else a warning, None)."""
        raw = self.query_one("#reject-score", Input).value.strip()
        try:
            value = float(raw)
        except ValueError:
            self.notify(safe_line(f"{raw or 'nothing'}: type your score, a number"), severity="warning", markup=False)
            return None
        if not self.row.scale_min <= value <= self.row.scale_max:
            self.notify(f"{value:g} is off the scale {self.row.scale_min:g}–{self.row.scale_max:g}", severity="warning")
            return None
        return value

    def ready(self, submitted: Input) -> bool:
        """A score on the scale first (else back to it); enter on the score moves to the reason."""
        if self._value() is None:
            self.query_one("#reject-score", Input).focus()
            return False
        if submitted.id == "reject-score":
            self.query_one(f"#{self.REASON_ID}", Input).focus()
            return False
        return True

    def decided(self, reason: str) -> Rejection | None:
        """The lead's score (checked in :meth:`ready`) and the reason."""
        value = self._value()
        return None if value is None else Rejection(value, reason)


class ReviewOfScreen(AppKeysFirst, AnswersWrites):
    """One person's scores under a lead's review."""

    AUTO_FOCUS = "#review-of-table"

    BINDINGS = [
        Binding("a", "accept", "accept", id="review_of.accept"),
        Binding("x,d", "reject", "reject", id="review_of.reject"),
        Binding("enter", "open_item", "open item", id="review_of.open_item"),
        Binding("r", "reload", "refresh", id="review_of.reload"),
        Binding("escape", "app.pop_screen", "back", id="review_of.back"),
    ]

    def __init__(self, of: ReviewOf) -> None:
        super().__init__()
        self.of = of
        self.rows: list[ReviewedScore] = []
        #: another page may follow the rows read (the last page read was full)
        self.more = False
        self._reading = False
        #: writes on screen, by ticket: what the row showed before (found again by its score_pk,
        #: since a reload between the write and its failure may have moved or dropped the row)
        self.pending: dict[int, ReviewedScore] = {}

    @property
    def rapp(self) -> ReviewHost:
        """The app, as a screen may use it (:mod:`reviewer.tui.host`)."""
        return host_of(self.app)

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="review-of-title")
        table: DataTable[Any] = DataTable(id="review-of-table", cursor_type="row", zebra_stripes=True)
        table.add_columns(*COLUMNS)
        yield table
        with VerticalScroll(id="review-of-detail"):
            yield Static("reading the scores…", id="review-of-score")
        yield footer()

    def _title(self) -> Text:
        of = self.of
        t = Text(" review of ", style="bold reverse")
        t.append(safe_line(f" {of.person}"), style="bold")
        scope = f"{of.queue or 'every queue'}"
        if of.since is not None:
            scope += f" · since {of.since.strftime('%Y-%m-%d %H:%M')} UTC"
        t.append(safe_line(f"  {scope} · {len(self.rows)}{'+' if self.more else ''} scores"
                           f" · {sum(r.verdict is not None for r in self.rows)} reviewed by you"), style="dim")
        return t

    def on_mount(self) -> None:
        self._read(None)

    def action_reload(self) -> None:
        """Read the scores again from the newest."""
        self._read(None)

    def _read(self, before: int | None) -> None:
        """Start reading a page (one at a time: the cursor does not start a second meanwhile)."""
        self._reading = True
        self.load(before)

    @reads("the person's scores", group="review-of")
    def load(self, before: int | None) -> None:
        """A page of the person's scores below the key ``before`` (None: the newest)."""
        of, lead = self.of, self.rapp.session.reviewer
        rows = self.rapp.gateway.read(lambda store: adapter.review_walk(
            store, of.person, lead, of.queue, of.since, before, PAGE))
        self.post_message(ReviewPageLoaded(rows, before))

    def on_review_page_loaded(self, message: ReviewPageLoaded) -> None:
        self._reading = False
        table = self.query_one(DataTable)
        if message.before is None:
            self.rows = []
        elif not self.rows or self.rows[-1].score_pk != message.before:
            return  # a reload began meanwhile: its own first page follows
        start = len(self.rows)
        self.rows += message.rows
        self.more = len(message.rows) == PAGE
        page = [cells(row) for row in message.rows]
        if start:  # the page after the rows on screen, added below them (a wider cell widens its column)
            add_fitted(table, page)
        else:
            fill_fitted(table, COLUMNS, page)
        self.query_one("#review-of-title", Static).update(self._title())
        if not self.rows:
            self.query_one("#review-of-score", Static).update(Text(
                safe_line(f"{self.of.person} has no scores here to review"), style="dim"))
        elif start == 0:
            self._show(0)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row is None or not 0 <= event.cursor_row < len(self.rows):
            return
        self._show(event.cursor_row)
        if self.more and not self._reading and event.cursor_row >= len(self.rows) - AHEAD:
            self._read(self.rows[-1].score_pk)

    def _show(self, index: int) -> None:
        """The score under the cursor: the item, the person's score and reason, the judge's, the verdict."""
        r = self.rows[index]
        t = Text()
        t.append(safe_line(f"{r.item_id}"), style="bold")
        t.append(safe_line(f"  {r.rubric_ref} · {r.dimension} · scale {r.scale_min:g}–{r.scale_max:g}"
                           f" · {r.sample or 'no queue'}"), style="dim")
        t.append("\n")
        t.append(safe_line(f"{self.of.person}: "), style="bold")
        t.append(score_text(r.score), style="bold")
        t.append("  ")
        t.append(safe_text(r.reason or "(no reason given)", newlines=False))
        t.append("\njudge: ", style="bold")
        t.append(score_text(r.judge))
        t.append("   your verdict: ", style="bold")
        t.append(verdict_text(r))
        if r.note:
            t.append("  ")
            t.append(safe_text(r.note, "italic", newlines=False))
        if r.input:
            t.append("\n\ninput\n", style="bold")
            t.append(safe_text(r.input))
            if r.input_chars > len(r.input):
                t.append(f" … {r.input_chars - len(r.input)} more characters (enter opens the item)", style="dim")
        t.append("\n\noutput\n", style="bold")
        t.append(safe_text(r.output))
        if r.output_chars > len(r.output):
            t.append(f" … {r.output_chars - len(r.output)} more characters (enter opens the item)", style="dim")
        self.query_one("#review-of-score", Static).update(t)

    def _current(self) -> int | None:
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row is None or not 0 <= table.cursor_row < len(self.rows):
            return None
        return table.cursor_row

    def _set(self, index: int, row: ReviewedScore) -> None:
        self.rows[index] = row
        table = self.query_one(DataTable)
        column = table.ordered_columns[-1]
        cell = verdict_text(row)
        if cell.cell_len > column.width:  # (a verdict wider than the column had: widen it, never cut)
            column.width = cell.cell_len
        table.update_cell(str(index), column.key, cell, update_width=True)
        if self._current() == index:
            self._show(index)
        self.query_one("#review-of-title", Static).update(self._title())

    def action_accept(self) -> None:
        """Accept the highlighted score (stored at once, signed by the lead)."""
        index = self._current()
        if index is None:
            return
        row = self.rows[index]
        ticket = self.rapp.gateway.accept_score(row.score_pk, f"{row.item_id}/{row.dimension}", self.rapp.session.reviewer)
        self.pending[ticket.number] = row
        self._set(index, row._replace(verdict="accept", note=None, lead_score=None))

    @work
    async def action_reject(self) -> None:
        """Reject the highlighted score: the lead's own score and reason, stored as the lead's
        adjudication with that note (escape: nothing is written)."""
        index = self._current()
        if index is None:
            return
        row = self.rows[index]
        got = await self.app.push_screen_wait(RejectDialog(row, self.of.person))
        if got is None:
            return
        ticket = self.rapp.gateway.reject_score(row.score_pk, f"{row.item_id}/{row.dimension}",
                                                self.rapp.session.reviewer, got.value, got.note)
        self.pending[ticket.number] = row
        self._set(index, row._replace(verdict="reject", note=got.note, lead_score=got.value))

    def written(self, message: Written) -> None:
        """The verdict landed: nothing to roll back."""
        self.pending.pop(message.ticket, None)

    def write_failed(self, message: WriteFailed) -> None:
        """A refused verdict: the row shows what it showed before."""
        before = self.pending.pop(message.ticket, None)
        if before is None:
            return
        index = self._index_of(before.score_pk)
        if index is not None:  # (gone since a reload: nothing on screen to roll back)
            self._set(index, before)
            message.undone.append(f"{before.item_id}/{before.dimension} verdict")

    def _index_of(self, score_pk: int) -> int | None:
        """Where the score with ``score_pk`` stands among the rows read now (None: not read)."""
        return next((i for i, r in enumerate(self.rows) if r.score_pk == score_pk), None)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """``enter`` on a row (the table takes the key before the screen's binding)."""
        event.stop()
        self.action_open_item()

    def action_open_item(self) -> None:
        """Open the highlighted score's item (read it whole, score it like any other)."""
        index = self._current()
        if index is not None:
            self.rapp.open_item(self.rows[index].item_pk)
