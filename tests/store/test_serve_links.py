"""Links to the served review app (``reviewer/store/links.py``), on SQLite and PostgreSQL: only
a hash is stored; a live link opens, a wrong, revoked or expired one does not; a store acting
through a link signs as the link's person only, marks its rows ``via = 'link'``, and writes
nothing once the link is revoked."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import Store, open_store
from reviewer.store.links import parse_expires, token_hash
from reviewer.store.tables import now
from tests.hostile.team import Team, make_team


@pytest.fixture
def team(demo_store: Store) -> Store:
    """The demo items, the acting login a lead, ana a plain reviewer bound to her own login."""
    demo_store.roles.add_reviewer("boss", "lead", login=demo_store.roles.login)
    demo_store.roles.add_reviewer("ana", "reviewer")
    return demo_store


def _item(store: Store) -> int:
    with store.db.read() as conn:
        return int(conn.execute(text("SELECT min(pk) FROM item")).scalar_one())


def test_only_the_hash_is_kept_and_only_a_live_link_opens(team: Store) -> None:
    token = team.links.add_link("ana", timedelta(days=7))
    assert len(token) >= 43  # 32 random bytes, URL-safe
    with team.db.read() as conn:
        stored = conn.execute(text("SELECT name, token_hash FROM serve_link")).all()
    assert stored == [("ana", token_hash(token))] and token not in str(stored)
    assert team.links.link_person(token) == "ana"
    assert team.links.link_person(token[:-1]) is None and team.links.link_person("") is None
    assert team.links.link_person(token, at=now() + timedelta(days=7, seconds=1)) is None  # expired
    again = team.links.add_link("ana", timedelta(hours=1))  # a new link replaces the old one
    assert team.links.link_person(token) is None and team.links.link_person(again) == "ana"
    assert team.links.revoke_links("ana") == 1 and team.links.link_person(again) is None
    assert team.links.revoke_links("ana") == 0
    assert [(n, r is not None) for n, _, _, r in team.links.links()] == [("ana", True), ("ana", True)]


def test_links_are_a_leads_act_for_a_person_with_a_role(team: Store, db_url: str) -> None:
    with pytest.raises(UserError, match="holds no role"):
        team.links.add_link("nobody", timedelta(days=1))
    if team.db.dialect == "sqlite":  # on PostgreSQL the login is the connection's: a role test there is guards'
        plain = open_store(db_url, login="ana")
        try:
            with pytest.raises(UserError, match="only a lead makes links"):
                plain.links.add_link("ana", timedelta(days=1))
            with pytest.raises(UserError, match="only a lead revokes links"):
                plain.links.revoke_links("ana")
        finally:
            plain.close()


@pytest.mark.parametrize("given, hours", [("30m", 0.5), ("12h", 12), ("7d", 168), ("365d", 8760)])
def test_expiry_spans(given: str, hours: float) -> None:
    assert parse_expires(given) == timedelta(hours=hours)


@pytest.mark.parametrize("given", ["", "7", "7w", "0d", "-1d", "366d", "1.5d", "7 d x", "999999999d"])
def test_bad_expiry_is_one_line(given: str) -> None:
    with pytest.raises(UserError) as exc:
        parse_expires(given)
    assert "\n" not in str(exc.value) and "--expires" in str(exc.value)


def test_a_link_session_signs_as_its_person_through_the_link(team: Store, db_url: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    token = team.links.add_link("ana", timedelta(days=1))
    pk = _item(team)
    dim = team.rubrics.get_rubric("general-quality@1.0.0").dimensions[0].id
    team.scores.add_human_score(pk, dim, "boss", 3.0)  # the lead's own row: no mark
    monkeypatch.setenv("RUBRICATE_LINK_TOKEN", token)
    session = open_store(db_url)
    try:
        session.scores.add_human_score(pk, dim, "ana", 7.0)
        session.comments.add_comment(pk, "ana", "checked the dates")
        with pytest.raises(UserError, match="acts for ana through a link"):
            session.scores.add_human_score(pk, dim, "boss", 1.0)  # a lead's name, even on SQLite
        team.links.revoke_links("ana")
        with pytest.raises(UserError, match="revoked or has expired"):
            session.scores.add_human_score(pk, dim, "ana", 8.0)  # the open session writes nothing more
    finally:
        session.close()
    with team.db.read() as conn:
        scores = conn.execute(text("SELECT reviewer, score, actor, via FROM human_score WHERE kind = 'score' "
                                   "AND reviewer IN ('ana', 'boss') ORDER BY pk")).all()
        comments = conn.execute(text("SELECT reviewer, via FROM item_comment")).all()
    actor = "ana" if team.db.dialect == "sqlite" else team.roles.login  # PostgreSQL: the server's own login
    assert scores == [("boss", 3.0, team.roles.login, None), ("ana", 7.0, actor, "link")]
    assert comments == [("ana", "link")]
    monkeypatch.setenv("RUBRICATE_LINK_TOKEN", token)
    with pytest.raises(UserError, match="not valid"):  # a revoked link opens no store
        open_store(db_url)


@pytest.fixture
def pg_team(tmp_path: Path) -> Iterator[tuple[Team, dict[str, Any]]]:
    """The role tests' team on PostgreSQL: each person a login of their own (``db roles``)."""
    with ExitStack() as stack:
        yield make_team("postgres", tmp_path, stack)


