"""The item screen's slow pure work runs in thread workers, on a long output (2,000 lines, the
diff's bound): the corrected answer's diff and mark mode's offset map. Each is held on a gate
here (a threading.Event the test opens), so the test needs no timing: while it is held, the
screen shows a placeholder and keys pressed are handled; opened, the result is drawn. On the UI
thread (as before) the held computation froze the app: the gate's wait ran out instead."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from reviewer.domain.corrections import line_diff
from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.tui.app import ReviewApp, make_app
from reviewer.tui.screens import correction, mark
from reviewer.tui.screens.item import ItemScreen
from reviewer.tui.screens.mark import MarkScreen
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, open_item, settle

LINES = 2000


class Gate:
    """Holds a pure function until opened; records whether its wait ran out (the app was frozen:
    nothing could open it) and whether it returned."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn, self.opened = fn, threading.Event()
        self.ran_out = False
        self.returned = 0

    def __call__(self, *args: Any) -> Any:
        if not self.opened.wait(5):
            self.ran_out = True
        result = self.fn(*args)
        self.returned += 1
        return result


def _long_item(store: Store, tmp_path: Path) -> tuple[int, str]:
    output = "\n".join(f"line {i}: the answer goes on about the point it made" for i in range(LINES))
    src = tmp_path / "long.jsonl"
    src.write_text(json.dumps({"id": "long-1", "input": "q", "output": output}) + "\n")
    import_file(store, src, "general-quality@1.0.0", dataset="long")
    return store.queue.queue_page("triage", search="long-1")[0].item_pk, output


async def _until(app: ReviewApp, pilot: Any, done: Callable[[], bool], held: str) -> None:
    """Let the app run (store reads included, the held group's worker left alone) until ``done``."""
    for _ in range(500):
        busy = [w for w in app.workers if w.group not in ("default", held)]
        if busy:
            await app.workers.wait_for_complete(busy)
        if done():
            return
        await pilot.pause(0.01)
    raise AssertionError("never got there")


def _panel(screen: ItemScreen) -> str:
    return str(screen.query_one("#item-correction", Static).render())


async def test_the_correction_diff_is_drawn_off_the_ui_thread(
        store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pk, output = _long_item(store, tmp_path)
    store.corrections.add_correction(pk, REVIEWER, output.replace("line 7: the", "line 7: THE"))
    gate = Gate(line_diff)
    monkeypatch.setattr(correction, "line_diff", gate)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.open_item(pk)
        await _until(app, pilot, lambda: isinstance(app.screen, ItemScreen), "correction-diff")
        screen = app.screen
        assert isinstance(screen, ItemScreen)
        await pilot.pause()
        assert "comparing it with the output" in _panel(screen)  # the placeholder while the diff is held
        before = screen.focus_index
        await pilot.press("j")  # handled while the diff is computed
        await pilot.pause()
        assert screen.focus_index == (before + 1) % len(screen.state.dims)
        assert gate.returned == 0 and not gate.ran_out
        gate.opened.set()
        await settle(app, pilot)
        text = _panel(screen)
        assert gate.returned == 1 and not gate.ran_out
        assert "- line 7: the answer" in text and "+ line 7: THE answer" in text
        assert "comparing it with the output" not in text


async def test_mark_mode_prepares_its_text_off_the_ui_thread(
        store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pk, _ = _long_item(store, tmp_path)
    gate = Gate(mark.shown_offsets)
    monkeypatch.setattr(mark, "shown_offsets", gate)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_item(app, pilot, pk)
        await pilot.press("x")
        await _until(app, pilot, lambda: isinstance(app.screen, MarkScreen), "mark-text")
        marking = app.screen
        assert isinstance(marking, MarkScreen)
        await pilot.pause()
        assert "preparing" in str(marking.query_one("#mark-view").render())  # the placeholder
        await pilot.press("w", "w")  # handled while the text is prepared: two words on
        await pilot.pause()
        assert marking.span == (0, len("line 0"))
        await pilot.press("x")  # the mark ends, stored at its source offsets
        await _until(app, pilot, lambda: app.screen is screen, "mark-text")
        assert gate.returned == 0 and not gate.ran_out
        gate.opened.set()
        await settle(app, pilot)
        assert not gate.ran_out
    [m] = store.marks.marks([pk])[pk]
    assert (m.start, m.end, m.text) == (0, len("line 0"), "line 0")
