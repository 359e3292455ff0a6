"""The queue list's filters, in SQL on both backends: dataset, judge band, status, panel
disagreement and literal text (``%``, ``_`` and ``\\`` are plain characters), paged by key and
counted with the same conditions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import col

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.store.queue_filter import like_pattern
from reviewer.store.views import QueueFilter
from rubrics.results import ScoreResult

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")
#: item id → (dataset, judge score on every dimension, output)
ITEMS = {
    "a1": ("alpha", 9, "plain answer"),
    "a2": ("alpha", 2, "100% sure"),
    "a3": ("alpha", 9, "1000 sure"),
    "b_1": ("beta", 2, "under_score here"),
    "b11": ("beta", 9, "underXscore here"),
    "b2": ("beta", 5, "back\\slash [bold]markup[/bold]"),
}


def _load(store: Store, tmp_path: Path) -> dict[str, int]:
    path = tmp_path / "filters.jsonl"
    path.write_text("".join(json.dumps({
        "id": i, "input": "q", "output": out,
        "judge": {"model": "m1", "scores": {d: score for d in DIMS}}}) + "\n" for i, (_, score, out) in ITEMS.items()))
    for ds in ("alpha", "beta"):
        sub = tmp_path / f"{ds}.jsonl"
        sub.write_text("".join(line + "\n" for line in path.read_text().splitlines()
                               if ITEMS[json.loads(line)["id"]][0] == ds))
        import_file(store, sub, REF, dataset=ds)
    return {r.item_id: r.item_pk for r in store.queue.queue_page("triage", limit=50)}


def _ids(store: Store, filt: QueueFilter, limit: int = 50) -> list[str]:
    rows = store.queue.queue_page("triage", filt=filt, limit=limit)
    assert store.queue.queue_count("triage", filt=filt) == len(rows) or len(rows) == limit
    return sorted(r.item_id for r in rows)


def test_dataset_band_and_paging(store: Store, tmp_path: Path) -> None:
    _load(store, tmp_path)
    assert _ids(store, QueueFilter(dataset="beta")) == ["b11", "b2", "b_1"]
    bands = {r.item_id: r.band for r in store.queue.queue_page("triage", limit=50)}
    high = bands["a1"]
    assert high is not None and high != bands["a2"]
    assert _ids(store, QueueFilter(band=high)) == sorted(i for i, b in bands.items() if b == high)
    assert _ids(store, QueueFilter(dataset="alpha", band=high)) == ["a1", "a3"]
    # paged by key under the filter: two pages of one row each, then nothing
    filt = QueueFilter(dataset="alpha", band=high)
    first = store.queue.queue_page("triage", filt=filt, limit=1)
    second = store.queue.queue_page("triage", filt=filt, limit=1, after=first[-1].cursor)
    assert [r.item_id for r in first + second] == ["a1", "a3"]
    assert store.queue.queue_page("triage", filt=filt, limit=1, after=second[-1].cursor) == []
    assert store.queue.queue_count("triage", filt=filt) == 2
    assert store.queue.queue_values("triage") == (["alpha", "beta"], sorted({b for b in bands.values() if b}))


def test_text_is_literal_and_case_insensitive(store: Store, tmp_path: Path) -> None:
    _load(store, tmp_path)
    # without escaping, "100%" would match "1000 sure" too and "b_1" would match "b11"
    assert _ids(store, QueueFilter(text="100%")) == ["a2"]
    assert _ids(store, QueueFilter(text="b_1")) == ["b_1"]
    assert _ids(store, QueueFilter(text="under_score")) == ["b_1"]
    assert _ids(store, QueueFilter(text="back\\slash")) == ["b2"]
    assert _ids(store, QueueFilter(text="[BOLD]markup")) == ["b2"]
    assert _ids(store, QueueFilter(text="%")) == ["a2"]
    assert _ids(store, QueueFilter(text="_")) == ["b_1"]
    assert _ids(store, QueueFilter(text="'; DROP TABLE item; --")) == []
    assert _ids(store, QueueFilter(text="bad \ud800 text")) == []  # a lone surrogate: the driver could not send it
    assert store.queue.queue_count("triage") == len(ITEMS)  # the statement above was only text
    # the old unescaped pattern shows what the escaping prevents
    assert like_pattern("b_1") == "%b\\_1%"
    with store.db.read() as conn:
        hits = conn.execute(text("SELECT count(*) FROM item WHERE item_id LIKE '%b_1%'")).scalar()
    assert hits == 2  # b_1 and b11: a wildcard
    # the older ``search`` argument is the same literal text filter
    assert sorted(r.item_id for r in store.queue.queue_page("triage", search="b_1")) == ["b_1"]


def test_status(store: Store, tmp_path: Path) -> None:
    pks = _load(store, tmp_path)
    assert _ids(store, QueueFilter(status="new")) == sorted(ITEMS)
    # ana completes a1; bo holds a lease on a2; cy half-scores a3; a flag on b2
    for d in DIMS:
        store.scores.add_human_score(pks["a1"], d, "ana", 5)
    claim = store.queue.claim_item(pks["a2"], "triage", "bo")
    assert claim is not None
    cy = store.queue.claim_item(pks["a3"], "triage", "cy")
    assert cy is not None
    store.scores.add_human_score(pks["a3"], "accuracy", "cy", 5)
    assert store.queue.complete(cy) is False  # half scored: stays in progress
    store.safety.flag_item(pks["b2"], "ana", "looks like a leak")
    assert _ids(store, QueueFilter(status="done")) == ["a1"]
    assert _ids(store, QueueFilter(status="in progress")) == ["a2", "a3"]
    assert _ids(store, QueueFilter(status="new")) == ["b11", "b2", "b_1"]
    assert _ids(store, QueueFilter(status="flagged")) == ["b2"]
    # two reviewers per item: a1 is back in progress
    store.queue.set_queue_settings("triage", REF, reviewers_per_item=2)
    assert _ids(store, QueueFilter(status="done")) == []
    assert "a1" in _ids(store, QueueFilter(status="in progress"))
    with pytest.raises(UserError, match="unknown status 'finished'"):
        store.queue.queue_page("triage", filt=QueueFilter(status="finished"))


def test_panel_disagreement(store: Store, tmp_path: Path) -> None:
    _load(store, tmp_path)
    assert _ids(store, QueueFilter(disagreement=True)) == []  # one model: no panel
    run = store.runs.create_judge_run(REF, "m2", dataset="alpha")
    # a2 (m1 said 2): m2 says 9, seven points of nine apart; a1 (m1 said 9): m2 says 8, close
    store.runs.record_results(run, [ScoreResult("a2", "accuracy", "llm_judge", "m2", 9.0),
                               ScoreResult("a1", "accuracy", "llm_judge", "m2", 8.0)])
    assert _ids(store, QueueFilter(disagreement=True)) == ["a2"]
    assert store.runs.panel_disagreement(REF) == (2, 1)  # the same rule as `judge` reports
    assert QueueFilter(disagreement=True).reveals_judge and QueueFilter(band="High").reveals_judge
    assert not QueueFilter(dataset="x", status="new", text="y").reveals_judge
    assert QueueFilter(band="High", text="y").without_judge() == QueueFilter(text="y")


def test_the_status_filter_probes_assignments_by_index(db_url: str, tmp_path: Path) -> None:
    """Without ix_assignment_item (before 0008p_queue_filter_index) SQLite scanned every
    assignment for each item: 1.1 s of CPU for "status new" on 100k items in
    benchmarks/bench_queue_filter.py, 63 ms with it. A database from before gets the index."""
    from sqlalchemy import select

    from reviewer.store import open_store
    from reviewer.store.queue_filter import status_condition
    from reviewer.store.tables import Item, now

    store = open_store(db_url)
    _load(store, tmp_path)
    with store.db.engine.begin() as conn:
        conn.execute(text("DROP INDEX ix_assignment_item"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0008p_queue_filter_index'"))

    def plan(s: Store) -> str:
        q = select(col(Item.pk)).where(status_condition("new", 1, now()))
        with s.db.read() as conn:
            if s.db.dialect != "sqlite":
                return "postgresql"
            compiled = q.compile(conn, compile_kwargs={"literal_binds": True})
            return " ".join(str(r[-1]) for r in conn.execute(text(f"EXPLAIN QUERY PLAN {compiled}")))

    before = plan(store)
    store.close()
    again = open_store(db_url)
    with again.db.read() as conn:
        names = {r[0] for r in conn.execute(text(
            "SELECT name FROM sqlite_master WHERE type = 'index'" if again.db.dialect == "sqlite"
            else "SELECT indexname FROM pg_indexes WHERE tablename = 'assignment'"))}
    assert "ix_assignment_item" in names
    if again.db.dialect == "sqlite":
        assert "ix_assignment_item" not in before and "SCAN assignment" in before
        assert "ix_assignment_item" in plan(again)
    assert _ids(again, QueueFilter(status="new")) == sorted(ITEMS)
    again.close()
