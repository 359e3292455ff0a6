"""SVG snapshots of each screen at a fixed terminal size (textual is pinned in pyproject)."""

from __future__ import annotations

from typing import Any

import pytest

from reviewer.store import Store
from reviewer.tui.app import make_app
from tests.tui.conftest import REVIEWER
from tests.tui.test_review_flow import settle

SIZE = (130, 42)
#: screen → (blind session, the keys that lead there from the queue)
SCREENS = {
    "queue": (False, ()),
    "item": (False, ("g", "7")),
    "blind_item": (True, ("g",)),
    "safety": (False, ("S",)),
    "help": (False, ("g", "question_mark")),
    "calibration": (False, ("c",)),
    "calibration_dimension": (False, ("c", "enter")),
}


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_screen(screen: str, snap_compare: Any, store: Store) -> None:
    blind, keys = SCREENS[screen]
    app = make_app(store, REVIEWER, blind=blind)

    async def ready(pilot: Any) -> None:
        await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)
