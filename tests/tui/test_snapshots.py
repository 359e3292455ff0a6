"""SVG snapshots of each screen at a fixed terminal size (textual is pinned in pyproject)."""

from __future__ import annotations

from typing import Any

import pytest

from reviewer.store import Store
from reviewer.tui.app import make_app
from tests.tui.conftest import REVIEWER
from tests.tui.test_review_flow import settle

SIZE = (130, 42)
PAIRWISE = "reval-issue-framing@1.0.0"
#: screen → (blind session, the keys that lead there from the queue, the session's rubric)
SCREENS: dict[str, tuple[bool, tuple[str, ...], str | None]] = {
    "queue": (False, (), None),
    "item": (False, ("g", "7"), None),
    "blind_item": (True, ("g",), None),
    "pair": (False, ("g", "5", "l", "b"), PAIRWISE),
    "safety": (False, ("S",), None),
    "help": (False, ("g", "question_mark"), None),
    "calibration": (False, ("c",), None),
    "calibration_dimension": (False, ("c", "enter"), None),
}


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_screen(screen: str, snap_compare: Any, store: Store) -> None:
    blind, keys, rubric = SCREENS[screen]
    app = make_app(store, REVIEWER, blind=blind, rubric_ref=rubric)

    async def ready(pilot: Any) -> None:
        await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)
