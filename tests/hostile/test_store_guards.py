"""History is guarded by the database itself: a raw connection (the stdlib ``sqlite3`` module, or
psycopg) cannot UPDATE, DELETE, REPLACE or TRUNCATE any history table.

Each case runs the same statement twice: on a database with no guard (migrated without
``0007g_history_guards``, older triggers dropped too), where it succeeds and changes the history
— what the guard prevents — and on a database with every migration, where it is refused and the
history is intact. Statements run in a transaction that is rolled back, so cases are independent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewer.store import open_store
from reviewer.store.guards import ALL_HISTORY
from tests.hostile.dbs import GUARD, Raw, open_without, pg_schema, pg_url, populate, refused

#: The column a forged change rewrites in each table, and the value written.
CHANGE = {
    "human_score": ("score", "10"),
    "judge_score": ("score", "10"),
    "safety_flag": ("status", "'cleared'"),
    "safety_decision": ("decision", "'clear'"),
    "pair_choice": ("reason", "'forged'"),
    "rubric_version": ("yaml_text", "'id: forged'"),
    "item_revision": ("content_hash", "'forged'"),
    "item_comment": ("text", "'forged'"),
    "item_reveal": ("reviewer", "'forged'"),
    "pair_judgment": ("winner", "'b'"),
    "lead_review": ("note", "'forged'"),
    "item_correction": ("text", "'forged'"),
}


def _drop_triggers(backend: str, target: str) -> None:
    raw = Raw(backend, target)
    if backend == "sqlite":
        for (name,) in raw.conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
            raw.conn.execute(f"DROP TRIGGER {name}")
        raw.conn.commit()
    else:
        rows = raw.conn.execute(
            "SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal AND n.nspname = %s",
            (target,)).fetchall()
        for name, table in rows:
            raw.conn.execute(f"DROP TRIGGER {name} ON {table}")
        raw.conn.commit()
    raw.conn.close()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def dbs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """``guarded``, ``bare`` (no guard at all) and ``prelane`` (before this lane: the 0002/0005
    UPDATE/DELETE triggers on three tables, nothing else) databases with the same history."""
    backend = request.param
    tmp = tmp_path_factory.mktemp("guards")
    if backend == "sqlite":
        targets = {k: str(tmp / f"{k}.db") for k in ("guarded", "bare", "prelane")}
        urls = dict(targets)
        yield from _built(backend, targets, urls, tmp)
    else:
        with pg_schema() as a, pg_schema() as b, pg_schema() as c:
            targets = {"guarded": a, "bare": b, "prelane": c}
            urls = {k: pg_url(v) for k, v in targets.items()}
            yield from _built(backend, targets, urls, tmp)


def _built(backend: str, targets: dict[str, str], urls: dict[str, str], tmp: Path) -> Iterator[dict[str, Any]]:
    stores = {"guarded": open_store(urls["guarded"]), "bare": open_without(urls["bare"], (GUARD,)),
              "prelane": open_without(urls["prelane"], (GUARD,))}
    for s in stores.values():
        populate(s, tmp)
        s.close()
    _drop_triggers(backend, targets["bare"])
    yield {"backend": backend, **targets}


def _count(backend: str, target: str, table: str) -> int:
    raw = Raw(backend, target)
    try:
        return int(raw.one(f"SELECT count(*) FROM {table}")[0])
    finally:
        raw.close()


def _attempt(dbs: dict[str, Any], which: str, sql: str) -> tuple[bool, int]:
    """Run ``sql`` on database ``which``: (refused?, rows changed). A refusal must come from a
    guard trigger (its message), not from some other constraint."""
    raw = Raw(dbs["backend"], dbs[which])
    try:
        return False, raw.run(sql)
    except refused(dbs["backend"]) as exc:
        assert re.search(r"append-only|opens as open", str(exc)), exc
        return True, 0
    finally:
        raw.close()


def _check(dbs: dict[str, Any], table: str, sql: str, *, bare_changes: bool = True) -> None:
    before = _count(dbs["backend"], dbs["guarded"], table)
    was_refused, changed = _attempt(dbs, "bare", sql)
    assert not was_refused and (changed > 0 or not bare_changes), f"without the guard this works: {sql}"
    was_refused, _ = _attempt(dbs, "guarded", sql)
    assert was_refused, f"the guard refuses: {sql}"
    assert _count(dbs["backend"], dbs["guarded"], table) == before


@pytest.mark.parametrize("table", ALL_HISTORY)
def test_update_is_refused(dbs: dict[str, Any], table: str) -> None:
    col, value = CHANGE[table]
    _check(dbs, table, f"UPDATE {table} SET {col} = {value}")


@pytest.mark.parametrize("table", ALL_HISTORY)
def test_delete_is_refused(dbs: dict[str, Any], table: str) -> None:
    _check(dbs, table, f"DELETE FROM {table}")


def _columns(dbs: dict[str, Any], table: str) -> list[str]:
    raw = Raw(dbs["backend"], dbs["guarded"])
    try:
        if dbs["backend"] == "sqlite":
            return [r[1] for r in raw.conn.execute(f"PRAGMA table_info({table})").fetchall()]
        return [r[0] for r in raw.conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s AND table_schema = %s "
            "ORDER BY ordinal_position", (table, dbs["guarded"])).fetchall()]
    finally:
        raw.close()


def _copy_sql(dbs: dict[str, Any], table: str, verb: str, keep_pk: bool = True, tail: str = "") -> str:
    """``verb INTO table`` a copy of its first row with the forged column rewritten."""
    col, value = CHANGE[table]
    cols = [c for c in _columns(dbs, table) if keep_pk or c != "pk"]
    exprs = [value if c == col else f'"{c}"' for c in cols]
    names = ", ".join(f'"{c}"' for c in cols)
    return (f"{verb} INTO {table} ({names}) SELECT {', '.join(exprs)} FROM {table} "
            f"WHERE pk = (SELECT min(pk) FROM {table}){tail}")


@pytest.mark.parametrize("table", ALL_HISTORY)
def test_insert_or_replace_is_refused(dbs: dict[str, Any], table: str) -> None:
    """SQLite: REPLACE deletes the row with the same key and writes the forged one; DELETE
    triggers do not fire for it (recursive_triggers is off), so only a BEFORE INSERT trigger
    that refuses a taken key stops it. PostgreSQL: the same as ON CONFLICT DO UPDATE."""
    if dbs["backend"] == "sqlite":
        sql = _copy_sql(dbs, table, "INSERT OR REPLACE")
    else:
        col, value = CHANGE[table]
        sql = _copy_sql(dbs, table, "INSERT", tail=f" ON CONFLICT (pk) DO UPDATE SET {col} = {value}")
    _check(dbs, table, sql)


@pytest.mark.parametrize("dbs", ["sqlite"], indirect=True)
@pytest.mark.parametrize("table", ["human_score", "safety_decision"])
def test_replace_got_past_the_old_update_delete_triggers(dbs: dict[str, Any], table: str) -> None:
    """The red-team finding: before this lane the human_score and safety_decision triggers
    refused UPDATE and DELETE, yet ``INSERT OR REPLACE`` rewrote a row (SQLite)."""
    col, value = CHANGE[table]
    assert _attempt(dbs, "prelane", f"UPDATE {table} SET {col} = {value}")[0]  # the old guard
    raw = Raw("sqlite", dbs["prelane"])
    try:
        raw.run(_copy_sql(dbs, table, "INSERT OR REPLACE"))
        forged = raw.one(f"SELECT {col} FROM {table} WHERE pk = (SELECT min(pk) FROM {table})")[0]
        assert str(forged) in (value.strip("'"), "10.0")  # rewritten in place
    finally:
        raw.close()
    assert _attempt(dbs, "guarded", _copy_sql(dbs, table, "INSERT OR REPLACE"))[0]


@pytest.mark.parametrize("dbs", ["sqlite"], indirect=True)
def test_replace_by_unique_key_is_refused(dbs: dict[str, Any]) -> None:
    """A rubric version replaced through its (rubric_id, version) key, under a new pk (SQLite;
    on PostgreSQL a duplicate (rubric_id, version) fails the unique key)."""
    _check(dbs, "rubric_version", _copy_sql(dbs, "rubric_version", "INSERT OR REPLACE", keep_pk=False))


@pytest.mark.parametrize("dbs", ["postgres"], indirect=True)
@pytest.mark.parametrize("table", ALL_HISTORY)
def test_truncate_is_refused(dbs: dict[str, Any], table: str) -> None:
    """PostgreSQL's TRUNCATE fires no row trigger: a statement trigger refuses it (SQLite has
    no TRUNCATE; its DELETE without WHERE is refused above)."""
    _check(dbs, table, f"TRUNCATE {table}", bare_changes=False)
    assert _count("postgres", dbs["guarded"], table) > 0


def test_a_flag_cannot_be_written_already_cleared(dbs: dict[str, Any]) -> None:
    """Flags are history; their status comes from decisions, so a new flag opens as open."""
    sql = _copy_sql(dbs, "safety_flag", "INSERT", keep_pk=False)
    was_refused, changed = _attempt(dbs, "bare", sql)
    assert not was_refused and changed == 1
    assert _attempt(dbs, "guarded", sql)[0]


def test_an_edited_rubric_version_is_refused_and_the_stored_one_is_used(dbs: dict[str, Any]) -> None:
    _check(dbs, "rubric_version", "UPDATE rubric_version SET yaml_text = replace(yaml_text, 'weight: 0.35', 'weight: 0.95')")
    url = dbs["guarded"] if dbs["backend"] == "sqlite" else pg_url(dbs["guarded"])
    store = open_store(url)
    try:
        assert store.rubrics.get_rubric("general-quality@1.0.0").dimension("accuracy").weight == 0.35
    finally:
        store.close()


def test_safety_status_is_derived_without_changing_the_flag(dbs: dict[str, Any]) -> None:
    """The store decides on flags without touching flag rows (which the guard forbids): the
    escalated flag of the fixture shows as escalated while its row still says open."""
    url = dbs["guarded"] if dbs["backend"] == "sqlite" else pg_url(dbs["guarded"])
    store = open_store(url)
    try:
        flags = store.safety.open_flags()
        assert [f.status for f in flags] == ["escalated"]
    finally:
        store.close()
    raw = Raw(dbs["backend"], dbs["guarded"])
    try:
        assert raw.one("SELECT status FROM safety_flag")[0] == "open"
    finally:
        raw.close()
