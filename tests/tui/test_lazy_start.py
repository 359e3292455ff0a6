"""`rubricate review` starts on a database path: the first page comes from the standard-library
read while Textual loads, the store opens in a worker behind it, and work goes on as usual."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.store import open_store
from reviewer.store.lite import first_page, sqlite_path
from reviewer.tui import firstpage
from reviewer.tui.app import make_app
from reviewer.tui.screens.item import ItemScreen
from reviewer.tui.screens.queue import QueueScreen
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, settle

REFS = (None, "general-quality@1.0.0", "rag-answer@1.0.0")


@pytest.mark.parametrize("queue", ["triage", "audit", "safety"])
def test_the_lite_first_page_is_the_stores_first_page(demo_db: Path, queue: str) -> None:
    store = open_store(str(demo_db))
    store.queue.create_audit_sample("general-quality@1.0.0", 10, seed=3)
    claim = store.queue.claim_next("triage", "someone")  # a held lease shows as such on both
    assert claim is not None
    for ref in REFS:
        for dataset in (None, "demo", "nope"):
            want = store.queue.queue_page(queue, ref, dataset, limit=50)
            got = first_page(demo_db, queue, ref, dataset, 50)
            assert got is not None
            assert got == (want, store.queue.queue_count(queue, ref, dataset)), (queue, ref, dataset)
    store.close()


def test_the_lite_read_declines_what_it_cannot_answer(demo_db: Path) -> None:
    assert first_page(demo_db, "triage", "general-quality", None, 5) is None  # no version: ask the store
    assert first_page(demo_db, "tirage", None, None, 5) is None
    assert sqlite_path("postgresql+psycopg://u@h/db") is None
    assert sqlite_path(f"sqlite:///{demo_db}") == demo_db
    assert first_page(Path(__file__), "triage", None, None, 5) is None  # not a database


async def test_the_app_opens_the_store_behind_the_first_page(demo_db: Path) -> None:
    db = str(demo_db)
    store = open_store(db)
    store.queue.set_queue_settings("triage", blind=True)
    store.close()
    first = firstpage.start(db, "triage", None, None, 200)
    app = make_app(None, REVIEWER, db=db, first_page=first)
    assert app.gateway.opening and not app.session.blind
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, QueueScreen) and len(app.screen.rows) == 123  # every demo item
        while not app.gateway.ready.done():
            await pilot.pause(0.01)
        await settle(app, pilot)
        assert app.session.blind  # the queue is set blind: it is blind for this reviewer too
        await pilot.press("g")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        pk = app.screen.state.item_pk
        await pilot.press("7")
        await settle(app, pilot)
    rows = [h for h in open_store(db).scores.human_rows(pk) if h.reviewer == REVIEWER]
    assert [(h.score, h.blind) for h in rows] == [(7.0, True)]


async def test_a_database_that_cannot_open_ends_the_app_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-db.sqlite"
    bad.write_text("this is not SQLite\n")
    app = make_app(None, REVIEWER, db=str(bad), first_page=firstpage.start(str(bad), "triage", None, None, 50))
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(300):
            if app.return_code:
                break
            await pilot.pause(0.01)
    assert app.return_code == 3  # README "Exit codes": 3, the database is unavailable
