"""Full garbage collections wait for a pause (reviewer/tui/idlegc.py): never right after a key,
always once the reviewer has paused, and Python's own full collections pushed back so they do not
land in the middle of a frame."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from reviewer.store import Store
from reviewer.tui import idlegc
from reviewer.tui.app import make_app
from reviewer.tui.idlegc import BACKSTOP, YOUNG, IdleCollector
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import settle


@pytest.fixture(autouse=True)
def _thresholds() -> Iterator[None]:
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def _due() -> None:
    """Make a full collection due: one younger collection since the last full one."""
    gc.collect()
    gc.collect(1)
    assert gc.get_count()[2] >= 1


def test_python_full_collections_are_pushed_back() -> None:
    gc.set_threshold(700, 10, 10)  # Python's defaults
    IdleCollector()
    assert gc.get_threshold() == (YOUNG, 10, BACKSTOP)


def test_young_collections_are_rarer_than_pythons() -> None:
    """At Python's 700 a next item ran 5-9 young collections (gc callbacks counted in
    bench_tui's item loop); at YOUNG, about one."""
    gc.set_threshold(700, 10, 10)
    IdleCollector()
    runs: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            runs.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    try:
        keep: list[list[int]] = [[] for _ in range(YOUNG // 2)]  # as many live containers as one item's frame makes
        del keep
    finally:
        gc.callbacks.remove(count)
    assert runs == []  # at 700 (the old threshold) this ran 7 collections


def test_no_full_collection_right_after_a_key() -> None:
    clock = [100.0]
    c = IdleCollector(lambda: clock[0])
    _due()
    clock[0] += idlegc.IDLE_S / 2
    c.touched()
    clock[0] += idlegc.IDLE_S / 2
    assert c.tick() is False and gc.get_count()[2] >= 1


def test_a_full_collection_once_the_reviewer_pauses() -> None:
    clock = [100.0]
    c = IdleCollector(lambda: clock[0])
    c.touched()
    _due()
    clock[0] += idlegc.IDLE_S
    assert c.tick() is True and gc.get_count()[2] == 0
    assert c.tick() is False  # nothing due any more: no second collection


async def test_the_app_hears_keys_and_collects_only_after_a_pause(store: Store) -> None:
    """The real app: a key handled by a screen still counts as input, and the collector's timer
    runs a due full collection only once the reviewer has paused."""
    app = make_app(store, REVIEWER)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        before = app.collector.last_input
        await pilot.press("g")  # handled by the queue screen
        await settle(app, pilot)
        assert app.collector.last_input > before
        # the collector's clock read as "half a pause after that key" (settling the app can take
        # over a second on a loaded machine, which made the real clock say the pause was over)
        heard = app.collector.last_input
        now = [heard + idlegc.IDLE_S / 2]
        app.collector.clock = lambda: now[0]
        _due()
        assert app.collector.tick() is False  # a key a moment ago: not now
        now[0] = heard + idlegc.IDLE_S
        assert app.collector.tick() is True and gc.get_count()[2] == 0
