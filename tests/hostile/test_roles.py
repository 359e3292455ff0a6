"""Nobody acts beyond their role, on SQLite and PostgreSQL: the store checks every grant and
every signed row, and on PostgreSQL the database checks them too (a raw connection as a
person's login cannot sign as someone else, grant itself a role, adjudicate or clear without the
role, nor TRUNCATE/UPDATE/DELETE history through the application role).

Where a case is checked by the database, it also runs the raw statement on a database migrated
without ``0007g_roles`` (or with the naive ``GRANT ALL``), where it succeeds. The store-level
checks replace code that accepted all of these (issue 13: anyone could run
``reviewer add me --role lead``; an adjudication from a non-lead and an empty name were stored;
one person met a two-person sign-off under two names).

A "person" is a login: on SQLite the store acts as an OS login (``open_store(db, login=...)``
stands for another OS user); on PostgreSQL as a database login made for the test (the test
role connects and takes it with ``role=``; every role made here is dropped afterwards).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from reviewer.errors import UserError
from reviewer.locations import os_login
from reviewer.services.importing import import_file
from reviewer.store import open_store
from tests.cli import run_cli
from tests.hostile.dbs import REF, Raw, open_without, pg_schema, pg_url, refused
from tests.hostile.team import Team, make_team, raw_ok


@pytest.fixture(params=["sqlite", "postgres"])
def team(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Team, dict[str, Any]]]:
    """The team on a store with every migration."""
    with ExitStack() as stack:
        yield make_team(request.param, tmp_path, stack)


@pytest.fixture(params=["sqlite", "postgres"])
def teams(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[tuple[tuple[Team, dict[str, Any]], bool]]]:
    """The team on a database migrated without ``0007g_roles`` (where a raw statement is
    accepted) and on one with it (where it is refused): [(team, accepted?), ...]."""
    with ExitStack() as stack:
        yield [(make_team(request.param, tmp_path, stack, ("0007g_roles",)), True),
               (make_team(request.param, tmp_path, stack), False)]


# --- the first lead, grants ---------------------------------------------------------------

@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_the_first_role_given_must_be_lead_and_binds_the_giver(backend: str, tmp_path: Path) -> None:
    with ExitStack() as stack:
        url = str(tmp_path / "new.db") if backend == "sqlite" else pg_url(stack.enter_context(pg_schema()))
        store = open_store(url)
        stack.callback(store.close)
        with pytest.raises(UserError, match="no lead yet"):
            store.roles.add_reviewer("ana", "reviewer")
        assert store.roles.reviewers() == []
        assert store.roles.add_reviewer("lee", "lead") == {"lead"}
        assert store.roles.reviewers() == [("lee", {"lead"}, store.roles.login)]
        expected = os_login() if backend == "sqlite" else "rubricate"
        assert store.roles.login == expected


@pytest.mark.parametrize("role", ["reviewer", "safety", "lead"])
def test_a_non_lead_cannot_grant_a_role(team: tuple[Team, dict[str, Any]], role: str) -> None:
    t, _ = team
    mal = t.as_("mal")
    for name in ("mal", "newbie"):
        with pytest.raises(UserError, match="only a lead grants roles"):
            mal.roles.add_reviewer(name, role)
    assert mal.roles.reviewer_roles("mal") == {"reviewer"}
    assert mal.roles.reviewer_roles("newbie") == set()


def test_a_non_lead_cannot_remove_a_role(team: tuple[Team, dict[str, Any]]) -> None:
    t, _ = team
    with pytest.raises(UserError, match="only a lead removes roles"):
        t.as_("mal").roles.remove_role("lee", "lead")
    assert t.owner.roles.reviewer_roles("lee") == {"lead"}


def test_a_lead_grants_and_removes_but_the_last_lead_stays(team: tuple[Team, dict[str, Any]]) -> None:
    t, _ = team
    assert t.owner.roles.add_reviewer("ana", "safety") == {"reviewer", "safety"}
    assert t.owner.roles.remove_role("ana", "safety") == {"reviewer"}
    with pytest.raises(UserError, match="only lead"):
        t.owner.roles.remove_role("lee", "lead")


# --- adjudication, safety role --------------------------------------------------------------

def test_a_non_lead_cannot_adjudicate(team: tuple[Team, dict[str, Any]]) -> None:
    t, info = team
    with pytest.raises(UserError, match="does not hold the lead role"):
        t.as_("ana").scores.add_human_score(info["pk"], "accuracy", "ana", 3.0, kind="adjudication")
    assert not [h for h in t.owner.scores.human_rows(info["pk"]) if h.kind == "adjudication"]
    assert t.owner.scores.add_human_score(info["pk"], "accuracy", "lee", 3.0, kind="adjudication")


def _insert_score(t: Team, pk: int, reviewer_sql: str, kind: str = "score") -> str:
    return (f"INSERT INTO human_score (item_pk, dimension, reviewer, score, blind, kind, created_at) "
            f"VALUES ({pk}, 'accuracy', {reviewer_sql}, 3, {'0' if t.backend == 'sqlite' else 'false'}, "
            f"'{kind}', CURRENT_TIMESTAMP)")


def test_the_database_refuses_an_adjudication_by_a_non_lead(teams: list[Any]) -> None:
    for (t, info), accepted in teams:
        assert raw_ok(t, None, _insert_score(t, info["pk"], "'ana'", "adjudication")) is accepted


def test_the_database_refuses_a_safety_decision_without_the_role(teams: list[Any]) -> None:
    for (t, info), accepted in teams:
        flag = t.owner.safety.flag_item(info["pk"], "lee")
        sql = ("INSERT INTO safety_decision (flag_pk, reviewer, decision, reason, created_at) "
               f"VALUES ({flag}, 'ana', 'clear', 'looks fine', CURRENT_TIMESTAMP)")
        assert raw_ok(t, None, sql) is accepted


# --- names --------------------------------------------------------------------------------

BAD_NAMES = ["", "   ", " ana", "ana\n", "\x1b[31mred", "tab\there", "\u0085next", "\u202eevil", "zero\u200bwidth",
             "x" * 201]


@pytest.mark.parametrize("name", BAD_NAMES, ids=[ascii(n)[:12] for n in BAD_NAMES])
def test_a_bad_name_is_refused_by_the_store(team: tuple[Team, dict[str, Any]], name: str) -> None:
    t, info = team
    with pytest.raises(UserError, match="reviewer name"):
        t.owner.roles.add_reviewer(name, "reviewer")
    with pytest.raises(UserError, match="reviewer name"):
        t.owner.scores.add_human_score(info["pk"], "accuracy", name, 4.0)
    assert name not in {h.reviewer for h in t.owner.scores.human_rows(info["pk"])}


RAW_NAMES = {"empty": "''", "spaces": "'  '", "newline": "'ana' || {chr}(10)", "escape": "{chr}(27) || '[31mred'",
             "bidi": "{chr}(8238) || 'evil'", "long": "'{long}'"}


@pytest.mark.parametrize("case", list(RAW_NAMES))
def test_a_bad_name_is_refused_by_the_database(teams: list[Any], case: str) -> None:
    for (t, info), accepted in teams:
        name = RAW_NAMES[case].format(chr="char" if t.backend == "sqlite" else "chr", long="x" * 201)
        assert raw_ok(t, None, _insert_score(t, info["pk"], name)) is accepted


# --- who signs ------------------------------------------------------------------------------

def test_a_non_lead_cannot_sign_as_someone_else(team: tuple[Team, dict[str, Any]]) -> None:
    """SQLite: ``--reviewer NAME`` for another person's name is a lead's act; PostgreSQL: nobody's
    but the owner's (the names are bound to database logins)."""
    t, info = team
    mal = t.as_("mal")
    with pytest.raises(UserError, match="may not sign as ana"):
        mal.scores.add_human_score(info["pk"], "accuracy", "ana", 1.0)
    with pytest.raises(UserError, match="may not sign as ana"):
        mal.safety.flag_item(info["pk"], "ana")
    with pytest.raises(UserError, match="may not sign as ana"):
        mal.comments.add_comment(info["pk"], "ana", "ana thinks this is fine")
    assert not t.owner.comments.comments([info["pk"]])[info["pk"]]
    assert t.as_("ana").scores.add_human_score(info["pk"], "accuracy", "ana", 7.0)
    if t.backend == "sqlite":  # the lead acts for ana (``rubricate review --reviewer ana``)
        assert t.owner.scores.add_human_score(info["pk"], "accuracy", "ana", 8.0)
    rows = [(h.reviewer, h.score) for h in t.owner.scores.human_rows(info["pk"]) if h.kind == "score"]
    assert ("ana", 1.0) not in rows and ("ana", 7.0) in rows


