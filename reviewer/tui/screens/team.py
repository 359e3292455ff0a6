"""The team view (leads, ``t`` on the queue): per person and queue, items done, items left for
them, pace over their last active stretch, when they were last active and how many of their
scores a lead accepted of those reviewed — the figures of
``rubricate queue progress`` (:mod:`reviewer.services.team`), read in a worker."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from reviewer.safetext import safe_line, safe_text
from reviewer.services.team import accepted_cell
from reviewer.tui import adapter
from reviewer.tui.gateway import reads
from reviewer.tui.host import ReviewHost, host_of
from reviewer.tui.messages import TeamLoaded
from reviewer.tui.screens.footer import AppKeysFirst, footer
from reviewer.tui.widgets.tables import fill_fitted

if TYPE_CHECKING:
    from reviewer.services.reports import TeamRow

COLUMNS = ("reviewer", "queue", "done", "left", "pace (items/h)", "last active (UTC)", "accepted")


def cells(row: TeamRow) -> tuple[Text, ...]:
    """One person in one queue as the table's cells (the name as data: never markup)."""
    pace = row["pace_per_hour"]
    last = row["last_active"]
    return (safe_text(row["reviewer"], newlines=False), safe_text(row["queue"], newlines=False), Text(str(row["done"]), justify="right"),
            Text(str(row["left"]), justify="right"),
            Text("—" if pace is None else f"{pace:.1f}", justify="right"),
            Text("—" if last is None else last.replace("T", " ").rstrip("Z")),
            Text(accepted_cell(row), justify="right"))


class TeamScreen(AppKeysFirst):
    """Who on the team has done how much."""

    AUTO_FOCUS = "#team-table"

    BINDINGS = [
        Binding("r", "reload", "refresh", id="team.reload"),
        Binding("escape", "app.pop_screen", "back", id="team.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[TeamRow] = []

    @property
    def rapp(self) -> ReviewHost:
        """The app, as a screen may use it (:mod:`reviewer.tui.host`)."""
        return host_of(self.app)

    def compose(self) -> ComposeResult:
        yield Static("reading the team's progress…", id="team-title")
        table: DataTable[Any] = DataTable(id="team-table", cursor_type="row", zebra_stripes=True)
        table.add_columns(*COLUMNS)
        yield table
        yield Static(Text("pace: items/h over the last stretch (gaps ≤ 30 min) · accepted/lead-reviewed",
                          style="dim"),
                     id="team-note")
        yield footer()

    def on_mount(self) -> None:
        self.load()

    def action_reload(self) -> None:
        """Read the figures again."""
        self.load()

    @reads("the team's progress", group="team")
    def load(self) -> None:
        """The session's rubric's figures (every rubric's, without one)."""
        ref = self.rapp.session.rubric_ref
        self.post_message(TeamLoaded(self.rapp.gateway.read(lambda store: adapter.team_progress(store, ref))))

    def on_team_loaded(self, message: TeamLoaded) -> None:
        self.rows = message.rows
        fill_fitted(self.query_one(DataTable), COLUMNS, [cells(row) for row in self.rows])
        people = len({r["reviewer"] for r in self.rows})
        ref = self.rapp.session.rubric_ref
        title = Text(" team ", style="bold reverse")
        title.append(safe_line(f"  {people} people · {ref or 'every rubric'}   r: refresh · escape: back"),
                     style="dim")
        self.query_one("#team-title", Static).update(title)
