"""A late submit in the TUI: the reviewer's lease ran out and another person claimed the item;
the score the reviewer then enters is refused, the screen says so in one line and shows it no
longer, and nothing of it is stored. Both backends (the demo database on SQLite; the demo items
imported on PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update
from sqlmodel import col

from reviewer.store import Store
from reviewer.store.tables import Item, now
from reviewer.tui.app import make_app
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, settle, start


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
        d = state.dims[screen.focus_index]
        await pilot.press("7")
        await settle(app, pilot)
        assert len(app.write_errors) == 1
        said = [str(n.message) for n in app._notifications if "not stored" in str(n.message)]
        assert len(said) == 1 and "\n" not in said[0]
        assert f"{state.item_id}: your lease ran out and bo has claimed the item since" in said[0]
        assert "open the item from the queue again to score it" in said[0]
        assert d.my_score is None and screen.done == []  # and the screen no longer shows the 7
        assert [h for h in store.scores.human_rows(state.item_pk) if h.reviewer == REVIEWER] == before
