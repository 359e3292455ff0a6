"""SVG snapshots of each screen at a fixed terminal size (textual is pinned in pyproject)."""

from __future__ import annotations

from typing import Any

from reviewer.store import Store
from reviewer.tui.app import make_app
from tests.tui.conftest import REVIEWER
from tests.tui.test_review_flow import settle

SIZE = (130, 42)


def test_queue_screen(snap_compare: Any, store: Store) -> None:
    app = make_app(store, REVIEWER)

    async def ready(pilot: Any) -> None:
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_item_screen(snap_compare: Any, store: Store) -> None:
    app = make_app(store, REVIEWER)

    async def ready(pilot: Any) -> None:
        await settle(app, pilot)
        await pilot.press("g")
        await settle(app, pilot)
        await pilot.press("7")
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_blind_item_screen(snap_compare: Any, store: Store) -> None:
    app = make_app(store, REVIEWER, blind=True)

    async def ready(pilot: Any) -> None:
        await settle(app, pilot)
        await pilot.press("g")
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_safety_screen(snap_compare: Any, store: Store) -> None:
    app = make_app(store, REVIEWER)

    async def ready(pilot: Any) -> None:
        await settle(app, pilot)
        await pilot.press("S")
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_help_screen(snap_compare: Any, store: Store) -> None:
    app = make_app(store, REVIEWER)

    async def ready(pilot: Any) -> None:
        await settle(app, pilot)
        await pilot.press("g")
        await settle(app, pilot)
        await pilot.press("question_mark")
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)
