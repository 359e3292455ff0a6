"""Queue settings on both backends: N distinct reviewers per item, gold items at a rate, each
reviewer's accuracy on them, and a database from before the settings existed."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import insert, text

from reviewer.errors import UserError
from reviewer.services.gold import gold_accuracy
from reviewer.services.importing import import_file
from reviewer.store import Claim, Store, open_store
from reviewer.store.tables import HumanScore, now
from tests.cli import run_cli

REF = "general-quality@1.0.0"


def _items(store: Store, tmp_path: Path, n: int, gold: int = 0) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps({"id": f"i{i:03d}", "output": f"answer {i}",
                                        **({"gold": {"accuracy": 7, "clarity": 4}} if i < gold else {})}) + "\n"
                            for i in range(n)))
    import_file(store, path, REF)


def _review(store: Store, claim: Claim) -> None:
    """Score every dimension of the item (a review is complete only then) and complete it."""
    for dim in store.rubrics.get_rubric(REF).person_dimensions():
        store.scores.add_human_score(claim.item_pk, dim.id, claim.reviewer, 5.0)
    assert store.queue.complete(claim)


def _drain(store: Store, reviewer: str) -> list[str]:
    got = []
    while (claim := store.queue.claim_next("triage", reviewer)) is not None:
        got.append(claim.item_id)
        _review(store, claim)
    return got


def test_each_item_goes_to_n_distinct_reviewers(store: Store, tmp_path: Path) -> None:
    _items(store, tmp_path, 6)
    store.queue.set_queue_settings("triage", REF, reviewers_per_item=2)
    ana, bo = _drain(store, "ana"), _drain(store, "bo")
    assert sorted(ana) == sorted(bo) == [f"i{i:03d}" for i in range(6)]  # both saw each, once
    assert _drain(store, "cy") == []  # two reviewers each: nothing left
    assert store.queue.queue_settings("triage", REF).reviewers_per_item == 2


def test_without_the_setting_one_reviewer_per_item(store: Store, tmp_path: Path) -> None:
    _items(store, tmp_path, 6)
    assert len(_drain(store, "ana")) == 6
    assert _drain(store, "bo") == []


def test_gold_items_come_at_the_rate_never_twice_and_never_otherwise(store: Store, tmp_path: Path) -> None:
    _items(store, tmp_path, 60, gold=12)
    zed = _drain(store, "zed")  # rate 0: gold items are never served
    assert len(zed) == 48 and not any(i < "i012" for i in zed)
    store.queue.set_queue_settings("triage", reviewers_per_item=2, gold_rate=0.25)
    claims = []
    while (c := store.queue.claim_next("triage", "ana")) is not None:
        claims.append(c)
        _review(store, c)
    gold = [c.item_id for c in claims if c.gold]
    assert all(i < "i012" for i in gold) and len(gold) == len(set(gold))  # gold, each once
    assert sum(not c.gold for c in claims) == 48
    assert 0.1 <= len(gold) / len(claims) <= 0.4, len(gold) / len(claims)


def test_settings_are_checked(store: Store) -> None:
    with pytest.raises(UserError, match="give a share from 0 to 0.5"):
        store.queue.set_queue_settings("triage", gold_rate=0.9)
    with pytest.raises(UserError, match="unknown queue 'tirage'"):
        store.queue.set_queue_settings("tirage", reviewers_per_item=2)
    s = store.queue.set_queue_settings("audit", REF, blind=True)
    assert (s.blind, s.reviewers_per_item) == (True, 1)
    assert store.queue.set_queue_settings("audit", REF, reviewers_per_item=2).blind  # kept


def test_gold_accuracy_and_drift(store: Store, tmp_path: Path) -> None:
    store.roles.add_reviewer("lee", "lead")  # the OS user leads: it enters the imported people's work
    _items(store, tmp_path, 4, gold=4)
    pks = [r.item_pk for r in store.queue.queue_page("triage", rubric_ref=REF)]
    then = now() - timedelta(days=14)
    with store.db.write() as conn:  # two weeks ago ana was 3 off; this week 1 off: drift −2
        for pk in pks[:2]:
            conn.execute(insert(HumanScore).values(item_pk=pk, dimension="accuracy", reviewer="ana", score=4,
                                                   kind="score", created_at=then))
    for pk in pks[2:]:
        store.scores.add_human_score(pk, "accuracy", "ana", 8)
    store.scores.add_human_score(pks[0], "clarity", "bo", 4)
    store.scores.add_human_score(pks[1], "clarity", "bo", 9)
    store.scores.add_human_score(pks[1], "clarity", "bo", None, kind="undo")  # undone: not counted
    rows = {r["reviewer"]: r for r in gold_accuracy(store, REF)}
    assert rows["ana"]["n"] == 4 and rows["ana"]["mae"] == pytest.approx(2.0)
    assert rows["ana"]["drift"] == pytest.approx(-2.0) and len(rows["ana"]["mae_by_week"]) == 2
    assert rows["bo"] == {"reviewer": "bo", "n": 1, "mae": 0.0, "exact": 1.0, "within_one": 1.0,
                          "mae_by_week": rows["bo"]["mae_by_week"], "drift": None}


def test_a_database_from_before_the_settings_opens(db_url: str, tmp_path: Path) -> None:
    store = open_store(db_url)
    _items(store, tmp_path, 3)
    with store.db.engine.begin() as conn:  # make it what release 0003 left behind
        conn.execute(text("DROP TABLE queue_setting"))
        conn.execute(text("ALTER TABLE item DROP COLUMN is_gold"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0004_queue_settings'"))
    store.close()
    again = open_store(db_url)
    assert again.queue.set_queue_settings("triage", reviewers_per_item=2).reviewers_per_item == 2
    assert len(_drain(again, "ana")) == 3
    again.close()


def test_the_cli_sets_queues_and_reports_accuracy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "cli.db")
    code, out, _ = run_cli(["queue", "set", "--queue", "audit", "--reviewers", "3", "--gold-rate", "0.1", "--blind",
                         "--db", db], capsys)
    assert code == 0 and "3 reviewer(s) per item, gold rate 0.1, blind" in out
    code, _, err = run_cli(["queue", "set", "--queue", "audit", "--gold-rate", "2", "--db", db], capsys)
    assert code == 1 and "--gold-rate 2.0: give a share from 0 to 0.5 of claims" in err
    assert "Traceback" not in err
    store = open_store(db)
    assert store.queue.queue_settings("audit").reviewers_per_item == 3  # the refused call changed nothing
    _items(store, tmp_path, 2, gold=2)
    store.scores.add_human_score(store.queue.queue_page("triage")[0].item_pk, "accuracy", "ana", 9)
    store.close()
    code, out, _ = run_cli(["reviewer", "accuracy", "--format", "json", "--db", db], capsys)
    assert code == 0
    (row,) = json.loads(out)
    assert (row["reviewer"], row["n"], row["mae"], row["exact"]) == ("ana", 1, 2.0, 0.0)