def test_one_person_under_two_names_is_one_signoff(team: tuple[Team, dict[str, Any]]) -> None:
    t, info = team
    pk = info["two_pk"]
    flag = t.owner.safety.flag_item(pk, "lee")
    sam = t.as_("sam")
    assert sam.safety.add_safety_decision(flag, "sam1", "clear", "benign") == "open"
    assert sam.safety.add_safety_decision(flag, "sam2", "clear", "benign, really") == "open"  # still one person
    assert flag in {f.pk for f in sam.safety.open_flags()}
    assert t.as_("sue").safety.add_safety_decision(flag, "sue", "clear", "agreed: benign") == "cleared"
    assert flag not in {f.pk for f in t.owner.safety.open_flags()}


@pytest.mark.parametrize("teams", ["postgres"], indirect=True)
def test_postgres_binds_a_name_to_its_login(teams: list[Any]) -> None:
    """A raw INSERT as mal's login signed 'ana' is refused by the database; as ana's login it is
    accepted and the row records her login as its actor, whatever the statement says."""
    for (t, info), accepted in teams:
        assert raw_ok(t, "mal", _insert_score(t, info["pk"], "'ana'")) is accepted
        comment = (f"INSERT INTO item_comment (item_pk, revision, reviewer, text, created_at) "
                   f"VALUES ({info['pk']}, 1, 'ana', 'signed as ana by mal', CURRENT_TIMESTAMP)")
        assert raw_ok(t, "mal", comment) is accepted
    t, info = teams[1][0]
    raw = t.raw("ana")
    try:
        raw.run(_insert_score(t, info["pk"], "'ana'").replace("(item_pk,", "(actor, item_pk,")
                .replace(f"VALUES ({info['pk']},", f"VALUES ('mal', {info['pk']},"))
        assert raw.one("SELECT actor FROM human_score ORDER BY pk DESC LIMIT 1")[0] == t.logins["ana"]
    finally:
        raw.close()


