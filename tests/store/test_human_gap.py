"""The judge against the people, per item, on SQLite and PostgreSQL: ``item.human_gap`` is the
largest |judge panel − people's score| over the item's dimensions as a fraction of the scale (people:
a lead's adjudication, else the consensus — the fold's ``DimFold.people``), kept current by every
write that can move it (a score, an undo, an adjudication, a judge run, an import, a re-import with
new content) and backfilled for a database from before it; the queue list's "judge and people
disagree" filter (``QueueFilter.people_disagree``) keeps the items at least a quarter of the scale
apart.

Before this change the queue list's only disagreement filter was the judge panel's (its models
apart: ``QueueFilter.disagreement``); on a one-model judge it kept nothing, however far the people
were from the judge — each test below shows what that filter gave."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlmodel import col

from reviewer.domain import PEOPLE_APART, human_gap
from reviewer.services.importing import import_file
from reviewer.store import Store, open_store
from reviewer.store.tables import Item
from reviewer.store.views import QueueFilter
from rubrics.results import ScoreResult

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")
SPAN = 9.0  # general-quality scores 1–10
APART = QueueFilter(people_disagree=True)
PANEL = QueueFilter(disagreement=True)


def _import(store: Store, tmp: Path, rows: list[dict[str, Any]], update: bool = False) -> dict[str, int]:
    path = tmp / f"items-{len(list(tmp.iterdir()))}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_file(store, path, REF, update_existing=update)
    return {r.item_id: r.item_pk for r in store.queue.queue_page("triage", limit=500)}


def _item(i: str, judge: float, output: str = "an answer", **extra: Any) -> dict[str, Any]:
    return {"id": i, "output": output, "judge": {"model": "m1", "scores": dict.fromkeys(DIMS, judge)}, **extra}


def stored(store: Store, pk: int) -> float | None:
    """The item's stored gap."""
    with store.db.read() as conn:
        value: float | None = conn.execute(select(col(Item.human_gap)).where(col(Item.pk) == pk)).scalar_one()
        return value


def folded(store: Store, pk: int) -> float | None:
    """The gap of the item's fold, as the item screen and calibrate fold it."""
    fold = store.items.item_fold(pk)
    return human_gap(store.rubrics.get_rubric(REF), fold.dims)


def gap(store: Store, pk: int) -> float | None:
    """The stored gap, checked against the fold's."""
    value = stored(store, pk)
    assert value == folded(store, pk)
    return value


def ids(store: Store, filt: QueueFilter) -> list[str]:
    rows = store.queue.queue_page("triage", filt=filt, limit=500)
    assert store.queue.queue_count("triage", filt=filt) == len(rows)
    return sorted(r.item_id for r in rows)


def test_every_write_by_a_person_moves_the_gap(store: Store, tmp_path: Path) -> None:
    pks = _import(store, tmp_path, [_item("a", 9), _item("b", 2)])
    a = pks["a"]
    assert gap(store, a) is None and ids(store, APART) == []  # nobody has scored: nothing to be apart from
    store.scores.add_human_score(a, "accuracy", "ana", 9)
    assert gap(store, a) == 0.0
    store.scores.add_human_score(a, "accuracy", "ben", 3)  # consensus 6, the judge 9: a third of the scale
    assert gap(store, a) == pytest.approx(3 / SPAN) and ids(store, APART) == ["a"]
    assert ids(store, PANEL) == []  # the old filter: one model, no panel, nothing kept
    store.scores.add_human_score(a, "accuracy", "ben", None, kind="undo")  # ben takes it back: 9 against 9
    assert gap(store, a) == 0.0 and ids(store, APART) == []
    store.roles.add_reviewer("lee", "lead")
    store.scores.add_human_score(a, "accuracy", "lee", 4, kind="adjudication")  # settles it, whatever the votes say
    assert gap(store, a) == pytest.approx(5 / SPAN) and ids(store, APART) == ["a"]
    store.scores.add_human_score(a, "accuracy", "lee", None, kind="undo")  # the adjudication withdrawn
    assert gap(store, a) == 0.0
    store.scores.add_human_score(a, "clarity", "ana", 7, kind="revision")  # the largest dimension counts
    assert gap(store, a) == pytest.approx(2 / SPAN) and ids(store, APART) == []
    store.scores.add_human_score(pks["b"], "relevance", "ana", 10, kind="agree")
    assert gap(store, pks["b"]) == pytest.approx(8 / SPAN) and ids(store, APART) == ["b"]


def test_a_quarter_of_the_scale_is_apart(store: Store, tmp_path: Path) -> None:
    """The threshold is the panel's (a quarter of the scale), compared as the spread is: at least."""
    assert PEOPLE_APART == 0.25
    pks = _import(store, tmp_path, [_item("q", 5), _item("r", 5)])
    store.scores.add_human_score(pks["q"], "accuracy", "ana", 7.25)  # 2.25 of 9: exactly a quarter
    store.scores.add_human_score(pks["r"], "accuracy", "ana", 7.0)  # 2 of 9: less
    assert gap(store, pks["q"]) == 0.25 and ids(store, APART) == ["q"]


