"""The queue screen: one page of the queue at a time, paged from the store by key, never whole.

Textual's DataTable fed 100,000 rows takes over 30 s to first paint, so the table holds at most
one page (``page_size`` rows) and ``]``/``[`` fetch the next or previous page by keyset.

``f`` filters the list (dataset, judge band, status, the judge against the people or the judge
panel's models disagreeing, text; the store applies it in SQL, still a page at a time), ``/`` sets
the text alone and ``x`` clears the filter; the line under the title says what is filtered and how
many items match. A blind session has no band or disagreement filter (each would show the judge).

``o`` sorts the list (the store's ORDER BY, still a page at a time: :mod:`reviewer.store.queue_order`),
said in the title; ``h`` lists the reviewer's own last decisions on the queue.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Input, Static

from reviewer.safetext import safe_line, safe_text
from reviewer.store.sorting import QueueOrder
from reviewer.store.views import QueueFilter
from reviewer.tui import adapter, palette
from reviewer.tui.gateway import reads
from reviewer.tui.host import ReviewHost, host_of
from reviewer.tui.messages import FilterValuesLoaded, PageLoaded
from reviewer.tui.screens.deferred import deferred
from reviewer.tui.screens.footer import AppKeysFirst, footer

#: Rows added before the first frame of a page; a terminal shows fewer.
FIRST_ROWS = 60
#: "reviews" counts complete reviews; it is not the status the filter offers (a held or half-done
#: item with none is "in progress" there), so it does not say "new"
COLUMNS = ("item", "dataset", "judge", "band", "pass", "safety", "errors", "reviews", "held by")
#: what the judge said: never shown in a blind session
JUDGE_COLUMNS = ("judge", "band", "pass")


class QueueScreen(AppKeysFirst):
    """The session's queue, a page at a time."""

    AUTO_FOCUS = "#queue-table"

    BINDINGS = [
        Binding("g", "start", "start reviewing", id="queue.start"),
        Binding("enter", "open", "open item", id="queue.open"),
        Binding("right_square_bracket", "page(1)", "next page", id="queue.next_page"),
        Binding("left_square_bracket", "page(-1)", "prev page", id="queue.previous_page"),
        Binding("f", "filter", "filter", id="queue.filter"),
        Binding("slash", "search", "find text", id="queue.search"),
        Binding("x", "clear_filter", "clear filter", id="queue.clear_filter"),
        Binding("colon", "jump", "go to id", id="queue.jump"),
        Binding("r", "refresh", "refresh", id="queue.refresh"),
        Binding("S", "safety", "safety queue", id="queue.safety"),
        Binding("c", "calibration", "calibration", id="queue.calibration"),
        Binding("t", "team", "team view", show=False, id="queue.team"),  # (leads; README, `?`)
        Binding("q", "app.quit", "quit", show=False, id="queue.quit"),  # the footer has ^q already
        Binding("o", "sort", "sort", show=False, id="queue.sort"),
        Binding("h", "history", "history", show=False, id="queue.history"),
    ]

    def __init__(self) -> None:
        super().__init__()
        #: where each page seen so far starts: None (the first) or the cursor of the row before it
        self.page_starts: list[Any] = [None]
        self.rows: list[adapter.QueueLine] = []
        #: what the list is narrowed to (applied by the store)
        self.filt = QueueFilter()
        self.total: int | None = None
        #: how many items the filter keeps (None without a filter)
        self.matching: int | None = None
        self._head = Text()
        #: how the list is sorted (by the store)
        self.order = QueueOrder()

    @property
    def rapp(self) -> ReviewHost:
        """The app, as a screen may use it (:mod:`reviewer.tui.host`)."""
        return host_of(self.app)

    def compose(self) -> ComposeResult:
        yield Static(id="queue-title")
        yield Static(id="queue-filter", classes="-hidden")
        yield Input(placeholder="find text in item ids, inputs and outputs (enter applies, escape clears)",
                    id="queue-search", classes="-hidden")
        yield DataTable(id="queue-table", cursor_type="row", zebra_stripes=True)
        yield footer()

    def on_mount(self) -> None:
        self.load_page()

    def on_screen_resume(self) -> None:
        self.load_page()

    @reads("the queue", group="queue-page")
    def load_page(self) -> None:
        """Fetch the current page (and the count) from the store."""
        s, app = self.rapp.session, self.rapp
        first = self.page_starts[-1] is None and not self.filt.active and not self.order.active
        if first and app.gateway.opening and app.first_page is not None:
            lite = app.first_page.result()  # read while the app was still starting
            app.first_page = None
            if lite is not None:  # the store loads once this is painted (see _fill)
                self.post_message(PageLoaded(adapter.lines(lite[0]), lite[1]))
                return
            app.first_page_shown.set()  # nothing to paint without the store: load it now
        filt, order, after, size = self.filt, self.order, self.page_starts[-1], app.settings.page_size
        rows, total, matching = app.gateway.read(lambda store: adapter.queue_page(
            store, s.queue, s.rubric_ref, s.dataset, after, size, filt, s.blind, order))
        self.post_message(PageLoaded(rows, total, matching, filt, order))

    def on_page_loaded(self, message: PageLoaded) -> None:
        # Filled from the app's queue, not this screen's: the table measures new rows when it is
        # next idle, and the screen, idle right after its own message, would paint first (the
        # first frame's ids cut to the width of the column's label).
        self.app.call_next(self._fill, message.rows, message.total, message.matching, message.filt, message.order)

    @deferred
    def _fill(self, rows: list[adapter.QueueLine], total: int | None, matching: int | None = None,
              filt: QueueFilter | None = None, order: QueueOrder | None = None) -> None:
        if filt is not None and filt != self.filt:
            return  # the filter changed while this page was read: its own page follows
        if (order or QueueOrder()) != self.order:
            return  # so did the order
        self.rows = rows
        if total is not None:  # counted with the first page; kept while paging on
            self.total, self.matching = total, matching
        table = self.query_one(DataTable)
        columns = self._columns()
        if tuple(str(c.label) for c in table.columns.values()) != columns:
            table.clear(columns=True)
            table.add_columns(*columns)
        table.clear()
        # A screenful first; the rest of the page after that frame (the table measures each cell)
        self._add_rows(rows[:FIRST_ROWS])
        if len(rows) > FIRST_ROWS:
            self.call_after_refresh(self._add_rows, rows[FIRST_ROWS:], rows)
        self.call_after_refresh(self.rapp.first_page_shown.set)
        s = self.rapp.session
        page = len(self.page_starts)
        title = Text()
        title.append(f" {s.queue} ", style="bold reverse")
        title.append(safe_line(f"  reviewer {s.reviewer}  {s.rubric_ref or 'all rubrics'}  "
                               f"{'blind ' if s.blind else ''}page {page}"), style="dim")
        if self.total is not None:
            title.append(f"  {self.total} items", style="dim")
        if self.order.active:
            title.append("  sorted: ", style="dim")
            title.append(safe_line(self.order.describe()), style="bold")
        self._head = title
        self.show_progress()
        self._show_filter()

    def _show_filter(self) -> None:
        """The line under the title: the active filter and how many items it keeps."""
        from reviewer.tui.screens.filter import describe

        line = self.query_one("#queue-filter", Static)
        line.set_class(not self.filt.active, "-hidden")
        if not self.filt.active:
            return
        t = Text("filter: ", style="bold")
        t.append_text(describe(self.filt))
        if self.matching is not None:
            t.append(f"   {self.matching} of {self.total} items match" if self.total is not None
                     else f"   {self.matching} items match", style="bold")
        t.append("   f change · x clear", style="dim")
        line.update(t)

    @deferred
    def show_progress(self) -> None:
        """The title with the queue's progress and this session's pace."""
        title = self._head.copy()
        title.append("   ")
        title.append(self.rapp.pace())
        self.query_one("#queue-title", Static).update(title)

    def _columns(self) -> tuple[str, ...]:
        """The table's columns: without the judge's in a blind session."""
        if self.rapp.session.blind:
            return tuple(c for c in COLUMNS if c not in JUDGE_COLUMNS)
        return COLUMNS

    @deferred
    def _add_rows(self, lines: list[adapter.QueueLine], page: list[adapter.QueueLine] | None = None) -> None:
        if page is not None and page is not self.rows:
            return  # another page was loaded meanwhile
        table = self.query_one(DataTable)
        columns = self._columns()
        for r in lines:
            band = safe_text(f" {r.band} ", palette.label(r.band_color), newlines=False) if r.band else Text("—")
            passed = Text("pass", style="green") if r.passed else (
                Text("fail", style=palette.fail()) if r.passed is not None else Text("—"))
            cells = {
                "item": safe_text(r.item_id, newlines=False), "dataset": safe_text(r.dataset or "", newlines=False),
                "judge": Text(r.score), "band": band, "pass": passed,
                "safety": Text("FLAG", style=palette.alarm()) if r.flagged else Text(""),
                "errors": Text(str(r.errors or "")), "reviews": Text(r.reviews),
                "held by": safe_text(r.holder or "", newlines=False),
            }
            table.add_row(*(cells[c] for c in columns), key=str(r.item_pk))

    def _lead_only(self, what: str) -> bool:
        """Whether the session's reviewer is a lead; if not, a line saying ``what`` is for leads."""
        if "lead" in self.rapp.roles:
            return True
        self.notify(safe_line(f"{what} is for leads; a lead can run `rubricate reviewer add "
                              f"{self.rapp.session.reviewer} --role lead`"), severity="warning", markup=False)
        return False

    def action_calibration(self) -> None:
        """The calibration screen, for leads."""
        if self._lead_only("the calibration screen"):
            from reviewer.tui.screens.calibration import CalibrationScreen

            self.app.push_screen(CalibrationScreen())

    def action_team(self) -> None:
        """The team view: who has done how much (leads)."""
        if self._lead_only("the team view"):
            from reviewer.tui.screens.team import TeamScreen

            self.app.push_screen(TeamScreen())

    def action_page(self, step: int) -> None:
        """Next or previous page: the next starts after the last row seen (its cursor: its place
        in the list's order)."""
        if step > 0:
            if len(self.rows) < self.rapp.settings.page_size:
                self.notify("last page")
                return
            self.page_starts.append(self.rows[-1].cursor)
        elif len(self.page_starts) > 1:
            self.page_starts.pop()
        else:
            return
        self.load_page()

    def action_open(self) -> None:
        """Open the item under the cursor."""
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row is None:
            return
        self.rapp.open_item(self.rows[table.cursor_row].item_pk)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.rapp.open_item(int(event.row_key.value))

    def action_start(self) -> None:
        """Claim the next item of the queue and start scoring."""
        self.rapp.open_next()

    def action_jump(self) -> None:
        """Open an item by its id."""
        self.rapp.jump()

    def action_search(self) -> None:
        """Show the text box (the filter's text alone)."""
        box = self.query_one("#queue-search", Input)
        box.value = self.filt.text or ""
        box.remove_class("-hidden")
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.add_class("-hidden")
        self.query_one(DataTable).focus()
        self.set_filter(replace(self.filt, text=event.value.strip() or None))

    def key_escape(self) -> None:
        box = self.query_one("#queue-search", Input)
        if box.has_focus:
            box.value = ""
            box.add_class("-hidden")
            self.query_one(DataTable).focus()
            self.set_filter(replace(self.filt, text=None))

    def set_filter(self, filt: QueueFilter) -> None:
        """Narrow the list to ``filt`` (from its first page); refused parts are said on screen."""
        from reviewer.tui.screens.filter import BLIND_NOTE

        if self.rapp.session.blind and filt.reveals_judge:
            self.notify(BLIND_NOTE, severity="warning", markup=False)
            filt = filt.without_judge()
        self.filt = filt
        self.page_starts = [None]
        self.matching = None
        self._show_filter()
        self.refresh_bindings()
        self.load_page()

    def action_filter(self) -> None:
        """Open the filter dialog (its choices read from the store off the UI thread)."""
        self._open_filter()

    @reads("the filter's choices", group="queue-filter")
    def _open_filter(self) -> None:
        s = self.rapp.session
        datasets, bands = self.rapp.gateway.read(
            lambda store: adapter.queue_values(store, s.queue, s.rubric_ref, s.dataset))
        self.post_message(FilterValuesLoaded(datasets, bands))

    def on_filter_values_loaded(self, message: FilterValuesLoaded) -> None:
        from reviewer.tui.screens.filter import FilterDialog

        datasets, bands = message.datasets, message.bands

        def done(filt: QueueFilter | None) -> None:
            if filt is not None:
                self.set_filter(filt)

        blind = self.rapp.session.blind
        self.app.push_screen(FilterDialog(self.filt, datasets, [] if blind else bands, blind), done)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``x`` is offered only while a filter is in force."""
        if action == "clear_filter":
            return self.filt.active
        return True

    def action_clear_filter(self) -> None:
        """Show the whole queue again."""
        if not self.filt.active:
            self.notify("no filter to clear")
            return
        self.query_one("#queue-search", Input).value = ""
        self.set_filter(QueueFilter())

    def action_refresh(self) -> None:
        """Reload the current page."""
        self.load_page()

    def action_safety(self) -> None:
        """Open the safety screen (anyone sees flags; only role safety decides)."""
        from reviewer.tui.screens.safety import SafetyScreen

        self.app.push_screen(SafetyScreen())

    def action_sort(self) -> None:
        """Open the sort dialog: the order the store reads the list in."""
        from reviewer.tui.screens.sort import SortDialog

        def done(order: QueueOrder | None) -> None:
            if order is not None:
                self.set_order(order)

        self.app.push_screen(SortDialog(self.order, self.rapp.session.blind), done)

    def set_order(self, order: QueueOrder) -> None:
        """Sort the list in ``order`` (from its first page; the filter stays)."""
        self.order = order
        self.page_starts = [None]
        self.load_page()

    def action_history(self) -> None:
        """The reviewer's own last decisions on this queue; enter opens one."""
        from reviewer.tui.screens.history import HistoryScreen

        def done(item_pk: int | None) -> None:
            if item_pk is not None:
                self.rapp.open_item(item_pk)

        self.app.push_screen(HistoryScreen(), done)
