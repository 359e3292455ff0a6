"""The queue list under Pilot for a rubric that names a headline (REVAL's figure treatment): the
`judge` cell leads with the item's treatment parity, the rubric mean beside it, and the band cell
is the headline's (see tests/store/test_headline_score.py for the figures worked by hand)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from reviewer.services.importing import import_file
from reviewer.store import open_store
from reviewer.tui.app import make_app
from tests.store.headline import REF, pairs_file
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, settle


async def test_the_queue_list_leads_with_the_headline(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "reval.db"))
    try:
        import_file(store, pairs_file(tmp_path), REF)
        app = make_app(store, REVIEWER, rubric_ref=REF)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            table = app.screen.query_one(DataTable)
            row = [str(c).strip() for c in table.get_row_at(2)]  # tilted-a: parity 0.5, overall 1.0
            assert row[:4] == ["tilted-a", "", "0.50 · mean 1.00", "Potential bias"], row
    finally:
        store.close()