def test_a_judge_run_moves_the_gap(store: Store, tmp_path: Path) -> None:
    a = _import(store, tmp_path, [_item("a", 9)])["a"]
    store.scores.add_human_score(a, "accuracy", "ana", 8)
    assert gap(store, a) == pytest.approx(1 / SPAN) and ids(store, APART) == []
    run = store.runs.create_judge_run(REF, "m2")
    store.runs.record_results(run, [ScoreResult("a", "accuracy", "llm_judge", "m2", 2.0)])  # panel (9 + 2) / 2
    assert gap(store, a) == pytest.approx(2.5 / SPAN) and ids(store, APART) == ["a"]
    assert ids(store, PANEL) == ["a"]  # the models are apart too: both filters keep it
    again = store.runs.create_judge_run(REF, "m2")
    store.runs.record_results(again, [ScoreResult("a", "accuracy", "llm_judge", "m2", 9.0)])  # m2's latest counts
    assert gap(store, a) == pytest.approx(1 / SPAN) and ids(store, APART) == [] and ids(store, PANEL) == []
    failed = store.runs.create_judge_run(REF, "m1")  # m1's latest is an error: m2 alone is the panel
    store.runs.record_results(failed, [ScoreResult("a", "accuracy", "llm_judge", "m1", None, error="timeout")])
    assert gap(store, a) == pytest.approx(1 / SPAN)


def test_an_import_and_a_reimport_with_new_content(store: Store, tmp_path: Path) -> None:
    store.roles.add_reviewer("lee", "lead")  # the OS user leads: it enters the imported people's work
    people = [{"reviewer": "ana", "scores": {"accuracy": 2}}, {"reviewer": "bo", "scores": {"accuracy": 4}}]
    pks = _import(store, tmp_path, [_item("c", 9, human=people), _item("d", 9, human=[
        {"reviewer": "ana", "scores": {"accuracy": 9}}]), _item("e", 9)])
    assert gap(store, pks["c"]) == pytest.approx(6 / SPAN)  # 9 against (2 + 4) / 2
    assert gap(store, pks["d"]) == 0.0 and gap(store, pks["e"]) is None
    assert ids(store, APART) == ["c"] and ids(store, PANEL) == []
    # the same content again: nothing changes
    _import(store, tmp_path, [_item("c", 9, human=people)])
    assert gap(store, pks["c"]) == pytest.approx(6 / SPAN)
    # new content: the people scored the old text, so nobody has scored this one yet
    _import(store, tmp_path, [_item("c", 9, output="a corrected answer")], update=True)
    assert gap(store, pks["c"]) is None and ids(store, APART) == []
    # new content with people's scores on it: theirs count
    _import(store, tmp_path, [_item("c", 3, output="corrected twice", human=[
        {"reviewer": "ana", "scores": {"clarity": 10}}])], update=True)
    assert gap(store, pks["c"]) == pytest.approx(7 / SPAN) and ids(store, APART) == ["c"]
    # a person scoring the new revision: the fold of the new revision alone
    store.scores.add_human_score(pks["c"], "clarity", "bo", 4)  # (10 + 4) / 2 = 7 against 3
    assert gap(store, pks["c"]) == pytest.approx(4 / SPAN)


def test_the_filter_keeps_exactly_the_items_the_fold_finds_apart(demo_store: Store) -> None:
    """Over the demo (people's scores imported beside a one-model judge, then written here): the
    stored gap of every item is its fold's, and the filter keeps exactly those a quarter apart.
    The old filter (the panel's) kept none of them."""
    pks = [r.item_pk for r in demo_store.queue.queue_page("triage", limit=500)]
    for i, pk in enumerate(pks[:40]):  # writes on top of the import: scores, undos, an adjudication
        demo_store.scores.add_human_score(pk, DIMS[i % 5], "zed", float(1 + (i * 7) % 10))
        if i % 3 == 0:
            demo_store.scores.add_human_score(pk, DIMS[i % 5], "zed", None, kind="undo")
    demo_store.roles.add_reviewer("lee", "lead")
    demo_store.scores.add_human_score(pks[1], "accuracy", "lee", 1, kind="adjudication")
    want = set()
    for it, fold in demo_store.items.item_folds("general-quality@1.0.0"):
        value = human_gap(demo_store.rubrics.get_rubric(it.rubric_ref), fold.dims)
        assert it.human_gap == value, it.item_id
        if value is not None and value >= PEOPLE_APART:
            want.add(it.item_id)
    kept = ids(demo_store, APART)
    assert kept == sorted(want) and 0 < len(kept) < len(pks)
    assert ids(demo_store, PANEL) == []  # what the queue list's disagreement filter gave before


def test_a_database_from_before_gets_the_column_filled(db_url: str, tmp_path: Path) -> None:
    store = open_store(db_url)
    pks = _import(store, tmp_path, [
        _item("c", 9, human=[{"reviewer": "ana", "scores": {"accuracy": 2}}]), _item("d", 9), _item("e", 5, human=[
            {"reviewer": "ana", "scores": {"accuracy": 5}}])])
    store.scores.add_human_score(pks["d"], "clarity", "bo", 3)
    want = {i: stored(store, pk) for i, pk in pks.items()}
    assert want == {"c": pytest.approx(7 / SPAN), "d": pytest.approx(6 / SPAN), "e": 0.0}
    with store.db.engine.begin() as conn:  # what an older release left: no such column
        conn.execute(text("DROP INDEX ix_item_sort_people"))  # (later, on the column)
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0014s_queue_sort'"))
        conn.execute(text("ALTER TABLE item DROP COLUMN human_gap"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0009g_human_gap'"))
    store.close()
    again = open_store(db_url)
    assert {i: stored(again, pk) for i, pk in pks.items()} == want
    assert all(stored(again, pk) == folded(again, pk) for pk in pks.values())
    assert ids(again, APART) == ["c", "d"]
    again.close()
