"""SVG snapshots of each screen at 160×50, at 80×24 (a laptop over SSH) and with NO_COLOR
(textual is pinned in pyproject). Each was looked at before it was accepted."""

from __future__ import annotations

from typing import Any

import pytest

from reviewer.store import Store
from reviewer.tui.app import make_app
from tests.tui.conftest import REVIEWER
from tests.tui.test_review_flow import settle

PAIRWISE = "reval-issue-framing@1.0.0"
RAG = "rag-answer"  # the bundled version, whichever it is
#: screen → (blind session, the keys that lead there from the queue, the session's rubric)
SCREENS: dict[str, tuple[bool, tuple[str, ...], str | None]] = {
    "queue": (False, (), None),
    "blind_queue": (True, (), None),
    "item": (False, ("g", "7"), None),
    "item_context": (False, ("g", "c"), RAG),
    "blind_item": (True, ("g",), None),
    "blind_revealed": (True, ("g", "4", "v"), None),
    "reason": (False, ("g", "1", "r", "tab", "2"), None),
    "flag": (False, ("g", "f"), None),
    "comment": (False, ("g", "C", *"cites a retracted study"), None),
    "pair": (False, ("g", "5", "l", "b"), PAIRWISE),
    "safety": (False, ("S",), None),
    "safety_decided": (False, ("S", "down", "e", *"looks real", "enter"), None),
    "help": (False, ("g", "question_mark"), None),
    "calibration": (False, ("c",), None),
    "calibration_dimension": (False, ("c", "enter"), None),
}
#: variant → (terminal size, NO_COLOR)
VARIANTS: dict[str, tuple[tuple[int, int], bool]] = {
    "160x50": ((160, 50), False),
    "80x24": ((80, 24), False),
    "no_color": ((160, 50), True),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_screen(screen: str, variant: str, snap_compare: Any, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    blind, keys, rubric = SCREENS[screen]
    size, no_color = VARIANTS[variant]
    monkeypatch.setenv("RUBRICATE_CONFIG", "/nonexistent/rubricate/config.yaml")  # the help names it
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    app = make_app(store, REVIEWER, blind=blind, rubric_ref=store.get_rubric(rubric).ref if rubric else None)

    async def ready(pilot: Any) -> None:
        await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=ready)