@pytest.mark.parametrize("teams", ["postgres"], indirect=True)
def test_postgres_a_login_cannot_make_itself_lead_in_sql(teams: list[Any]) -> None:
    for (t, _), accepted in teams:
        assert raw_ok(t, "mal", "UPDATE reviewer SET roles = 'lead,reviewer' WHERE name = 'mal'") is accepted
        sql = (f"INSERT INTO reviewer (name, roles, login, created_at) "
               f"VALUES ('mal2', 'lead', '{t.logins['mal']}', CURRENT_TIMESTAMP)")
        assert raw_ok(t, "mal", sql) is accepted


# --- the application role -------------------------------------------------------------------

@pytest.mark.parametrize("team", ["postgres"], indirect=True)
@pytest.mark.parametrize("op", ["TRUNCATE human_score", "UPDATE human_score SET score = 1",
                                "DELETE FROM human_score", "DELETE FROM item", "TRUNCATE item",
                                "UPDATE item SET output = 'forged'", "UPDATE item SET revision = 9",
                                "UPDATE item_comment SET text = 'forged'", "DELETE FROM item_comment",
                                "TRUNCATE item_comment"])
def test_postgres_the_app_role_cannot_erase_history(team: tuple[Team, dict[str, Any]], op: str) -> None:
    """The people's logins hold only ``db roles``' grants: no TRUNCATE, UPDATE or DELETE on history
    nor on items, no UPDATE of an item's content, whatever the triggers say (they are dropped
    here); with the naive GRANT ALL the same works."""
    t, _ = team
    raw = Raw("postgres", t.target)
    for (name, table) in raw.conn.execute(
            "SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE NOT t.tgisinternal AND n.nspname = %s", (t.target,)).fetchall():
        raw.conn.execute(f"DROP TRIGGER {name} ON {table}")
    raw.conn.commit()
    raw.conn.close()
    raw = t.raw("mal")
    try:
        with pytest.raises(Exception, match="permission denied"):
            raw.run(op)
    finally:
        raw.close()
    raw = Raw("postgres", t.target)
    try:
        raw.conn.execute(f"GRANT ALL ON ALL TABLES IN SCHEMA {t.target} TO {t.logins['mal']}")
        raw.conn.execute(f"SET ROLE {t.logins['mal']}")
        raw.run(op)  # the naive grant: it works
    finally:
        raw.close()


