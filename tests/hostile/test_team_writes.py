"""A person's own login writes what their screens write, and nothing else (issue 23, item 5).

PostgreSQL: the red team's writes, tried as ``ana``'s real login with a raw connection, on a team
database as an earlier release left it (its ``db roles`` grants, migrated without
``0010e_team_writes``: each write is accepted there) and on the same database once the owner has
opened it again (the migration re-grants the application role and adds its triggers: each is
refused), and on a team set up afresh. ``ana``'s own work — claim, score, undo, comment, flag,
withdraw, submit, and the review count and judge–people gap a score refreshes — still works.

SQLite: the acting person is the OS account of the process (its uid), never ``$LOGNAME`` or
``$USER``. Both: a name that came with an import is bound to no login until a lead binds it.
"""

from __future__ import annotations

import os
import pwd
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from reviewer.errors import UserError
from reviewer.faults import explained
from reviewer.locations import os_login
from reviewer.store import open_store
from reviewer.store.guards import ALL_HISTORY
from tests.cli import run_cli
from tests.hostile.dbs import REF, open_without, pg_schema, pg_url
from tests.hostile.team import Team, pg_people
from tests.hostile.team_attacks import (
    NEW,
    attack_as_ana,
    closer,
    fresh_team,
    full_team,
    migrations_of,
    team_state,
)

#: The earlier release's ``db roles`` grants (``{app}``, ``{history}``, ``{item_columns}``).
EARLIER_GRANTS = (
    "GRANT SELECT, INSERT ON {history} TO {app}",
    "GRANT SELECT, INSERT, UPDATE ON assignment, judge_run, judge_cache, queue_setting, reviewer, audit_sample TO {app}",
    "GRANT SELECT, INSERT ON item TO {app}",
    "GRANT UPDATE ({item_columns}) ON item TO {app}",
    "GRANT SELECT ON schema_migrations TO {app}",
)
#: What the earlier grants kept from a person: an item's content.
CONTENT = {"pk", "item_id", "dataset", "rubric_ref", "content_hash", "revision", "input", "output", "context",
           "reference", "conversation", "grp", "variant", "metadata", "gold", "is_gold", "created_at"}


