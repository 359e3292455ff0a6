"""A late submit in the TUI: the reviewer's lease ran out and another person claimed the item;
the score the reviewer then enters is refused, the screen says so in one line, and nothing of it
is stored. Both backends (the demo database on SQLite; the demo items imported on PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import col

from reviewer.services.importing import import_file
from reviewer.store import Store, open_store
from reviewer.store.tables import Item, now
from reviewer.tui.app import make_app
from tests.store.conftest import DEMO, pg_schema_url
from tests.tui.conftest import REVIEWER
from tests.tui.test_review_flow import SIZE, settle, start


@pytest.fixture(params=["sqlite", "postgres"])
def either(request: pytest.FixtureRequest, demo_db: Path) -> Iterator[Store]:
    """The demo items on each backend."""
    if request.param == "sqlite":
        s = open_store(str(demo_db))
        yield s
        s.close()
        return
    for url in pg_schema_url():
        s = open_store(url)
        import_file(s, DEMO / "general-quality.jsonl", "general-quality@1.0.0", dataset="demo")
        yield s
        s.close()


async def test_a_score_entered_after_another_person_claimed_is_refused_on_screen(either: Store) -> None:
    store = either
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        state = screen.state
        assert state.claim is not None
        with store.db.write() as conn:  # the reviewer stepped away: the lease ran out
            conn.execute(update(Item).where(col(Item.pk) == state.item_pk).values(lease_until=now() - timedelta(minutes=1)))
        taken = store.queue.claim_item(state.item_pk, "triage", "bo")
        assert taken is not None
        before = [h for h in store.scores.human_rows(state.item_pk) if h.reviewer == REVIEWER]
        await pilot.press("7")
        await settle(app, pilot)
        assert len(app.write_errors) == 1
        said = [str(n.message) for n in app._notifications if "not stored" in str(n.message)]
        assert len(said) == 1 and "\n" not in said[0]
        assert f"{state.item_id}: your lease ran out and bo has claimed the item since" in said[0]
        assert "open the item from the queue again to score it" in said[0]
        assert [h for h in store.scores.human_rows(state.item_pk) if h.reviewer == REVIEWER] == before
