"""The headline is the score where a rubric names one (REVAL's figure treatment: treatment
parity): the queue list's score and band, the item header and the report's leaderboard lead with
it, the rubric mean beside it; a rubric without a headline shows its overall as before.

By hand (scale 1–5, REVAL's overall (weighted sum − 1) / 4, every criterion the same score):
model "even" has a pair judged 3 and 3 — each item 0.5, parity 1.0; model "tilted" a pair judged
5 and 3 — items 1.0 and 0.5, parity 0.5. By the rubric mean "tilted" leads (0.75 against 0.5);
by the headline "even" does (1.0 against 0.5). Parity 0.5 is in the band "Potential bias",
while the item judged 5 is "High" by its overall.
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import text

from reviewer.services.importing import import_file
from reviewer.services.page.report_page import report_page
from reviewer.services.report_render import run_report_markdown
from reviewer.services.run_report import run_report
from reviewer.store import Store, open_store
from reviewer.tui import adapter
from reviewer.tui.screens.scoring import verdict
from tests.store.conftest import DEMO
from tests.store.headline import CRITERIA, REF, pairs_file


def _rows(store: Store, ref: str) -> dict[str, adapter.QueueLine]:
    return {r.item_id: r for r in adapter.lines(store.queue.queue_page("triage", ref, limit=500))}


def test_the_queue_list_shows_the_headline_with_the_mean_beside_it(store: Store, tmp_path: Path) -> None:
    import_file(store, pairs_file(tmp_path), REF)
    rows = _rows(store, REF)
    tilted = rows["tilted-a"]
    assert tilted.overall == 1.0 and tilted.headline == 0.5
    assert (tilted.score, tilted.band) == ("0.50 · mean 1.00", "Potential bias")
    assert (rows["even-b"].score, rows["even-b"].band) == ("1.00 · mean 0.50", "High")
    # the filter offers the bands the list shows
    assert store.queue.queue_values("triage", REF, None)[1] == ["High", "Potential bias"]


def test_a_rubric_without_a_headline_shows_its_overall(demo_store: Store) -> None:
    rows = list(_rows(demo_store, "general-quality@1.0.0").values())
    scored = [r for r in rows if r.overall is not None]
    assert scored and all(r.headline is None for r in rows)
    assert all(r.score == f"{r.overall:.2f}" for r in scored)
    export = {r["id"]: r for r in demo_store.items.export_rows("general-quality@1.0.0")}
    assert all("headline" not in export[r.item_id] for r in rows)


def test_the_item_header_leads_with_the_headline(store: Store, tmp_path: Path) -> None:
    import_file(store, pairs_file(tmp_path), REF)
    pk = store.items.items_by_id("tilted-a")[0][0]
    line = verdict(adapter.load_item(store, pk, "ana")).plain
    assert line.startswith("judge treatment parity 0.50  Potential bias  · mean 1.00  High   pass"), line


def test_the_leaderboard_is_ordered_by_the_headline(store: Store, tmp_path: Path) -> None:
    import_file(store, pairs_file(tmp_path), REF)
    rep = run_report(store, REF)
    board = rep["leaderboard"]
    assert [(b["model"], b.get("headline_mean"), b["mean_overall"]) for b in board] == [
        ("even", 1.0, 0.5), ("tilted", 0.5, 0.75)]
    md = run_report_markdown(rep)
    assert "| model | items | mean treatment parity | mean overall | pass rate |\n|---|---|---|---|---|\n" \
           "| even | 2 | 1.000 | 0.500 |" in md
    assert ("<th class=num>mean treatment parity</th><th class=num>mean overall</th><th class=num>pass rate</th>"
            "</tr><tr><td>even</td><td class=num>2</td><td class=num>1.000</td><td class=num>0.500</td>") in report_page(rep)
    import_file(store, DEMO / "general-quality.jsonl", "general-quality@1.0.0", dataset="demo")
    plain = run_report(store, "general-quality@1.0.0")["leaderboard"]
    assert all("headline_mean" not in b for b in plain)
    assert [b["mean_overall"] for b in plain] == sorted((b["mean_overall"] or 0 for b in plain), reverse=True)


#: Each item's (headline, band) by item id.
Headlines = dict[str, tuple[float | None, str | None]]


def _headlines_before_and_after(db_url: str, items: Path, *older: str) -> tuple[Headlines, Headlines]:
    """Each item's (headline, band) as imported, and again after the SQL ``older`` (what an older
    release left) and the store opened again (its migrations run)."""
    store = open_store(db_url)
    import_file(store, items, REF)
    want = {k: (r.headline, r.band) for k, r in _rows(store, REF).items()}
    with store.db.engine.begin() as conn:
        for statement in older:
            conn.execute(text(statement))
    store.close()
    again = open_store(db_url)
    try:
        return want, {k: (r.headline, r.band) for k, r in _rows(again, REF).items()}
    finally:
        again.close()


def test_a_database_from_before_gets_its_headlines(db_url: str, tmp_path: Path) -> None:
    # what an older release left: no column (nor the later sort indexes on it), the mean's band
    want, got = _headlines_before_and_after(
        db_url, pairs_file(tmp_path), "DROP INDEX ix_item_sort_judge", "DROP INDEX ix_item_sort_judge_desc",
        "DELETE FROM schema_migrations WHERE name = '0014s_queue_sort'", "ALTER TABLE item DROP COLUMN judge_headline", "UPDATE item SET judge_band = 'High'",
        "DELETE FROM schema_migrations WHERE name = '0012h_judge_headline'")
    assert got == want and want["tilted-b"] == (0.5, "Potential bias")


def _without_headline(tmp_path: Path) -> Path:
    """The pairs, and one item whose judge gave no headline score (no treatment parity)."""
    path = pairs_file(tmp_path)
    lone = {"id": "lone", "input": "Describe it.", "output": "It is.",
            "judge": {"model": "j", "scores": {c: 5 for c in CRITERIA}}}
    path.write_text(path.read_text() + json.dumps(lone) + "\n")
    return path


def test_an_item_without_a_headline_keeps_no_band_of_its_overall(db_url: str, tmp_path: Path) -> None:
    """A store that had ``0012h`` as first released: its backfill left an item without a headline
    score with the overall's band; ``0014h`` writes what a judge run writes (no headline, no band)."""
    want, got = _headlines_before_and_after(
        db_url, _without_headline(tmp_path), "UPDATE item SET judge_band = 'High' WHERE item_id = 'lone'",
        "DELETE FROM schema_migrations WHERE name = '0014h_headline_bands'")
    assert want["lone"] == (None, None) and want["tilted-b"] == (0.5, "Potential bias")
    assert got == want
