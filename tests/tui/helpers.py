"""Small helpers the TUI tests share (test modules import these, never one another)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert
from textual.widgets import DataTable, Input, TextArea

from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.store.tables import HumanScore, now
from reviewer.tui.app import ReviewApp
from reviewer.tui.screens.item import ItemScreen
from tests.tui.conftest import REVIEWER


def next_pk(store: Store) -> int:
    """The item the triage queue will serve the reviewer next (claimed and given back)."""
    claim = store.queue.claim_next("triage", REVIEWER)
    assert claim is not None
    store.queue.release(claim)
    return int(claim.item_pk)


SIZE = (130, 42)


async def settle(app: ReviewApp, pilot: Any) -> None:
    """Wait for the store workers and queued writes, then for the screen to catch up. Dialog
    workers (which wait for the reviewer) are left alone."""
    for _ in range(2):
        await pilot.pause()
        busy = [w for w in app.workers if w.group != "default"]
        if busy:  # an empty list would mean "all workers", the waiting dialog included
            await app.workers.wait_for_complete(busy)
        while app.gateway.pending:
            await pilot.pause(0.01)
    await pilot.pause()


async def press_to(app: ReviewApp, pilot: Any, key: str, screen_type: type[Any]) -> Any:
    """Settle, press ``key`` on the queue and return the screen it opened (of ``screen_type``)."""
    await settle(app, pilot)
    await pilot.press(key)
    await settle(app, pilot)
    assert isinstance(app.screen, screen_type)
    return app.screen


async def start(app: ReviewApp, pilot: Any) -> ItemScreen:
    screen: ItemScreen = await press_to(app, pilot, "g", ItemScreen)
    return screen


async def focus(pilot: Any, screen: ItemScreen, index: int) -> None:
    """Move the dimension focus with k until it is on ``index``."""
    while screen.focus_index != index:
        await pilot.press("k")


async def score_all(app: ReviewApp, pilot: Any, screen: Any) -> None:
    """Score every dimension of the item on ``screen`` (agree where the judge scored, else the
    scale's lowest level), so the review is complete and the item done for this reviewer."""
    for i, d in enumerate(screen.state.dims):
        await focus(pilot, screen, i)
        if d.agree_level is not None:
            await pilot.press("enter")
        else:
            low = d.dim.scale.levels[0] if d.dim.scale.levels else d.dim.scale.min
            await pilot.press(str(int(low) % 10))
        await settle(app, pilot)


def mine(store: Store, item_pk: int) -> list[tuple[str, float | None, str]]:
    return [(h.dimension, h.score, h.kind) for h in store.scores.human_rows(item_pk) if h.reviewer == REVIEWER]


def leases(store: Store) -> list[int]:
    from sqlalchemy import text

    with store.db.read() as conn:
        return sorted(conn.execute(text("SELECT pk FROM item WHERE lease_reviewer = :r"), {"r": REVIEWER}).scalars())


async def open_item(app: ReviewApp, pilot: Any, pk: int) -> ItemScreen:
    await settle(app, pilot)
    app.open_item(pk)
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ItemScreen)
    return screen


REF = "general-quality@1.0.0"


#: A reviewer the demo does not have: their gold error is this test's alone.
GOLD_REVIEWER = "quinn"


def gold_weeks(store: Store, tmp_path: Path) -> None:
    """Three gold items; quinn was 1 off on two of them three weeks ago and is 4 off on one now."""
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps({"id": f"gold-{i}", "output": f"known answer {i}", "gold": {"accuracy": 5}})
                            + "\n" for i in range(3)))
    import_file(store, path, REF, dataset="gold")
    pks = [store.items.items_by_id(f"gold-{i}", dataset="gold")[0][0] for i in range(3)]
    with store.db.write() as conn:
        for pk in pks[:2]:
            conn.execute(insert(HumanScore).values(item_pk=pk, dimension="accuracy", reviewer=GOLD_REVIEWER, score=6,
                                                   kind="score", created_at=now() - timedelta(days=21)))
    store.scores.add_human_score(pks[2], "accuracy", GOLD_REVIEWER, 9)


async def steady(app: Any, pilot: Any) -> None:
    """A text field's cursor blinks every half second, so a picture taken on either side of a
    blink differed (the flag dialog's, once in seven runs): the cursor is held on before it. A
    table sizes its columns to new rows only when the app is next idle, so a picture taken in
    between showed cut columns (the calibration drill-down's, once under load): wait for that."""
    for field in app.screen.query(Input):
        field.cursor_blink = False
    for area in app.screen.query(TextArea):  # (the correction editor's)
        area.cursor_blink = False
    for _ in range(500):  # (at most ~5 s; DataTable keeps the flag privately)
        if not any(t._require_update_dimensions for t in app.screen.query(DataTable)) and not _filling(app):
            break
        await pilot.pause(0.01)
    await pilot.pause()


def _filling(app: Any) -> bool:
    """Whether the queue's table still waits for the rest of its page: a screenful of rows goes in
    before the first frame and the rest after it (QueueScreen._add_rows), widening columns, so a
    picture taken in between showed the narrower columns (the queue's, once in a CI run)."""
    from reviewer.tui.screens.queue import QueueScreen

    screen = app.screen
    return isinstance(screen, QueueScreen) and screen.query_one(DataTable).row_count < len(screen.rows)


#: variant → (terminal size, NO_COLOR)
VARIANTS: dict[str, tuple[tuple[int, int], bool]] = {
    "160x50": ((160, 50), False),
    "80x24": ((80, 24), False),
    "no_color": ((160, 50), True),
}


def terminal_variant(variant: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """The variant's terminal: its size, NO_COLOR set or not, and a config path the help names."""
    size, no_color = VARIANTS[variant]
    monkeypatch.setenv("RUBRICATE_CONFIG", "/nonexistent/rubricate/config.yaml")
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    return size
