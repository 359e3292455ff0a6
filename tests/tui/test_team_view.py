"""The team view under Pilot: ``t`` on the queue (leads only) shows the figures of
``rubricate queue progress`` — the same service — cell for cell."""

from __future__ import annotations

from datetime import timedelta

from textual.coordinate import Coordinate
from textual.widgets import DataTable

from reviewer.services.team import team_progress
from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.screens.queue import QueueScreen
from reviewer.tui.screens.team import COLUMNS, TeamScreen
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, press_to, settle
from tests.tui.team_work import at, team_work, work


async def test_the_team_view_shows_the_services_figures(store: Store) -> None:
    team_work(store)
    app = make_app(store, REVIEWER)  # the demo gives this reviewer every role
    async with app.run_test(size=SIZE) as pilot:
        screen: TeamScreen = await press_to(app, pilot, "t", TeamScreen)
        expected = team_progress(store)
        assert screen.rows == expected
        table = screen.query_one(DataTable)
        shown = [[str(table.get_cell_at(Coordinate(r, c))) for c in range(len(COLUMNS))] for r in range(table.row_count)]
        ana = next(row for row in shown if row[:2] == ["ana", "triage"])
        assert ana[2:] == ["4", str(next(r["left"] for r in expected if r["reviewer"] == "ana"
                                         and r["queue"] == "triage")), "7.2", "2026-03-02 09:25:00", "2/3"]
        tess = next(row for row in shown if row[:2] == ["tess", "triage"])
        assert tess[2] == "1" and tess[4] == "2.0" and tess[5] == "2026-03-02 08:40:00" and tess[6] == "—"
        assert len(shown) == len(expected)
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, QueueScreen)


async def test_a_reviewer_without_the_lead_role_is_refused(store: Store) -> None:
    store.roles.add_reviewer("rae", "reviewer")
    app = make_app(store, "rae")
    async with app.run_test(size=SIZE) as pilot:
        await press_to(app, pilot, "t", QueueScreen)


async def test_a_markup_name_is_shown_as_typed(store: Store) -> None:
    """A reviewer named like markup (``[/]`` crashed a DataTable reading a plain cell as markup)
    is shown as typed in the team view."""
    at9 = at(9, 0)
    work(store, "[/]eve", at9, at9 + timedelta(minutes=5))
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen: TeamScreen = await press_to(app, pilot, "t", TeamScreen)
        table = screen.query_one(DataTable)
        names = [str(table.get_cell_at(Coordinate(r, 0))) for r in range(table.row_count)]
        svg = app.export_screenshot().replace("&#160;", " ")
    assert "[/]eve" in names and "[/]eve" in svg
