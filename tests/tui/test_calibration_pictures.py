"""The calibration screen's pictures under Pilot: each dimension's α bar drawn from its row's
figures, the drill-down's confusion matrix shaded by count, and each reviewer's gold error week
by week as a sparkline of exactly what the gold-accuracy service returns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.columns import Columns
from rich.console import Console
from rich.table import Table
from rich.text import Text
from textual.coordinate import Coordinate
from textual.widgets import DataTable, Sparkline, Static

from reviewer.services.gold import gold_accuracy
from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.screens.calibration import CalibrationScreen, DimensionDetailScreen
from reviewer.tui.widgets.charts import (
    BAR_WIDTH,
    CEILING,
    MATRIX_KEY,
    POINT,
    SHADES,
    SPAN,
    confusion_table,
    shade_of,
)
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import GOLD_REVIEWER, SIZE, gold_weeks, press_to, settle


def _cell(table: DataTable[Any], row: int, column: int) -> str:
    return str(table.get_cell_at(Coordinate(row, column)))


async def test_alpha_bars_follow_each_rows_figures(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen: CalibrationScreen = await press_to(app, pilot, "c", CalibrationScreen)
        table = screen.query_one(DataTable)
        drawn = 0
        for i, row in enumerate(screen.rows):
            bar = _cell(table, i, len(table.columns) - 1)
            if row.get("alpha") is None:
                assert bar == "—"
                continue
            assert len(bar) == BAR_WIDTH
            spot = round(min(max(row["alpha"], 0.0), 1.0) * (BAR_WIDTH - 1))
            assert bar[spot] in (POINT, "◀")
            if row.get("alpha_humans") is not None and round(row["alpha_humans"] * (BAR_WIDTH - 1)) != spot:
                assert bar[round(min(max(row["alpha_humans"], 0.0), 1.0) * (BAR_WIDTH - 1))] in (CEILING, "◀")
            if row.get("alpha_ci"):
                lo, hi = (round(min(max(x, 0.0), 1.0) * (BAR_WIDTH - 1)) for x in row["alpha_ci"])
                assert all(bar[k] in (SPAN, POINT, CEILING) for k in range(lo, hi + 1))
            drawn += 1
        assert drawn, "the demo has dimensions with an α"
        # the highlighted dimension's bar and its figures in words, under the table at any width
        row = screen.rows[table.cursor_row]
        reason = str(screen.query_one("#calibration-reason", Static).render()).split("\n")[0]
        assert reason.strip().startswith(_cell(table, table.cursor_row, len(table.columns) - 1))
        assert f"α {row['alpha']:.2f}" in reason and row["status"] in reason


async def test_the_confusion_matrix_is_shaded_by_count(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen: CalibrationScreen = await press_to(app, pilot, "c", CalibrationScreen)
        screen.query_one(DataTable).move_cursor(row=next(i for i, r in enumerate(screen.rows) if r["n"] > 0))
        await pilot.press("enter")
        await settle(app, pilot)
        detail = app.screen
        assert isinstance(detail, DimensionDetailScreen)
        shown = detail.query_one("#detail-matrix", Static).content
        assert isinstance(shown, Columns)
        matrix = shown.renderables[0]
        assert isinstance(matrix, Table) and matrix.caption == MATRIX_KEY
        assert detail.last_detail is not None
        counts = detail.last_detail["table"]
        most = int(max(c for row in counts for c in row))
        for r, row in enumerate(counts):  # each cell on screen: its count, shaded by its share of the fullest
            for c, n in enumerate(row):
                cell = matrix.columns[c + 1]._cells[r]
                assert isinstance(cell, Text)
                assert cell.plain.strip() == (str(int(n)) if n else "·")
                assert cell.style == shade_of(int(n), most)
                assert [s.style for s in cell.spans if s.style] == (["underline"] if r == c else [])
    levels, counts = [1.0, 2.0, 3.0], [[5, 1, 0], [2, 9, 1], [0, 3, 4]]
    matrix = confusion_table(levels, counts, "t")
    cells: dict[tuple[int, int], Text] = {}
    for r in range(3):
        for c in range(3):
            cell = matrix.columns[c + 1]._cells[r]
            assert isinstance(cell, Text)
            cells[r, c] = cell
    assert cells[1, 1].style == SHADES[-1]  # the fullest cell: darkest, its count underlined (on the diagonal)
    assert [(s.start, s.end, s.style) for s in cells[1, 1].spans] == [(1, 2, "underline")]
    assert cells[0, 2].plain == " · " and cells[0, 2].style == ""  # empty: no shade
    assert cells[0, 1].style == SHADES[1] and cells[1, 0].style == SHADES[1]  # a ninth of the fullest
    assert cells[2, 1].style == SHADES[2]
    text = Console(width=40, no_color=True, record=True)
    text.print(matrix)
    assert " 9 " in text.export_text()  # every count is printed on its cell


async def test_each_reviewers_drift_is_a_sparkline_of_the_services_weeks(store: Store, tmp_path: Path) -> None:
    gold_weeks(store, tmp_path)
    expected = gold_accuracy(store)
    assert len({r["reviewer"]: r for r in expected}[GOLD_REVIEWER]["mae_by_week"]) == 2
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen: CalibrationScreen = await press_to(app, pilot, "c", CalibrationScreen)
        rows = list(screen.query(".drift-row"))
        lines = [[list(s.data or []) for s in row.query(Sparkline)] for row in rows]
        labels = [str(row.query_one(".drift-label", Static).render()) for row in rows]
    # one row per reviewer, in order; a sparkline where there are two weeks or more to draw
    assert lines == [[list(r["mae_by_week"].values())] if len(r["mae_by_week"]) > 1 else [] for r in expected]
    mine = next(i for i, label in enumerate(labels) if label.split()[0] == GOLD_REVIEWER)
    assert lines[mine] == [[1.0, 4.0]] and "drift +3.00" in labels[mine]


async def test_without_gold_scores_the_drift_says_so(store: Store) -> None:
    app = make_app(store, REVIEWER, rubric_ref=store.rubrics.get_rubric("rag-answer").ref)  # no gold items there
    async with app.run_test(size=SIZE) as pilot:
        screen: CalibrationScreen = await press_to(app, pilot, "c", CalibrationScreen)
        assert not screen.query(Sparkline)
        assert "no reviewer has scored a gold item" in str(screen.query_one("#drift-head", Static).render())
