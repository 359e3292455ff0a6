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

REF = "reval-figure-treatment@1.1.0"
CRITERIA = ("factual_accuracy", "tone_balance", "context_fairness", "source_attribution")


def pairs_file(tmp_path: Path) -> Path:
    rows = []
    for model, (a, b) in (("even", (3, 3)), ("tilted", (5, 3))):
        parity = 1 - abs((a - 1) / 4 - (b - 1) / 4)
        for variant, s in (("a", a), ("b", b)):
            rows.append({"id": f"{model}-{variant}", "group": model, "variant": variant, "input": "Describe it.",
                         "output": "It is.", "metadata": {"model": model},
                         "judge": {"model": "j", "scores": {**{c: s for c in CRITERIA}, "treatment_parity": parity}}})
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


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


def test_a_database_from_before_gets_its_headlines(db_url: str, tmp_path: Path) -> None:
    store = open_store(db_url)
    import_file(store, pairs_file(tmp_path), REF)
    want = {k: (r.headline, r.band) for k, r in _rows(store, REF).items()}
    with store.db.engine.begin() as conn:  # what an older release left: no column, the mean's band
        for index in ("ix_item_sort_judge", "ix_item_sort_judge_desc"):  # (later, on the column)
            conn.execute(text(f"DROP INDEX {index}"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0014s_queue_sort'"))
        conn.execute(text("ALTER TABLE item DROP COLUMN judge_headline"))
        conn.execute(text("UPDATE item SET judge_band = 'High'"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0012h_judge_headline'"))
    store.close()
    again = open_store(db_url)
    try:
        assert {k: (r.headline, r.band) for k, r in _rows(again, REF).items()} == want
        assert want["tilted-b"] == (0.5, "Potential bias")
    finally:
        again.close()
