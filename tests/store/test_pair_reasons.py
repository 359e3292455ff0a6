"""Pair choices on both backends, per pair: a group of more than two is compared a pair at a
time (each choice names its pair), a reason and quick tags may go with a choice, rows from before
pairs were named belong to the group's first pair, and a database from before migration
``0008p_pair_reason`` opens with its choices kept and still append-only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import Store, open_store

REF = "reval-issue-framing@1.0.0"


def trio(store: Store, tmp_path: Path) -> list[int]:
    """A group of three items (variants a, b, c), returned by variant."""
    path = tmp_path / "trio.jsonl"
    path.write_text("".join(json.dumps({"id": f"trio-{v}", "group": "trio", "variant": v, "input": "q",
                                        "output": f"answer {v}"}) + "\n" for v in "abc"))
    import_file(store, path, REF, dataset="trio")
    return [pk for pk, _, _ in store.scores.group_overalls(REF)["trio"]]


def test_each_pair_of_a_group_keeps_its_own_choice_and_reason(store: Store, tmp_path: Path) -> None:
    a, b, c = trio(store, tmp_path)
    store.scores.add_pair_choice(a, "ana", b, partner_pk=b, reason="[b]more[/b] balanced", tags=["more_balanced"])
    store.scores.add_pair_choice(c, "ana", None, partner_pk=a)  # a tie on (a, c), from c's side
    store.scores.add_pair_choice(a, "ana", a, partner_pk=b, reason="changed my mind")  # a new row for (a, b)
    rows = {(r.item_a_pk, r.item_b_pk): r for r in store.scores.pair_choice_rows(REF, "trio")}
    assert set(rows) == {(a, b), (a, c)}
    assert rows[(a, b)].winner_item_pk == a and rows[(a, b)].reason == "changed my mind" and rows[(a, b)].tags == ()
    assert rows[(a, c)].winner_item_pk is None and rows[(a, c)].reason is None
    assert rows[(a, c)].created_at is not None
    # the first reason is kept in the history, as stored (text, never markup)
    with store.db.read() as conn:
        history = conn.execute(text("SELECT reason, tags FROM pair_choice ORDER BY pk")).all()
    assert history[0][0] == "[b]more[/b] balanced" and list(json.loads(history[0][1]) if isinstance(history[0][1], str)
                                                           else history[0][1]) == ["more_balanced"]
    assert store.scores.pair_choices(REF, "trio") == {"trio": {"ana": a}}  # the latest on any pair


def test_a_choice_must_name_a_pair_of_the_group(store: Store, tmp_path: Path) -> None:
    store.roles.add_reviewer("lee", "lead")  # the OS user leads: it enters the imported people's work
    a, b, c = trio(store, tmp_path)
    with pytest.raises(UserError, match="group 'trio' has 3 items: name the partner"):
        store.scores.add_pair_choice(a, "ana", b)
    with pytest.raises(UserError, match="is not one of the pair compared"):
        store.scores.add_pair_choice(a, "ana", c, partner_pk=b)
    with pytest.raises(UserError, match="is not another item of group 'trio'"):
        store.scores.add_pair_choice(a, "ana", None, partner_pk=a)
    import_file(store, Path(__file__).resolve().parents[2] / "reviewer" / "demo" / "reval-issue-framing.jsonl",
                       REF, dataset="demo")
    elsewhere = store.scores.group_overalls(REF)["frame-01"][0][0]
    with pytest.raises(UserError, match="is not another item of group 'trio'"):
        store.scores.add_pair_choice(a, "ana", None, partner_pk=elsewhere)
    with store.db.read() as conn:
        assert conn.execute(text("SELECT count(*) FROM pair_choice")).scalar() == 0  # refusals wrote nothing


def test_rows_from_before_pairs_were_named_belong_to_the_first_pair(db_url: str, tmp_path: Path) -> None:
    store = open_store(db_url)
    a, b, c = trio(store, tmp_path)
    store.scores.add_pair_choice(a, "ben", c, partner_pk=c, tags=["clearer"])
    with store.db.engine.begin() as conn:  # make it what release 0007 left behind: no tags, no pair named
        for col in ("tags", "item_a_pk", "item_b_pk"):
            conn.execute(text(f"ALTER TABLE pair_choice DROP COLUMN {col}"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0008p_pair_reason'"))
        conn.execute(text("INSERT INTO pair_choice (grp, rubric_ref, reviewer, winner_item_pk, reason, revision, "
                          "created_at) VALUES ('trio', :ref, 'ana', :b, 'old', 3, CURRENT_TIMESTAMP)"),
                     {"ref": REF, "b": b})
    store.close()
    again = open_store(db_url)
    rows = {(r.reviewer, r.item_a_pk, r.item_b_pk): r for r in again.scores.pair_choice_rows(REF)}
    # ben's row lost its pair with the columns; ana's never had one: both are the first pair's
    assert set(rows) == {("ana", a, b), ("ben", a, b)}
    assert rows[("ana", a, b)].reason == "old" and rows[("ana", a, b)].tags == ()
    again.scores.add_pair_choice(b, "ana", None, partner_pk=c, reason="same", tags=["equivalent"])
    assert ("ana", b, c) in {(r.reviewer, r.item_a_pk, r.item_b_pk) for r in again.scores.pair_choice_rows(REF)}
    for sql in ("UPDATE pair_choice SET reason = 'x'", "DELETE FROM pair_choice"):
        with pytest.raises(Exception, match="append-only"), again.db.write() as conn:
            conn.execute(text(sql))
    again.close()


def test_the_export_carries_each_items_pair_choices(store: Store, tmp_path: Path) -> None:
    a, b, c = trio(store, tmp_path)
    store.scores.add_pair_choice(a, "ana", b, partner_pk=b, reason="b is <b>fairer</b>", tags=["more_balanced"])
    store.scores.add_pair_choice(a, "ana", None, partner_pk=c)
    store.scores.add_pair_choice(b, "ben", c, partner_pk=c, tags=["clearer"])
    store.scores.add_pair_choice(b, "ben", b, partner_pk=c)  # ben changed his mind: only the latest is exported
    rows = {r["id"]: r for r in store.items.export_rows(REF)}
    by = {i: sorted(((p["reviewer"], p["partner"]), p) for p in rows[i]["pair_choices"]) for i in rows}
    assert [k for k, _ in by["trio-a"]] == [("ana", "trio-b"), ("ana", "trio-c")]
    assert [k for k, _ in by["trio-b"]] == [("ana", "trio-a"), ("ben", "trio-c")]
    assert [k for k, _ in by["trio-c"]] == [("ana", "trio-a"), ("ben", "trio-b")]
    ab = dict(by["trio-a"])[("ana", "trio-b")]
    assert ab["winner"] == "trio-b" and ab["reason"] == "b is <b>fairer</b>" and ab["tags"] == ["more_balanced"]
    assert dict(by["trio-a"])[("ana", "trio-c")]["winner"] is None  # a tie
    bc = dict(by["trio-b"])[("ben", "trio-c")]
    assert bc["winner"] == "trio-b" and bc["tags"] == [] and bc["reason"] is None
    assert "T" in bc["created_at"] and bc["created_at"].endswith("+00:00")  # ISO 8601, UTC, as the comments
    # an item outside any group has no pair_choices key at all
    import_file(store, Path(__file__).resolve().parents[2] / "reviewer" / "demo" / "general-quality.jsonl",
                       "general-quality@1.0.0", dataset="demo")
    assert all("pair_choices" not in r for r in store.items.export_rows("general-quality@1.0.0"))