def test_postgres_a_leads_login_serves_its_links_within_their_roles(
        pg_team: tuple[Team, dict[str, Any]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """sue (a lead with a login of her own, not the owner) makes ana's link and serves it: her
    login signs for ana through the link — the score, the lease and a flag — marked and within
    ana's roles; never for a name she holds no live link for, never unmarked, never after revoking."""
    t, info = pg_team
    src = tmp_path / "fresh.jsonl"  # an item nobody has reviewed
    src.write_text('{"id": "s-1", "output": "an answer nobody scored"}\n')
    import_file(t.owner, src, "general-quality@1.0.0")
    t.owner.roles.add_reviewer("sue", "lead")
    sue = t.as_("sue")
    token = sue.links.add_link("ana", timedelta(days=1))
    assert sue.links.add_link("mal", timedelta(days=1))
    with t.owner.db.read() as conn:
        assert conn.execute(text("SELECT created_by FROM serve_link WHERE name = 'ana'")).scalar() == t.logins["sue"]
    with pytest.raises(UserError, match="only a lead makes links"):
        t.as_("ana").links.add_link("ana", timedelta(days=1))
    assert not _raw_ok_on(t.raw("ana"), "INSERT INTO serve_link (name, token_hash, created_by, created_at, expires_at)"
                                        " VALUES ('ana', 'x', 'x', now(), now() + interval '1 day')")  # the database too
    assert not _raw_ok_on(t.raw("ana"), "UPDATE serve_link SET expires_at = now() + interval '9 days'")
    monkeypatch.setenv("RUBRICATE_LINK_TOKEN", token)
    served = open_store(t.url(t.logins["sue"]))
    t.stores.append(served)
    monkeypatch.delenv("RUBRICATE_LINK_TOKEN")
    claim = served.queue.claim_next("triage", "ana")
    assert claim is not None
    served.scores.add_human_score(claim.item_pk, "accuracy", "ana", 6.0)
    served.safety.flag_item(claim.item_pk, "ana")
    # ana holds no lead role: the database refuses an adjudication signed for her too
    with pytest.raises(Exception, match="adjudication needs a reviewer with the lead role"), served.db.write() as conn:
        conn.execute(text("INSERT INTO human_score (item_pk, revision, dimension, reviewer, score, kind, blind, via)"
                          " VALUES (:pk, 1, 'accuracy', 'ana', 5, 'adjudication', false, 'link')"),
                     {"pk": claim.item_pk})
    raw = t.raw("sue")  # the same login, straight to the database
    assert not _raw_ok_on(raw, "INSERT INTO human_score (item_pk, revision, dimension, reviewer, score, kind, blind)"
                               f" VALUES ({claim.item_pk}, 1, 'accuracy', 'ana', 2, 'score', false)")  # unmarked
    assert not _raw_ok_on(t.raw("sue"), "INSERT INTO human_score (item_pk, revision, dimension, reviewer, score,"
                          f" kind, blind, via) VALUES ({claim.item_pk}, 1, 'accuracy', 'sam1', 2, 'score', false, 'link')")
    with t.owner.db.read() as conn:
        rows = conn.execute(text("SELECT reviewer, actor, via FROM human_score WHERE reviewer = 'ana' "
                                 "AND via IS NOT NULL")).all()
        flags = conn.execute(text("SELECT detector, via FROM safety_flag WHERE via IS NOT NULL")).all()
    assert rows == [("ana", t.logins["sue"], "link")] and flags == [("human:ana", "link")]
    sue.links.revoke_links("ana")
    assert not _raw_ok_on(t.raw("sue"), "INSERT INTO human_score (item_pk, revision, dimension, reviewer, score,"
                          f" kind, blind, via) VALUES ({claim.item_pk}, 1, 'accuracy', 'ana', 2, 'score', false, 'link')")
    assert not _raw_ok_on(t.raw("sue"), "DELETE FROM serve_link")


def _raw_ok_on(raw: Any, sql: str) -> bool:
    """Whether ``sql`` is accepted on the raw connection (then closed)."""
    try:
        raw.run(sql)
        return True
    except Exception:
        return False
    finally:
        raw.close()
