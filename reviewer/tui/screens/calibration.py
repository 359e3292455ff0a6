"""The calibration screen (leads): how far the judge can be trusted, dimension by dimension.

The table is the calibration report (``reviewer.services.calibrate_service``), computed in a worker: one
row per dimension with its status chip and the reason in words (and, under it, the dimension's
last ``rubricate align``: what was chosen and whether it did better on test). ``enter`` opens a dimension: the
judge × human confusion matrix, each reviewer's bias against the judge, and the largest
disagreements; ``enter`` there opens the item, and a digit adjudicates an item on which the
humans disagree once the lead confirms it with a reason (a human score of kind ``adjudication``
carrying that reason, written through the app's writer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Sparkline, Static

from reviewer.safetext import safe, safe_line, safe_text
from reviewer.services.report_render import pairs_line
from reviewer.tui import adapter, palette
from reviewer.tui.gateway import reads
from reviewer.tui.host import ReviewHost, host_of
from reviewer.tui.messages import CalibrationLoaded, DetailLoaded, DriftLoaded
from reviewer.tui.screens.confirm import AdjudicationDialog
from reviewer.tui.screens.footer import AppKeysFirst, footer
from reviewer.tui.screens.scoring import digit_to_score
from reviewer.tui.widgets.charts import CEILING, POINT, SPAN, alpha_bar, confusion_table
from reviewer.tui.widgets.tables import fill_fitted

if TYPE_CHECKING:
    from reviewer.services.reports import DimensionDetail, Disagreement, GoldAccuracy

STATUS_STYLE = {"trusted": "black on green", "tentative": "black on yellow",
                "low_confidence": "white on red", "insufficient_data": "black on grey50"}


def _pass_rates(rows: list[dict[str, Any]]) -> Text:
    """Per rubric, the judge's pass rate beside the one corrected with the audit sample."""
    from reviewer.services.estimate_render import estimate_line

    out = Text()
    seen: set[str] = set()
    for d in rows:
        est = d.get("pass_rate_estimate")
        if est is None or d["rubric"] in seen:
            continue
        seen.add(d["rubric"])
        out.append(("\n" if out else "") + estimate_line(f"{d['rubric']} pass rate", est, 3))
    return out


def _num(x: Any, fmt: str = ".2f") -> str:
    return "—" if x is None else format(x, fmt)


#: The drill-down's table of disagreements.
DETAIL_COLUMNS = ("item", "judge", "humans", "human spread", "gap", "adjudicated")


