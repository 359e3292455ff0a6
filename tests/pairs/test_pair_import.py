"""Pair records in an item file: people's verdicts join the screen's pair choices (one history),
a judge's land in ``pair_judgment``; a bad pair line refuses the file whole, in one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import Store
from tests.pairs.helpers import REF, items, pair, write


def rows(store: Store, sql: str) -> list[tuple[Any, ...]]:
    with store.db.read() as conn:
        return [tuple(r) for r in conn.execute(text(sql))]


def pks(store: Store) -> dict[str, int]:
    return {str(i): int(pk) for i, pk in rows(store, "SELECT item_id, pk FROM item")}


def test_pair_records_are_stored_field_by_field(store: Store, tmp_path: Path) -> None:
    src = write(tmp_path / "pairs.jsonl", [
        *items("x", "y"),
        pair("y", "x", human=[("ana", "a", "y cites its source"), ("ben", "tie", None)],
             judge=("judge-1", "b", "x is more neutral")),
    ])
    summary = import_file(store, src, REF)
    assert (summary.inserted, summary.pair_choices, summary.pair_judgments) == (2, 2, 1)
    pk = pks(store)
    choices = rows(store, "SELECT grp, rubric_ref, reviewer, winner_item_pk, reason, item_a_pk, item_b_pk, "
                          "revision, kind FROM pair_choice ORDER BY pk")
    lo, hi = sorted((pk["x"], pk["y"]))
    assert choices == [("g1", REF, "ana", pk["y"], "y cites its source", lo, hi, 2, "import"),
                       ("g1", REF, "ben", None, None, lo, hi, 2, "import")]
    judged = rows(store, "SELECT rubric_ref, grp, item_a_pk, item_b_pk, model, winner, rationale, revision "
                         "FROM pair_judgment")
    assert judged == [(REF, "g1", pk["y"], pk["x"], "judge-1", "b", "x is more neutral", 2)]
    [j] = store.pair_verdicts.pair_judgments(REF)
    assert (j.model, j.winner_item_pk, j.group) == ("judge-1", pk["x"], "g1")
    # the screen's reads see the imported verdicts as choices
    assert store.scores.pair_choices(REF) == {"g1": {"ana": pk["y"], "ben": None}}
    # importing the same file again adds no verdict twice
    repeat = import_file(store, src, REF)
    assert (repeat.pair_choices, repeat.pair_judgments) == (0, 0)
    assert rows(store, "SELECT count(*) FROM pair_choice") == [(2,)]
    assert rows(store, "SELECT count(*) FROM pair_judgment") == [(1,)]


def test_a_pair_may_name_items_already_stored(store: Store, tmp_path: Path) -> None:
    import_file(store, write(tmp_path / "items.jsonl", items("x", "y")), REF)
    summary = import_file(store, write(tmp_path / "verdicts.jsonl", [pair("x", "y", judge=("m", "a", "x"))]), REF)
    assert (summary.rows, summary.pair_judgments) == (0, 1)


def test_screen_choices_and_imported_verdicts_are_one_history(store: Store, tmp_path: Path) -> None:
    import_file(store, write(tmp_path / "a.jsonl", [*items("x", "y"), pair("x", "y", human=[("ana", "a", None)])]), REF)
    pk = pks(store)
    store.roles.add_reviewer("lee", "lead")
    store.scores.add_pair_choice(pk["x"], "ana", pk["y"], reason="changed my mind")  # in the screen, later
    store.scores.add_pair_choice(pk["x"], "lee", None)
    assert store.scores.pair_choices(REF) == {"g1": {"ana": pk["y"], "lee": None}}
    assert rows(store, "SELECT reviewer, kind FROM pair_choice ORDER BY pk") == [
        ("ana", "import"), ("ana", "choice"), ("lee", "choice")]


def _refused(store: Store, src: Path) -> str:
    with pytest.raises(UserError) as exc:
        import_file(store, src, REF)
    assert rows(store, "SELECT count(*) FROM item") == [(0,)]  # all or nothing
    assert rows(store, "SELECT count(*) FROM pair_choice") == [(0,)]
    return str(exc.value)


def test_a_pair_naming_a_missing_item_is_refused_in_one_line(store: Store, tmp_path: Path) -> None:
    src = write(tmp_path / "bad.jsonl", [*items("x", "y"), pair("x", "nope", human=[("ana", "a", None)])])
    message = _refused(store, src)
    assert f"{src}:3: pair: item 'nope' is neither in this file nor stored in rubric {REF}" in message
    assert len([line for line in message.splitlines() if str(src) in line]) == 1


@pytest.mark.parametrize(("bad", "said"), [
    ({"pair": {"a": "x", "b": "y"}, "human": [{"reviewer": "ana", "winner": "left"}]},
     ":3: pair: human[0]: 'winner' is 'left'; give \"a\", \"b\" or \"tie\""),
    ({"pair": {"a": "x", "b": "x"}, "judge": {"model": "m", "winner": "a"}}, ":3: pair: 'a' and 'b' are both 'x'"),
    ({"pair": {"a": "x"}, "judge": {"model": "m", "winner": "a"}}, ":3: 'pair' must be an object"),
    ({"pair": {"a": "x", "b": "y"}}, ":3: pair: no verdict"),
    ({"pair": {"a": "x", "b": "y"}, "judge": {"model": "m", "winner": "a", "score": 3}},
     ":3: pair: judge: unknown field 'score'"),
    ({"pair": {"a": "x", "b": "y"}, "output": "text", "judge": {"model": "m", "winner": "a"}},
     ":3: pair record: unknown field 'output'"),
])
def test_a_bad_pair_line_is_refused_in_one_line(store: Store, tmp_path: Path, bad: dict[str, Any], said: str) -> None:
    src = write(tmp_path / "bad.jsonl", [*items("x", "y"), bad])
    assert f"{src}{said}" in _refused(store, src)


def test_a_pair_across_groups_is_refused(store: Store, tmp_path: Path) -> None:
    src = write(tmp_path / "bad.jsonl", [*items("x", "y"), *items("z", group="g2"),
                                         pair("x", "z", judge=("m", "a", "x"))])
    assert f"{src}:4: pair: items 'x' and 'z' are not in one group" in _refused(store, src)


def test_a_database_from_before_pair_verdicts_opens(db_url: str, tmp_path: Path) -> None:
    """A database made before ``0011p_pair_verdicts`` (no ``kind``, no ``pair_judgment``) gets
    both; its earlier choices read as made in the screen, and the new table is append-only."""
    from reviewer.store import open_store

    store = open_store(db_url)
    import_file(store, write(tmp_path / "items.jsonl", items("x", "y")), REF)
    pk = pks(store)
    store.roles.add_reviewer("lee", "lead")
    store.scores.add_pair_choice(pk["x"], "lee", pk["y"])
    with store.db.engine.begin() as conn:  # make it what release 0010 left behind
        conn.execute(text("DROP TABLE pair_judgment"))
        if store.db.dialect == "sqlite":  # (SQLite drops a column only with the triggers on its table gone)
            conn.execute(text("DROP TRIGGER pair_choice_no_update"))
        conn.execute(text("ALTER TABLE pair_choice DROP COLUMN kind"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0011p_pair_verdicts'"))
    store.close()
    again = open_store(db_url)
    try:
        assert rows(again, "SELECT reviewer, kind FROM pair_choice") == [("lee", "choice")]
        import_file(again, write(tmp_path / "v.jsonl", [pair("x", "y", judge=("m", "tie", "same"))]), REF)
        assert [(j.model, j.winner) for j in again.pair_verdicts.pair_judgments(REF)] == [("m", "tie")]
        with pytest.raises(Exception, match="append-only"), again.db.write() as conn:
            conn.execute(text("UPDATE pair_judgment SET winner = 'a'"))
    finally:
        again.close()