@pytest.mark.parametrize("team", ["postgres"], indirect=True)
def test_postgres_the_app_role_can_do_its_work(team: tuple[Team, dict[str, Any]]) -> None:
    """The grants are enough for a reviewer's day: claim, score, flag, decide, choose, release."""
    t, info = team
    ana, mal = t.as_("ana"), t.as_("mal")
    assert ana.roles.login == t.logins["ana"] and not ana.roles.admin
    assert ana.queue.claim_next("triage", "ana") is None  # ana reviewed both items in the import
    claim = mal.queue.claim_next("triage", "mal")
    assert claim is not None
    mal.scores.add_human_score(claim.item_pk, "accuracy", "mal", 6.0)
    mal.queue.complete(claim)
    flag = ana.safety.flag_item(info["pk"], "ana")
    assert t.as_("sue").safety.add_safety_decision(flag, "sue", "escalate", "unsure") == "escalated"
    assert ana.scores.add_human_score(info["pk"], "clarity", "newcomer", 5.0)  # a new name is claimed for ana
    assert ana.comments.add_comment(info["pk"], "ana", "the second claim needs a source")
    raw = t.raw()
    try:
        assert raw.one("SELECT reviewer, actor FROM item_comment")[:2] == ("ana", t.logins["ana"])
    finally:
        raw.close()
    assert ("newcomer", {"reviewer"}, t.logins["ana"]) in ana.roles.reviewers()


