"""The queue a score is given in is stored with it — the lease's queue, or the session's when the
item was opened from the queue list (no lease) — so an audit session's scores are labels for the
audit sample (reviewer.domain.labels) and a triage session's are not."""

from __future__ import annotations

import pytest

from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.screens.item import ItemScreen
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, settle

REF = "general-quality@1.0.0"


@pytest.mark.parametrize("queue", ["audit", "triage"])
async def test_a_score_on_an_item_opened_from_the_queue_list_keeps_the_sessions_queue(store: Store,
                                                                                      queue: str) -> None:
    pk = min(store.queue.audit_pks(REF))
    app = make_app(store, REVIEWER, queue=queue)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.open_item(pk)
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ItemScreen) and screen.state.item_pk == pk and screen.state.claim is None
        await pilot.press("7")
        await settle(app, pilot)
    [row] = [h for h in store.scores.human_rows(pk) if h.reviewer == REVIEWER]
    assert row.sample == queue
    assert (REVIEWER in store.ratings.rating_columns(REF, None, "audit").reviewers) == (queue == "audit")
