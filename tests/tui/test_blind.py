"""Blind means blind everywhere until the person has scored. On the code before: the summary box
showed "judge 0.33 Potential bias fail" above cards saying "hidden until you score", and the queue
list kept its judge, band and pass columns."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.app import App
from textual.widgets import DataTable, Static

from reviewer.domain.wording import score_text
from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.screens.queue import QueueScreen
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, settle, start


def columns(app: App[Any]) -> list[str]:
    screen = app.screen
    assert isinstance(screen, QueueScreen)
    return [str(c.label) for c in screen.query_one(DataTable).columns.values()]


async def test_the_queue_list_hides_the_judge_in_a_blind_session(store: Store) -> None:
    app = make_app(store, REVIEWER, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert not {"judge", "band", "pass"} & set(columns(app))
        row = [str(c) for c in app.screen.query_one(DataTable).get_row_at(0)]
        assert not any(c in ("pass", "fail") for c in row)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert {"judge", "band", "pass"} <= set(columns(app))


async def test_a_queue_set_blind_is_blind_from_the_first_frame(demo_db: Path) -> None:
    from reviewer.store import open_store
    from reviewer.tui.firstpage import start as first

    s = open_store(str(demo_db))
    s.queue.set_queue_settings("triage", None, None, None, True)
    s.close()
    page = first(str(demo_db), "triage", None, None, 200)
    app = make_app(None, REVIEWER, db=str(demo_db), first_page=page)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wrap_future(app.gateway.ready)  # opened: the queue's blind setting is read
        await settle(app, pilot)  # and the page it starts drawn
        assert app.session.blind
        assert not {"judge", "band", "pass"} & set(columns(app))


async def test_the_summary_hides_the_judge_until_every_dimension_is_scored(store: Store) -> None:
    app = make_app(store, REVIEWER, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        summary = screen.query_one("#item-summary", Static)
        shown = str(summary.render())
        assert "judge hidden" in shown and "pass" not in shown and "fail" not in shown
        d0 = screen.state.dims[0]
        await pilot.press("4")
        await settle(app, pilot)
        assert "fail" not in str(summary.render()) and "pass" not in str(summary.render())
        await pilot.press("v")  # the reveal: every judge score, and what changed against the blind ones
        await settle(app, pilot)
        shown = str(summary.render())
        assert "judge hidden" not in shown and shown.startswith("judge ")  # the judge's verdict is shown
        assert f"revealed: {d0.dim.id} you 4 judge" in shown
        if d0.judge_score is not None:
            gap = d0.judge_score - 4
            assert (f"({'+' if gap > 0 else '−'}{score_text(abs(gap))})" if gap else "(same)") in shown