@pytest.mark.parametrize("team", ["postgres"], indirect=True)
def test_postgres_the_app_role_may_write_a_column_added_after_db_roles(team: tuple[Team, dict[str, Any]]) -> None:
    """``0009g_human_gap`` adds an item column that every person's score rewrites. A team whose
    grants were made before it (``db roles`` grants UPDATE column by column) gets UPDATE on the
    new column from the migration. The column added without that grant (checked first) left
    every reviewer's next score refused: "permission denied for table item"."""
    from sqlalchemy import text

    t, info = team
    with t.owner.db.engine.begin() as conn:  # the release before: no such column, so no grant on it
        conn.execute(text("ALTER TABLE item DROP COLUMN human_gap"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0009g_human_gap'"))
        conn.execute(text("ALTER TABLE item ADD COLUMN human_gap FLOAT"))  # the column alone
    before = open_without(t.url(t.logins["mal"]), ("0009g_human_gap",))  # (a person cannot migrate)
    t.stores.append(before)
    with pytest.raises(Exception, match="permission denied for table item"):
        before.scores.add_human_score(info["pk"], "accuracy", "mal", 9.0)
    t.stores.append(open_store(t.url()))  # the owner opens it: the migration runs
    mal = t.as_("mal")
    mal.scores.add_human_score(info["pk"], "accuracy", "mal", 9.0)
    fold = mal.items.item_view(info["pk"]).fold
    assert fold is not None and fold.dims["accuracy"].consensus == 7.5  # ana's 6 and mal's 9


# --- the command line -----------------------------------------------------------------------

def test_db_roles_prints_the_grants(team: tuple[Team, dict[str, Any]], capsys: pytest.CaptureFixture[str]) -> None:
    t, _ = team
    code, out, err = run_cli(["db", "roles", "--db", t.url(), "--login", "ana_x"], capsys)
    if t.backend == "sqlite":
        assert code == 1 and out == "" and len(err.strip().splitlines()) == 1 and "PostgreSQL" in err
        return
    assert code == 0
    assert "GRANT INSERT ON human_score, safety_flag, safety_decision, pair_choice, item_comment" in out
    assert "GRANT rubricate_app TO ana_x;" in out
    assert "TRUNCATE" not in out and "DELETE" not in out
    writes = [line for line in out.splitlines() if line.startswith("GRANT") and ("INSERT" in line or "UPDATE" in line)]
    assert not [line for line in writes if any(t in line for t in ("judge_cache", "judge_run", "judge_score", "queue_setting", "audit_sample", "INSERT ON item"))]


def test_reviewer_add_on_the_command_line_needs_a_lead(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "cli.db")
    code, _, err = run_cli(["reviewer", "add", "ana", "--db", db], capsys)
    assert code == 1 and "no lead yet" in err
    assert run_cli(["reviewer", "add", "lee", "--role", "lead", "--db", db], capsys)[0] == 0
    assert run_cli(["reviewer", "add", "ana", "--role", "safety", "--login", "ana", "--db", db], capsys)[0] == 0
    code, out, _ = run_cli(["reviewer", "list", "--db", db], capsys)
    assert code == 0 and f"lee\tlead\t{os_login()}" in out and "ana\tsafety\tana" in out
    code, _, err = run_cli(["reviewer", "add", "\x1b]0;pwned\x07", "--db", db], capsys)
    assert code == 1 and "\x1b" not in err


@pytest.mark.parametrize("name", ["", " ana", "ana\x1b[2J", "\u202eevil"], ids=["empty", "space", "escape", "bidi"])
def test_an_import_with_a_bad_reviewer_name_is_refused_whole(tmp_path: Path, name: str) -> None:
    """On the old code these names were stored (and an empty one signed scores); the database
    triggers would also refuse them, but the file gets its own line first."""
    src = tmp_path / "bad.jsonl"
    src.write_text(json.dumps({"id": "ok", "output": "x"}) + "\n" + json.dumps(
        {"id": "b", "output": "y", "human": [{"reviewer": name, "scores": {"accuracy": 5}}]}) + "\n")
    store = open_store(str(tmp_path / "imp.db"))
    try:
        with pytest.raises(UserError, match=r"bad.jsonl:2: item b: the reviewer name") as err:
            import_file(store, src, REF)
        assert "\x1b" not in str(err.value) and "\u202e" not in str(err.value)
        assert store.queue.queue_count("triage") == 0
    finally:
        store.close()


def test_review_reviewer_for_someone_else_is_a_leads_act(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """``rubricate review --reviewer ana`` by an OS user who is not a lead: one line, exit 1, and
    the screen never opens (on the old code anyone could score as anyone)."""
    db = str(tmp_path / "rev.db")
    lead = open_store(db, login="lee-login")
    lead.roles.add_reviewer("lee", "lead")
    lead.roles.add_reviewer("ana", "reviewer")  # bound to the login "ana"
    lead.close()
    import reviewer.cli.review_cmds as review_cmds

    opened: list[str] = []
    monkeypatch.setattr(review_cmds, "run_tui", lambda db, name, *a: opened.append(name))
    code, out, err = run_cli(["review", "--reviewer", "ana", "--db", db], capsys)
    assert code == 1 and "may not sign as ana" in err and len(err.strip().splitlines()) == 1 and opened == []
    assert os_login() != "ana"
    boss = open_store(db, login="lee-login")
    boss.roles.add_reviewer("me", "lead", login=os_login())  # now this OS user is a lead: it may act for ana
    boss.close()
    assert run_cli(["review", "--reviewer", "ana", "--db", db], capsys)[0] == 0 and opened == ["ana"]


def _insert_pair_choice(pk: int, reviewer: str, kind: str) -> str:
    return ("INSERT INTO pair_choice (grp, rubric_ref, reviewer, winner_item_pk, item_a_pk, item_b_pk, revision, "
            f"kind, created_at) VALUES ('g1', '{REF}', '{reviewer}', {pk}, {pk}, {pk}, 1, '{kind}', CURRENT_TIMESTAMP)")



def test_postgres_only_an_import_writes_rows_of_kind_import(tmp_path: Path) -> None:
    """A person's own login may choose in a pair and score, but not write a pair choice or a
    score of kind ``import`` (which says an item file carried it): the database refuses it and
    nothing is written; the owner's import still writes both."""
    with ExitStack() as stack:
        t, info = make_team("postgres", tmp_path, stack)
        pk = info["pk"]
        assert raw_ok(t, "ana", _insert_pair_choice(pk, "ana", "choice"))
        assert raw_ok(t, "ana", _insert_score(t, pk, "'ana'"))
        for sql, table in ((_insert_pair_choice(pk, "ana", "import"), "pair_choice"),
                           (_insert_score(t, pk, "'ana'", "import"), "human_score")):
            raw = t.raw("ana")
            try:
                with pytest.raises(refused(t.backend), match=f"may not write a {table} row of kind import"):
                    raw.run(sql)
            finally:
                raw.close()
        with t.owner.db.read() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM pair_choice WHERE kind = 'import'").scalar() == 0
        src = tmp_path / "pairs.jsonl"
        rows = [{"id": f"pp-{v}", "output": f"answer {v}", "group": "gp", "variant": v,
                 "human": [{"reviewer": "ana", "scores": {"accuracy": 6}}]} for v in "ab"]
        verdict = {"pair": {"a": "pp-a", "b": "pp-b"}, "human": [{"reviewer": "ana", "winner": "a"}]}
        src.write_text("".join(json.dumps(r) + "\n" for r in [*rows, verdict]))
        summary = import_file(t.owner, src, REF)
        assert summary.pair_choices == 1 and summary.human_scores == 2
        with t.owner.db.read() as conn:
            assert conn.exec_driver_sql("SELECT reviewer FROM pair_choice WHERE kind = 'import'").scalars().all() == ["ana"]
