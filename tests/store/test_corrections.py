"""Corrected answers (``item_correction``, migration ``0013c_corrections``): stored append-only
with author, revision and time; a save identical to the output or to one's last correction stores
nothing; bad text refused in one line; signed like a score (on PostgreSQL by the database: a
login writes only its own person's, a served link's session marks them ``via = 'link'``);
exported (JSON Lines ``corrections``, the CSV column). On SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text as sql

from reviewer.domain.corrections import MAX_CORRECTION_CHARS
from reviewer.errors import UserError
from reviewer.store import Store, open_store
from tests.cli import run_cli
from tests.hostile.team import make_team
from tests.store.helpers import cap_item

REF = "general-quality@1.0.0"
OUTPUT = "Paris is the capital of France."


def _item(store: Store, tmp_path: Path, output: str = OUTPUT, update: bool = False) -> int:
    return cap_item(store, tmp_path, output, update)


def test_a_correction_is_stored_with_author_revision_and_time(store: Store, tmp_path: Path) -> None:
    pk = _item(store, tmp_path)
    store.roles.add_reviewer("lee", "lead")
    first = store.corrections.add_correction(pk, "lee", "Paris is the capital of France (since 987).")
    _item(store, tmp_path, "Paris is the capital of Germany.", update=True)  # revision 2
    second = store.corrections.add_correction(pk, "lee", "Berlin is the capital of Germany.")
    [a, b] = store.corrections.corrections([pk])[pk]
    assert (a.pk, a.reviewer, a.revision, a.text) == (first, "lee", 1, "Paris is the capital of France (since 987).")
    assert (b.pk, b.revision) == (second, 2)
    assert a.created_at is not None and b.created_at is not None and a.created_at <= b.created_at
    assert store.corrections.corrections([pk + 99]) == {pk + 99: []}
    with store.db.read() as conn:
        assert conn.execute(sql("SELECT actor, via FROM item_correction")).all() == [(store.roles.login, None)] * 2


def test_a_save_identical_to_the_output_or_to_ones_last_correction_stores_nothing(store: Store,
                                                                                  tmp_path: Path) -> None:
    pk = _item(store, tmp_path)
    store.roles.add_reviewer("lee", "lead")
    store.roles.add_reviewer("ana", "reviewer", login=store.roles.login)
    assert store.corrections.add_correction(pk, "lee", OUTPUT) is None  # the output itself
    assert store.corrections.add_correction(pk, "lee", "Paris.") is not None
    assert store.corrections.add_correction(pk, "lee", "Paris.") is None  # one's own last one
    assert store.corrections.add_correction(pk, "ana", "Paris.") is not None  # another's: her own, stored
    assert store.corrections.add_correction(pk, "lee", "Paris!") is not None
    assert store.corrections.add_correction(pk, "lee", "Paris.") is not None  # not the last one any more
    _item(store, tmp_path, "Paris.", update=True)  # revision 2: its output is that text
    assert store.corrections.add_correction(pk, "lee", "Paris.") is None
    assert [(c.reviewer, c.text) for c in store.corrections.corrections([pk])[pk]] == [
        ("lee", "Paris."), ("ana", "Paris."), ("lee", "Paris!"), ("lee", "Paris.")]


@pytest.mark.parametrize("text, problem", [
    ("", "empty"), ("  \n ", "empty"), ("x" * (MAX_CORRECTION_CHARS + 1), f"at most {MAX_CORRECTION_CHARS}"),
    ("bad \ud800 text", "lone surrogate"),
])
def test_a_bad_correction_is_refused_in_one_line_and_nothing_is_written(store: Store, tmp_path: Path,
                                                                        text: str, problem: str) -> None:
    pk = _item(store, tmp_path)
    with pytest.raises(UserError, match=problem) as exc:
        store.corrections.add_correction(pk, "lee", text)
    assert "\n" not in str(exc.value)
    with pytest.raises(UserError, match="no item with key"):
        store.corrections.add_correction(pk + 99, "lee", "fine text")
    assert store.corrections.corrections([pk])[pk] == []


def test_hostile_text_is_kept_as_written(store: Store, tmp_path: Path) -> None:
    pk = _item(store, tmp_path)
    text = "\x1b]0;pwned\x07[link=http://evil.example]click[/link] \u202eevil"
    store.corrections.add_correction(pk, "lee", text)
    assert store.corrections.corrections([pk])[pk][0].text == text


def test_a_database_made_before_corrections_gets_the_table_and_its_guards(tmp_path: Path) -> None:
    db = str(tmp_path / "old.db")
    open_store(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE item_correction")
        conn.execute("DELETE FROM schema_migrations WHERE name = '0013c_corrections'")
    store = open_store(db)
    try:
        pk = _item(store, tmp_path)
        store.corrections.add_correction(pk, "lee", "after the upgrade")
    finally:
        store.close()
    with sqlite3.connect(db) as conn, pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE item_correction SET text = 'x'")


def test_export_carries_the_corrections(store: Store, tmp_path: Path) -> None:
    pk = _item(store, tmp_path)
    store.roles.add_reviewer("lee", "lead")
    store.corrections.add_correction(pk, "lee", "=HYPERLINK(\"http://evil.example\")")
    [row] = store.items.export_rows(REF)
    [c] = row["corrections"]
    assert {k: c[k] for k in ("author", "revision", "current_revision", "text")} == {
        "author": "lee", "revision": 1, "current_revision": True, "text": "=HYPERLINK(\"http://evil.example\")"}
    assert c["created_at"].endswith("+00:00") and c["created_at"][:2] == "20"
    _item(store, tmp_path, "Paris is the capital of Germany.", update=True)
    [row] = store.items.export_rows(REF)
    assert [(c["revision"], c["current_revision"]) for c in row["corrections"]] == [(1, False)]


def test_the_csv_export_has_a_corrections_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "x.db")
    store = open_store(db)
    try:
        pk = _item(store, tmp_path)
        store.corrections.add_correction(pk, "lee", "=1+1 is not the answer")
    finally:
        store.close()
    code, out, _ = run_cli(["export", "--format", "csv", "--db", db], capsys)
    assert code == 0
    header = next(csv.reader(io.StringIO(out)))
    assert header[17:] == ["revision", "human_scores", "comments", "corrections", "marks"]
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and all(json.loads(r["corrections"])[0]["text"] == "=1+1 is not the answer" for r in rows)


def test_queue_show_lists_the_corrected_answers_made_safe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "x.db")
    store = open_store(db)
    try:
        pk = _item(store, tmp_path)
        store.corrections.add_correction(pk, "lee", "Paris \x1b]0;pwned\x07[b]is[/b] the capital.\nSince 987.")
    finally:
        store.close()
    code, out, _ = run_cli(["queue", "show", "cap", "--db", db], capsys)
    assert code == 0
    head, _, rest = out.partition("corrected answers (1)\n")
    assert rest.startswith("  lee · 20") and "    Paris ␛]0;pwned␇[b]is[/b] the capital.\n    Since 987." in rest
    assert "\x1b" not in out
    code, out, _ = run_cli(["queue", "show", "cap", "--json", "--db", db], capsys)
    assert code == 0 and json.loads(out)["corrections"][0]["author"] == "lee"


@pytest.fixture
def team(demo_store: Store) -> Store:
    """The demo items, the acting login a lead, ana a plain reviewer bound to her own login."""
    demo_store.roles.add_reviewer("boss", "lead", login=demo_store.roles.login)
    demo_store.roles.add_reviewer("ana", "reviewer")
    return demo_store


def test_a_link_session_signs_its_corrections_through_the_link(team: Store, db_url: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    token = team.links.add_link("ana", timedelta(days=1))
    with team.db.read() as conn:
        pk = int(conn.execute(sql("SELECT min(pk) FROM item")).scalar_one())
    monkeypatch.setenv("RUBRICATE_LINK_TOKEN", token)
    session = open_store(db_url)
    try:
        session.corrections.add_correction(pk, "ana", "the answer, corrected")
        with pytest.raises(UserError, match="acts for ana through a link"):
            session.corrections.add_correction(pk, "boss", "as the lead")
        team.links.revoke_links("ana")
        with pytest.raises(UserError, match="revoked or has expired"):
            session.corrections.add_correction(pk, "ana", "once more")
    finally:
        session.close()
    with team.db.read() as conn:
        rows = conn.execute(sql("SELECT reviewer, actor, via, text FROM item_correction")).all()
    actor = "ana" if team.db.dialect == "sqlite" else team.roles.login  # PostgreSQL: the server's own login
    assert rows == [("ana", actor, "link", "the answer, corrected")]


@pytest.fixture
def pg_team(tmp_path: Path) -> Iterator[tuple[Any, dict[str, Any]]]:
    """People with logins of their own on PostgreSQL, their roles granted (``db roles``) before
    this migration existed; the owner then opens the database and migrates it."""
    with ExitStack() as stack:
        t, info = make_team("postgres", tmp_path, stack, skip=("0013c_corrections",))
        with t.owner.db.write() as conn:  # the grants of a ``db roles`` run before the table existed
            for role in conn.execute(sql(
                    "SELECT DISTINCT grantee FROM information_schema.table_privileges WHERE table_schema = "
                    "current_schema() AND table_name = 'human_score' AND privilege_type = 'INSERT' "
                    "AND grantee <> current_user")).scalars():
                conn.execute(sql(f"REVOKE ALL ON item_correction FROM {role}"))
        raw = t.raw("ana")
        try:
            with pytest.raises(Exception, match="permission denied"):
                raw.run("INSERT INTO item_correction (item_pk, revision, reviewer, text, created_at)"
                        f" VALUES ({info['pk']}, 1, 'ana', 'before', now())")
        finally:
            raw.close()
        t.stores.append(open_store(t.url()))  # the owner opens it: the migration runs
        yield t, info


def test_postgres_a_login_writes_only_its_own_persons_corrections(pg_team: tuple[Any, dict[str, Any]]) -> None:
    """Granted before the table existed, ana's login may write her corrections (the migration
    grants them); the database itself refuses one signed with another's name and stamps the
    actor, whatever the row says."""
    t, info = pg_team
    pk = info["pk"]
    ana = t.as_("ana")
    assert ana.corrections.add_correction(pk, "ana", "the answer as it should have been") is not None
    with pytest.raises(UserError, match="may not sign as mal"):
        ana.corrections.add_correction(pk, "mal", "as mal")
    raw = t.raw("ana")
    try:
        with pytest.raises(Exception, match="may not sign as mal"):
            raw.run("INSERT INTO item_correction (item_pk, revision, reviewer, text, actor, created_at)"
                    f" VALUES ({pk}, 1, 'mal', 'forged', 'x', now())")
    finally:
        raw.close()
    raw = t.raw("ana")
    try:
        raw.run("INSERT INTO item_correction (item_pk, revision, reviewer, text, actor, created_at)"
                f" VALUES ({pk}, 1, 'ana', 'raw but hers', 'someone-else', now())")
        assert raw.one("SELECT actor FROM item_correction WHERE text = 'raw but hers'")[0] == t.logins["ana"]
        with pytest.raises(Exception, match="permission denied"):  # no grant to change one
            raw.run("UPDATE item_correction SET text = 'forged'")
    finally:
        raw.close()
    with t.owner.db.read() as conn:
        assert conn.execute(sql("SELECT reviewer, actor FROM item_correction")).all() == [("ana", t.logins["ana"])]