def _score(x: float) -> str:
    """A score as short as it is exact enough: 7, 7.5, 2.33."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


class CalibrationScreen(AppKeysFirst):
    """Every rubric's dimensions with their trust status."""

    BINDINGS = [
        Binding("enter", "open", "open dimension", id="calibration.open"),
        Binding("r", "reload", "recompute", id="calibration.reload"),
        Binding("escape", "app.pop_screen", "back", id="calibration.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, Any]] = []

    @property
    def rapp(self) -> ReviewHost:
        """The app, as a screen may use it (:mod:`reviewer.tui.host`)."""
        return host_of(self.app)

    def compose(self) -> ComposeResult:
        yield Static("computing agreement…", id="calibration-title")
        table: DataTable[Any] = DataTable(id="calibration-table", cursor_type="row", zebra_stripes=True)
        table.add_columns("rubric", "dimension", "n", "alpha [95% CI]", "humans", "κ quad", "bias j−h", "MAE",
                          "status", f"0  α {POINT} CI {SPAN} humans {CEILING}  1")
        yield Static(id="calibration-estimate")
        yield table
        yield Static(id="calibration-reason")
        yield Vertical(Static("reading reviewers' gold accuracy…", id="drift-head"), id="calibration-drift")
        yield footer()

    def on_mount(self) -> None:
        self.load()
        self.load_drift()

    def action_reload(self) -> None:
        """Compute the report again (after new scores)."""
        self.load()

    @reads("the calibration report", group="calibration")
    def load(self) -> None:
        """The report for the session's rubric, or for every rubric with items."""
        s = self.rapp.session
        self.post_message(CalibrationLoaded(self.rapp.gateway.read(
            lambda store: adapter.calibration_rows(store, s.rubric_ref, s.dataset))))

    @reads("reviewers' gold accuracy", group="calibration-drift")
    def load_drift(self) -> None:
        """Each reviewer's error on gold items week by week (their drift), for the session's rubric."""
        ref = self.rapp.session.rubric_ref
        self.post_message(DriftLoaded(self.rapp.gateway.read(lambda store: adapter.gold_drift(store, ref))))

    def on_calibration_loaded(self, message: CalibrationLoaded) -> None:
        self._fill(message.rows)

    def on_drift_loaded(self, message: DriftLoaded) -> None:
        self._fill_drift(message.rows)

    def _fill_drift(self, rows: list[GoldAccuracy]) -> None:
        """One line per reviewer: gold MAE week by week as a sparkline (higher: further off), the
        figures in words beside it."""
        box = self.query_one("#calibration-drift", Vertical)
        box.remove_children(".drift-row")
        head = self.query_one("#drift-head", Static)
        if not rows:
            head.update(Text(" drift: no reviewer has scored a gold item yet", style="dim"))
            return
        head.update(Text(" drift: each reviewer's gold error (MAE) by week; higher: further off", style="bold"))
        lines = []
        for r in rows:
            weeks = list(r["mae_by_week"].values())
            drift = "—" if r["drift"] is None else f"{r['drift']:+.2f}"
            label = safe_text(f" {r['reviewer']}", newlines=False)
            label.append(f"  {len(weeks)} wk · MAE {weeks[0]:.2f} → {weeks[-1]:.2f} · drift {drift}")
            label.truncate(44, overflow="ellipsis", pad=True)
            # one week is no trend (a line of one value would be drawn at full height)
            trend = Sparkline(weeks, classes="drift-line") if len(weeks) > 1 else Static(
                Text("one week: no trend yet", style="dim"), classes="drift-line")
            lines.append(Horizontal(Static(label, classes="drift-label"), trend, classes="drift-row"))
        box.mount_all(lines)

    def _fill(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        table = self.query_one(DataTable)
        table.clear()
        for i, d in enumerate(rows):
            ci = d.get("alpha_ci")
            alpha = Text(_num(d.get("alpha")) + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""))
            colour = STATUS_STYLE.get(d["status"])
            table.add_row(safe_text(d["rubric"], newlines=False), safe_text(d["dimension"], newlines=False),
                          str(d["n"]), alpha, _num(d.get("alpha_humans")),
                          _num(d.get("kappa_quadratic")), _num(d.get("bias"), "+.2f"), _num(d.get("mae")),
                          safe_text(f" {d['status']} ", palette.label(colour) if colour else "", newlines=False),
                          alpha_bar(d.get("alpha"), d.get("alpha_ci"), d.get("alpha_humans"), d["status"]), key=str(i))
        title = Text(" calibration ", style="bold reverse")
        title.append(safe_line(f"  {len(rows)} dimensions · sample: "
                               f"{', '.join(sorted({d['sample'] for d in rows})) or '—'}"
                               "   enter: open · r: recompute · escape: back"), style="dim")
        self.query_one("#calibration-title", Static).update(title)
        self.query_one("#calibration-estimate", Static).update(_pass_rates(rows))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """``enter`` on a row (the table takes the key before the screen's binding)."""
        event.stop()
        self.action_open()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The highlighted dimension's status, in words, under the table."""
        if 0 <= event.cursor_row < len(self.rows):
            d = self.rows[event.cursor_row]
            # the bar again, beside the figures it draws: seen whole however narrow the terminal
            why = Text(" ").append(alpha_bar(d.get("alpha"), d.get("alpha_ci"), d.get("alpha_humans"), d["status"]))
            ci = d.get("alpha_ci")
            why.append(f"  α {_num(d.get('alpha'))}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")
                       + f" · humans {_num(d.get('alpha_humans'))} · ")
            why.append(safe_line(d["status"]), style="bold")
            why.append("\n").append(safe_line(f" {d['rubric']} · {d['dimension']}: "), style="bold")
            why.append(safe(d.get("reason", "")))
            pairs = pairs_line(d.get("pairs"))
            if pairs:
                why.append(f"\n {safe(pairs)}", style="dim")
            if d.get("align"):
                why.append(f"\n {safe(d['align'])}", style="dim")
            self.query_one("#calibration-reason", Static).update(why)

    def action_open(self) -> None:
        """Open the highlighted dimension."""
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row is None:
            return
        self.app.push_screen(DimensionDetailScreen(self.rows[table.cursor_row]))


class DimensionDetailScreen(AppKeysFirst):
    """One dimension: confusion matrix, reviewers' bias, the largest disagreements."""

    BINDINGS = [
        Binding("enter", "open_item", "open item", id="calibration.open_item"),
        *[Binding(str(d), f"adjudicate({d})", f"adjudicate {d}", show=False, id=f"calibration.adjudicate_{d}")
          for d in range(10)],
        Binding("escape", "app.pop_screen", "back", id="calibration.detail_back"),
    ]

    def __init__(self, row: dict[str, Any]) -> None:
        super().__init__()
        self.row = row
        self.items: list[Disagreement] = []
        #: what the matrix, biases and disagreements on screen were drawn from
        self.last_detail: DimensionDetail | None = None

    @property
    def rapp(self) -> ReviewHost:
        """The app, as a screen may use it (:mod:`reviewer.tui.host`)."""
        return host_of(self.app)

    def compose(self) -> ComposeResult:
        yield Static(self._head(), id="detail-head")
        yield Static("loading…", id="detail-matrix")
        table: DataTable[Any] = DataTable(id="detail-table", cursor_type="row", zebra_stripes=True)
        table.add_columns(*DETAIL_COLUMNS)
        yield table
        yield footer()

    def _head(self) -> Text:
        d = self.row
        t = Text(safe_line(f" {d['rubric']} · {d['dimension']} "), style="bold reverse")
        t.append(safe_line(f"  {d['n']} items · sample {d.get('sample', 'all')}"), style="bold")
        t.append(safe(f"  {d['status']}: {d.get('reason', '')}"), style="dim")
        t.append("\n  enter: open item · digit: adjudicate an item the humans disagree on · escape: back",
                 style="dim")
        return t

    def on_mount(self) -> None:
        self.load()

    @reads("the dimension's detail", group="calibration")
    def load(self) -> None:
        """Confusion matrix, reviewer bias and disagreements for this dimension."""
        row = self.row
        self.post_message(DetailLoaded(self.rapp.gateway.read(lambda store: adapter.calibration_detail(
            store, row["rubric"], row["dimension"], row.get("dataset"), row.get("sample")))))

    def on_detail_loaded(self, message: DetailLoaded) -> None:
        self._fill(message.detail)

    def _fill(self, detail: DimensionDetail) -> None:
        self.last_detail = detail
        self.items = detail["disagreements"]
        matrix = confusion_table(detail["levels"], detail["table"],
                                 f"judge (rows) × humans' mean (columns), {detail['n']} items")
        bias = Table(title="each reviewer against the judge", box=None, pad_edge=False)
        for col in ("reviewer", "n", "bias (judge − human)", "MAE"):
            bias.add_column(col)
        for r in detail["reviewers"]:
            bias.add_row(safe_text(r["reviewer"], newlines=False), str(r["n"]), f"{r['bias']:+.2f}", f"{r['mae']:.2f}")
        from rich.columns import Columns

        self.query_one("#detail-matrix", Static).update(Columns([matrix, bias], padding=(0, 4)))
        rows = [[safe_text(d["item_id"], newlines=False), Text(_score(d["judge"])),
                 safe_text(", ".join(f"{k} {v:g}" for k, v in sorted(d["humans"].items())), newlines=False),
                 Text(f"{d['human_spread']:g}", style="bold yellow" if d["human_spread"] >= 2 else ""),
                 Text(f"{d['gap']:.1f}"), Text(_num(d["adjudicated"], "g"))] for d in self.items]
        # each column as wide as its widest cell, set here (left to the table's idle sizing, rows
        # drawn before it were pictured cut: "gq-0" for "gq-028")
        fill_fitted(self.query_one("#detail-table", DataTable), DETAIL_COLUMNS, rows)

    def _current(self) -> Disagreement | None:
        table = self.query_one("#detail-table", DataTable)
        if not self.items or table.cursor_row is None:
            return None
        return self.items[table.cursor_row]

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """``enter`` on a row (the table takes the key before the screen's binding)."""
        event.stop()
        self.action_open_item()

    def action_open_item(self) -> None:
        """Open the highlighted item (read and score it like any other)."""
        item = self._current()
        if item is not None:
            self.rapp.open_item(item["item_pk"])

    @work
    async def action_adjudicate(self, digit: int) -> None:
        """Settle the highlighted item: the lead's score, recorded as an adjudication once the
        lead has confirmed it with a reason (escape: nothing is written)."""
        item = self._current()
        if item is None:
            return
        if item["human_spread"] < 2:
            self.notify("the humans agree on this item: nothing to adjudicate", severity="warning")
            return
        value = digit_to_score(digit, self.row["scale_min"], self.row["scale_max"], self.row["levels"])
        if value is None:
            self.notify(f"{digit} is not on this dimension's scale", severity="warning")
            return
        humans = ", ".join(f"{k} {v:g}" for k, v in sorted(item["humans"].items()))
        reason = await self.app.push_screen_wait(
            AdjudicationDialog(item["item_id"], self.row["dimension"], value, humans))
        if reason is None:
            return
        self.rapp.adjudicate(item["item_pk"], self.row["dimension"], value, reason)
        item["adjudicated"] = value
        self._fill_row(item)

    def _fill_row(self, item: Disagreement) -> None:
        table = self.query_one("#detail-table", DataTable)
        index = self.items.index(item)
        table.update_cell(str(index), table.ordered_columns[-1].key, _num(item["adjudicated"], "g"))