def _earlier_team(tmp: Path, stack: ExitStack) -> tuple[Team, dict[str, Any], str]:
    """A PostgreSQL team as the earlier release left it; returns it, its state and app role."""
    name = f"w{uuid.uuid4().hex[:6]}"
    logins = pg_people(stack, name)
    schema = stack.enter_context(pg_schema())
    owner = open_without(pg_url(schema), (NEW,))
    app = f"g_app_{name}"
    owner.roles.apply_team_roles(owner.roles.team_roles(app, list(logins.values())))  # the role, logins, membership
    cols = owner.db.engine.connect()
    try:
        item_columns = [c for c in cols.exec_driver_sql(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = 'item'").scalars() if c not in CONTENT]
    finally:
        cols.close()
    owner.roles.apply_team_roles([f"REVOKE ALL ON ALL TABLES IN SCHEMA {schema} FROM {app}"] + [
        g.format(app=app, history=", ".join(ALL_HISTORY), item_columns=", ".join(item_columns)) for g in EARLIER_GRANTS])
    t = Team("postgres", schema, logins, owner)
    stack.callback(closer(t))
    return t, team_state(t, tmp), app


@pytest.fixture(scope="module")
def earlier_and_migrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[tuple[Team, dict[str, Any]]]]:
    """Two team databases as the earlier release left them, the second then opened by its owner
    (the migration runs), shared by the attack cases (each runs in a transaction rolled back)."""
    with ExitStack() as stack:
        tmp = tmp_path_factory.mktemp("team")
        teams = [_earlier_team(tmp, stack)[:2] for _ in range(2)]
        migrated = teams[1][0]
        migrated.stores.append(open_store(migrated.url()))
        assert NEW not in migrations_of(teams[0][0]) and NEW in migrations_of(migrated)
        yield teams


def _ivy_claim(t: Team, _: dict[str, Any]) -> str:
    return (f"INSERT INTO reviewer (name, roles, login, created_at) "
            f"VALUES ('ivy', 'reviewer', '{t.logins['ana']}', CURRENT_TIMESTAMP)")


#: The red team's writes as ana (and the rest a reviewer login could write that no screen needs).
ATTACKS: dict[str, Any] = {
    "empty the safety queue": lambda t, i: "UPDATE item SET safety = 'none', flagged = false",
    "edit a cached judge reply": lambda t, i: (
        "UPDATE judge_cache SET value = '{\"score\": 5, \"rationale\": \"poisoned by ana\"}'"),
    "plant a cached judge reply": lambda t, i: (
        "INSERT INTO judge_cache (key, value, created_at) VALUES ('k2', '{\"score\": 5}', CURRENT_TIMESTAMP)"),
    "mark another's assignment done": lambda t, i: (
        "UPDATE assignment SET state = 'done', ended_at = CURRENT_TIMESTAMP WHERE reviewer = 'mal'"),
    "open a done assignment for another": lambda t, i: (
        f"INSERT INTO assignment (item_pk, queue, reviewer, state, revision, created_at) "
        f"VALUES ({i['pk']}, 'triage', 'mal', 'done', 1, CURRENT_TIMESTAMP)"),
    "change a queue setting": lambda t, i: "UPDATE queue_setting SET reviewers_per_item = 1",
    "add a queue setting": lambda t, i: (
        "INSERT INTO queue_setting (rubric_ref, queue, reviewers_per_item, gold_rate, blind, updated_at) "
        "VALUES ('x@1.0.0', 'audit', 1, 0, false, CURRENT_TIMESTAMP)"),
    "import an item": lambda t, i: (
        "INSERT INTO item (item_id, dataset, rubric_ref, content_hash, revision, input, output, context, reference, "
        "is_gold, n_errors, flagged, safety, n_reviewed, n_labelled, triage_key, created_at) VALUES ('forged', '', "
        f"'{REF}', 'h', 1, '', 'forged output', '', '', false, 0, false, 'none', 0, 0, 0, CURRENT_TIMESTAMP)"),
    "start a judge run": lambda t, i: (
        f"INSERT INTO judge_run (rubric_ref, source, status, started_at) VALUES ('{REF}', 'judge', 'done', CURRENT_TIMESTAMP)"),
    "mark a judge run done": lambda t, i: "UPDATE judge_run SET status = 'done'",
    "draw an audit sample": lambda t, i: (
        f"INSERT INTO audit_sample (rubric_ref, item_pk, seed) VALUES ('{REF}', {i['pk']}, 1)"),
    "count reviews nobody gave": lambda t, i: "UPDATE item SET n_reviewed = 99",
    "count labels nobody gave (the audit queue then skips the item)": lambda t, i: "UPDATE item SET n_labelled = 99",
    "move the people's gap": lambda t, i: "UPDATE item SET human_gap = 0",
    "rewrite the judge's overall": lambda t, i: "UPDATE item SET judge_overall = 5, judge_band = 'good'",
    "hide judge errors": lambda t, i: "UPDATE item SET n_errors = 0, judge_spread = 0",
    "route by priority": lambda t, i: "UPDATE item SET priority = 99999",
    "take another's live lease": lambda t, i: (
        f"UPDATE item SET lease_reviewer = 'ana', lease_until = CURRENT_TIMESTAMP + interval '1 hour' WHERE pk = {i['mal_pk']}"),
    "end another's lease": lambda t, i: (
        f"UPDATE item SET lease_reviewer = NULL, lease_until = NULL WHERE pk = {i['mal_pk']}"),
    "lease to another": lambda t, i: (
        f"UPDATE item SET lease_reviewer = 'sue', lease_until = CURRENT_TIMESTAMP + interval '1 hour' WHERE pk = {i['pk']}"),
    "lease for a century": lambda t, i: (
        f"UPDATE item SET lease_reviewer = 'ana', lease_until = CURRENT_TIMESTAMP + interval '100 years' WHERE pk = {i['pk']}"),
    "flag as another": lambda t, i: (
        f"INSERT INTO safety_flag (item_pk, revision, gate, detector, start, \"end\", matched, context, severity, status, "
        f"created_at) VALUES ({i['pk']}, 1, 'reviewer_flag', 'human:mal', 0, 0, '', 'x', 'high', 'open', CURRENT_TIMESTAMP)"),
    "forge a gate's flag": lambda t, i: (
        f"INSERT INTO safety_flag (item_pk, revision, run_pk, gate, detector, start, \"end\", matched, context, severity, "
        f"status, created_at) VALUES ({i['pk']}, 1, 1, 'pii', 'regex', 0, 0, '', 'x', 'high', 'open', CURRENT_TIMESTAMP)"),
    "register a rubric version": lambda t, i: (
        "INSERT INTO rubric_version (rubric_id, version, content_hash, yaml_text, created_at) "
        "VALUES ('general-quality', '9.9.9', 'h', 'x', CURRENT_TIMESTAMP)"),
    "add an item revision": lambda t, i: (
        f"INSERT INTO item_revision (item_pk, revision, content_hash, payload, created_at) "
        f"VALUES ({i['pk']}, 7, 'h', '{{}}', CURRENT_TIMESTAMP)"),
    "add a judge score": lambda t, i: (
        f"INSERT INTO judge_score (run_pk, item_pk, revision, dimension, method, score, rationale, cost_usd, tokens_in, "
        f"tokens_out, not_applicable, created_at) VALUES (1, {i['pk']}, 1, 'accuracy', 'llm_judge', 1, 'x', 0, 0, 0, false, "
        f"CURRENT_TIMESTAMP)"),
    "claim an imported name": _ivy_claim,
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_postgres_a_persons_login_writes_only_what_their_screens_do(
        earlier_and_migrated: list[tuple[Team, dict[str, Any]]], attack: str) -> None:
    (earlier, info0), (migrated, info1) = earlier_and_migrated
    assert attack_as_ana(earlier, ATTACKS[attack](earlier, info0)), "the earlier release accepted this write"
    assert not attack_as_ana(migrated, ATTACKS[attack](migrated, info1))


@pytest.mark.parametrize("which", [0, 1], ids=["earlier", "migrated"])
def test_postgres_the_triage_key_is_derived_by_the_database(
        earlier_and_migrated: list[tuple[Team, dict[str, Any]]], which: int) -> None:
    """Writing a triage key that puts an item first is not refused: the database writes the key
    the row's own columns give (``queue.TRIAGE_KEY_SQL``) whatever the statement says (the
    earlier release stored the forged one)."""
    t, info = earlier_and_migrated[which]
    raw = t.raw("ana")
    try:
        raw.run(f"UPDATE item SET triage_key = -1e12 WHERE pk = {info['pk']}")
        forged = raw.one(f"SELECT triage_key FROM item WHERE pk = {info['pk']}")[0] == -1e12
        assert forged is (which == 0)
        if forged:
            return
        expected = raw.one(f"SELECT n_reviewed * 1000000 - CASE WHEN n_errors > 0 OR flagged THEN 100000 ELSE 0 END "
                           f"FROM item WHERE pk = {info['pk']}")[0]
        assert raw.one(f"SELECT triage_key FROM item WHERE pk = {info['pk']}")[0] == expected
    finally:
        raw.close()


def test_postgres_a_fresh_team_refuses_every_attack(tmp_path: Path) -> None:
    with ExitStack() as stack:
        t, info = fresh_team(tmp_path, stack)
        accepted = [a for a, sql in ATTACKS.items() if attack_as_ana(t, sql(t, info))]
        assert accepted == []


def _ivy_pk(t: Team) -> int:
    return next(r.item_pk for r in t.owner.queue.queue_page("triage") if r.item_id == "ivy-1")


def _item(t: Team, pk: int) -> tuple[Any, ...]:
    raw = t.raw()
    try:
        return tuple(raw.one(f"SELECT n_reviewed, human_gap, safety, lease_reviewer FROM item WHERE pk = {pk}"))
    finally:
        raw.close()


def test_postgres_a_persons_day_still_works(tmp_path: Path) -> None:
    """On the migrated database, as ana: claim, score every dimension (the review count and the
    judge–people gap the scores refresh are written), undo and score again, comment, flag and
    withdraw the flag, submit; mal releases his claim; sue decides a flag."""
    with ExitStack() as stack:
        t, info, _ = _earlier_team(tmp_path, stack)
        t.stores.append(open_store(t.url()))  # migrated
        ana, mal = t.as_("ana"), t.as_("mal")
        pk = _ivy_pk(t)
        n0, gap0, safety0, _ = _item(t, pk)
        assert gap0 == pytest.approx(3 / 9)  # ivy's 4 against the judge's 7, on a 1–10 scale
        claim = ana.queue.claim_item(pk, "triage", "ana")
        assert claim is not None and _item(t, pk)[3] == "ana"
        rubric = ana.rubrics.get_rubric(REF)
        for d in rubric.person_dimensions():
            ana.scores.add_human_score(pk, d.id, "ana", 1.0)
        ana.scores.add_human_score(pk, "accuracy", "ana", None, kind="undo")
        ana.scores.add_human_score(pk, "accuracy", "ana", 1.0)
        n1, gap1, _, _ = _item(t, pk)
        assert (n1, gap1) == (n0 + 1, pytest.approx(4.5 / 9))  # the people's 2.5 against 7
        ana.comments.add_comment(pk, "ana", "cites nothing")
        flag = ana.safety.flag_item(pk, "ana")
        assert _item(t, pk)[2] == "open"
        ana.safety.withdraw_flag(flag, "ana")
        assert _item(t, pk)[2] == safety0
        assert ana.queue.complete(claim) is True
        assert _item(t, pk)[3] is None
        mal_claim = mal.queue.renew(mal.queue.claim_item(info["mal_pk"], "triage", "mal") or pytest.fail("mal lost his lease"))
        mal.queue.release(mal_claim)
        assert t.as_("sue").safety.add_safety_decision(info["flag"], "sue", "escalate", "unsure") == "escalated"
        raw = t.raw()
        try:
            states = dict(raw.conn.execute("SELECT reviewer, state FROM assignment WHERE item_pk = %s "
                                           "ORDER BY pk", (pk,)).fetchall())
        finally:
            raw.close()
        assert states == {"ana": "done"}


# --- SQLite: the acting person is the OS account -------------------------------------------

def test_the_acting_login_is_the_uid_not_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """``LOGNAME=boss rubricate reviewer add mallory --role lead`` made mallory a lead when boss
    was the lead's login; the process's uid is who acts."""
    account = pwd.getpwuid(os.getuid()).pw_name
    db = str(tmp_path / "env.db")
    lead = open_store(db, login="boss")
    lead.roles.add_reviewer("boss", "lead")
    lead.close()
    for var in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.setenv(var, "boss")
    assert os_login() == account != "boss"
    code, _, err = run_cli(["reviewer", "add", "mallory", "--role", "lead", "--db", db], capsys)
    assert code == 1 and "only a lead grants roles" in err and account in err
    store = open_store(db)
    try:
        assert store.roles.login == account
        assert store.roles.reviewer_roles("mallory") == set()
    finally:
        store.close()


def test_one_os_account_under_two_lognames_is_not_two_signoffs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.hostile.team import TWO, import_item, two_signoffs

    db = str(tmp_path / "two.db")
    lead = open_store(db, login="lee-login")
    lead.roles.add_reviewer("lee", "lead")
    lead.roles.add_reviewer("s1", "safety", login="boss1")
    lead.roles.add_reviewer("s2", "safety", login="boss2")
    two_signoffs(lead)
    pk = import_item(lead, tmp_path, TWO)
    flag = lead.safety.flag_item(pk, "lee")
    lead.close()
    for name, login in (("s1", "boss1"), ("s2", "boss2")):
        monkeypatch.setenv("LOGNAME", login)
        monkeypatch.setenv("USER", login)
        store = open_store(db)
        try:
            with pytest.raises(UserError, match=f"may not sign as {name}"):
                store.safety.add_safety_decision(flag, name, "clear", "benign")
        finally:
            store.close()
    check = open_store(db, login="lee-login")
    try:
        assert flag in {f.pk for f in check.safety.open_flags()}
    finally:
        check.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_claim_and_its_end_are_signed_like_a_score(backend: str, tmp_path: Path) -> None:
    """mal's store could claim items as ana, and renew, end or submit ana's claim (marking her
    assignment done); a claim is now taken and ended with a name the login may sign with."""
    from dataclasses import replace

    with ExitStack() as stack:
        t, info = full_team(backend, tmp_path, stack)
        mal = t.as_("mal")
        pk = next(r.item_pk for r in t.owner.queue.queue_page("triage") if r.item_pk != info["mal_pk"])
        with pytest.raises(UserError, match="may not sign as ana"):
            mal.queue.claim_next("triage", "ana")
        with pytest.raises(UserError, match="may not sign as ana"):
            mal.queue.claim_item(pk, "triage", "ana")
        mine = t.as_("ana").queue.claim_item(pk, "triage", "ana")
        assert mine is not None
        for end in (mal.queue.complete, mal.queue.skip, mal.queue.release, mal.queue.renew):
            with pytest.raises(UserError, match="may not sign as ana"):
                end(mine)
        forged = replace(mine, reviewer="mal")  # mal's own name on ana's lease: nothing to end
        mal.queue.release(forged)
        raw = t.raw()
        try:
            assert raw.one(f"SELECT lease_reviewer FROM item WHERE pk = {pk}")[0] == "ana"
            assert raw.one(f"SELECT state FROM assignment WHERE reviewer = 'ana' AND item_pk = {pk}")[0] == "active"
        finally:
            raw.close()
        assert t.as_("ana").queue.complete(mine) is False  # (ana has not scored: her review stays open)


# --- an imported name is bound to no login -----------------------------------------------------

@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_an_imported_name_is_bound_to_no_login_until_a_lead_binds_it(backend: str, tmp_path: Path) -> None:
    """The first login to sign with a name that came with an import became that person; now
    nobody does until a lead binds it (``reviewer add NAME --login LOGIN``)."""
    with ExitStack() as stack:
        t, _ = full_team(backend, tmp_path, stack)
        ivy_pk = next(r.item_pk for r in t.owner.queue.queue_page("triage") if r.item_id == "ivy-1")
        mal = t.as_("mal")
        with pytest.raises(UserError, match="ivy came with imported scores and is bound to no login") as err:
            mal.scores.add_human_score(ivy_pk, "accuracy", "ivy", 1.0)
        assert explained(err.value).endswith("a lead binds it to its person: `rubricate reviewer add ivy --login LOGIN`")
        with pytest.raises(UserError, match="bound to no login"):
            mal.queue.claim_next("triage", "ivy")
        assert "ivy" not in {n for n, _, _ in t.owner.roles.reviewers()}
        assert [h.score for h in t.owner.scores.human_rows(ivy_pk) if h.reviewer == "ivy"] == [4.0]
        t.owner.roles.add_reviewer("ivy", "reviewer", login=t.logins["ana"])  # the lead binds it to ana
        assert t.as_("ana").scores.add_human_score(ivy_pk, "accuracy", "ivy", 5.0)
        with pytest.raises(UserError, match="may not sign as ivy"):
            mal.scores.add_human_score(ivy_pk, "accuracy", "ivy", 1.0)
