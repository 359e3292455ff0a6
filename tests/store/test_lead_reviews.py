"""A lead's review of a person's scores (``reviewer.store.lead_reviews``), on SQLite and
PostgreSQL: the walk (current scores, newest first, paged by key, narrowed by queue and time),
accepts and rejects signed by the lead, a reject's adjudication with its note and score, the
refusals, the database's own checks, and the accept rates."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from reviewer.errors import MissingRole, UserError
from reviewer.store import Store
from tests.hostile.team import Team, make_team, raw_ok

REF = "general-quality@1.0.0"


def _scores(store: Store) -> tuple[str, list[int]]:
    """The acting login's lead (``lea``) and five scores by ana: four items' accuracy in triage,
    the fifth item's in audit; the first item's is then changed (its first score is no longer
    current), the second's undone. Returns the lead and ana's current scores' keys, oldest first."""
    lead = "lea"
    store.roles.add_reviewer(lead, "lead", login=store.roles.login)
    store.roles.add_reviewer("ana", "reviewer")
    pks = [r.item_pk for r in store.queue.queue_page("triage", rubric_ref=REF)][:5]
    keys = [store.scores.add_human_score(pk, "accuracy", "ana", 3.0 + i, reason=f"why {i}",
                                         sample="audit" if i == 4 else "triage") for i, pk in enumerate(pks)]
    changed = store.scores.add_human_score(pks[0], "accuracy", "ana", 9.0, reason="on second thought", sample="triage")
    store.scores.add_human_score(pks[1], "accuracy", "ana", None, kind="undo", sample="triage")
    return lead, [changed, keys[2], keys[3], keys[4]]


def test_the_walk_is_the_persons_current_scores_newest_first(demo_store: Store) -> None:
    lead, current = _scores(demo_store)
    walk = demo_store.lead_reviews.walk("ana", lead)
    assert [r.score_pk for r in walk] == sorted(current, reverse=True)
    first = next(r for r in walk if r.score_pk == current[0])
    assert (first.score, first.reason, first.sample, first.verdict) == (9.0, "on second thought", "triage", None)
    assert first.item_id and first.output and first.output_chars == len(first.output)
    assert first.judge is not None and (first.scale_min, first.scale_max) == (1.0, 10.0)
    # paged by key: the page after the first two holds the other two
    top = demo_store.lead_reviews.walk("ana", lead, limit=2)
    rest = demo_store.lead_reviews.walk("ana", lead, before=top[-1].score_pk, limit=2)
    assert [r.score_pk for r in top + rest] == [r.score_pk for r in walk]
    assert [r.score_pk for r in demo_store.lead_reviews.walk("ana", lead, queue="audit")] == [current[3]]
    assert demo_store.lead_reviews.walk("ana", lead, since=datetime.now(UTC) + timedelta(hours=1)) == []
    assert len(demo_store.lead_reviews.walk("ana", lead, since=datetime.now(UTC) - timedelta(hours=1))) == 4
    assert demo_store.lead_reviews.walk("nobody", lead) == []
    with pytest.raises(UserError, match="1 to 500"):
        demo_store.lead_reviews.walk("ana", lead, limit=0)


def test_accept_and_reject_are_signed_and_a_reject_is_an_adjudication(demo_store: Store) -> None:
    lead, current = _scores(demo_store)
    reviews = demo_store.lead_reviews
    reviews.accept(current[0], lead)
    adjudication, review = reviews.reject(current[1], lead, 2.0, "  the answer invents a date  ")
    shown = {r.score_pk: r for r in reviews.walk("ana", lead)}
    assert (shown[current[0]].verdict, shown[current[0]].note, shown[current[0]].lead_score) == ("accept", None, None)
    assert (shown[current[1]].verdict, shown[current[1]].note, shown[current[1]].lead_score) == (
        "reject", "the answer invents a date", 2.0)
    assert shown[current[2]].verdict is None
    item_pk = shown[current[1]].item_pk
    [adj] = [h for h in demo_store.scores.human_rows(item_pk) if h.kind == "adjudication"]
    assert (adj.pk, adj.reviewer, adj.score, adj.reason, adj.dimension) == (
        adjudication, lead, 2.0, "the answer invents a date", "accuracy")
    with demo_store.db.read() as conn:
        rows = conn.execute(text("SELECT score_pk, reviewed, reviewer, verdict, adjudication_pk, note, actor "
                                 "FROM lead_review ORDER BY pk")).all()
    login = demo_store.roles.login
    assert [tuple(r) for r in rows] == [(current[0], "ana", lead, "accept", None, None, login),
                                        (current[1], "ana", lead, "reject", adjudication, "the answer invents a date", login)]
    assert review > 0
    # a later verdict is a new row; the latest one is shown and counted
    reviews.accept(current[1], lead)
    assert {r.score_pk: r.verdict for r in reviews.walk("ana", lead)}[current[1]] == "accept"
    assert reviews.accept_rates() == {("ana", "triage"): (2, 2)}
    assert reviews.accept_rates(REF) == {("ana", "triage"): (2, 2)}


def test_what_a_review_refuses(demo_store: Store) -> None:
    lead, current = _scores(demo_store)
    reviews = demo_store.lead_reviews
    demo_store.roles.add_reviewer("rae", "reviewer")
    with pytest.raises(MissingRole):
        reviews.accept(current[0], "rae")
    with pytest.raises(UserError, match="a reject needs a reason"):
        reviews.reject(current[0], lead, 2.0, "  ")
    with pytest.raises(UserError, match="off accuracy's scale"):
        reviews.reject(current[0], lead, 11.0, "too generous")
    with pytest.raises(UserError, match="no score with key"):
        reviews.accept(current[-1] + 999, lead)
    own = demo_store.scores.add_human_score(
        demo_store.lead_reviews.walk("ana", lead)[0].item_pk, "clarity", lead, 5.0, sample="triage")
    with pytest.raises(UserError, match="their own scores"):
        reviews.accept(own, lead)
    with demo_store.db.read() as conn:
        assert conn.execute(text("SELECT count(*) FROM lead_review")).scalar() == 0
        assert conn.execute(text("SELECT count(*) FROM human_score WHERE kind = 'adjudication'")).scalar() == 0


@pytest.fixture(params=["sqlite", "postgres"])
def team(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Team, dict[str, Any]]]:
    """The role tests' team (the owner's lead lee, people with logins of their own); sue made a lead."""
    with ExitStack() as stack:
        t, info = make_team(request.param, tmp_path, stack)
        t.owner.roles.add_reviewer("sue", "lead")
        yield t, info


def test_a_review_is_signed_by_the_leads_login_and_checked_by_the_database(team: tuple[Team, dict[str, Any]]) -> None:
    """sue (a lead, her own login) accepts mal's score; mal (no lead role) may not review ana's,
    refused by the store, and by the database for a raw INSERT too — as a plain reviewer, of
    one's own score, and naming another person's score."""
    t, info = team
    pk = info["pk"]
    mal, sue = t.as_("mal"), t.as_("sue")
    score = mal.scores.add_human_score(pk, "accuracy", "mal", 4.0, sample="triage")
    sue.lead_reviews.accept(score, "sue")
    with pytest.raises(MissingRole):
        mal.lead_reviews.accept(score, "mal")
    raw = t.raw()
    try:
        assert raw.one("SELECT reviewer, reviewed, actor FROM lead_review") == ("sue", "mal", t.logins["sue"])
    finally:
        raw.close()
    assert sue.lead_reviews.accept_rates() == {("mal", "triage"): (1, 1)}

    def forged(reviewer: str, reviewed: str, score_pk: int = score) -> str:
        return (f"INSERT INTO lead_review (score_pk, reviewed, reviewer, verdict, created_at) "
                f"VALUES ({score_pk}, '{reviewed}', '{reviewer}', 'accept', CURRENT_TIMESTAMP)")

    assert raw_ok(t, "sue", forged("sue", "mal"))  # (rolled back) the well-formed row passes
    assert not raw_ok(t, "mal", forged("mal", "mal"))  # no lead role (and one's own score)
    assert not raw_ok(t, "ana", forged("ana", "mal"))  # no lead role
    assert not raw_ok(t, "sue", forged("sue", "ana"))  # not ana's score
    assert not raw_ok(t, "sue", forged("sue", "mal").replace("'accept'", "'reject'"))  # a reject names its adjudication
    if t.backend == "postgres":
        assert not raw_ok(t, "mal", forged("sue", "mal"))  # the name is bound to sue's login


def test_a_lead_served_through_a_link_signs_the_review_as_written_through_it(
        demo_store: Store, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """lin, a lead with a link: the session's accept and reject (its adjudication too) are lin's,
    marked ``via = 'link'``; it may not review as another lead."""
    from reviewer.store import open_store

    lead, current = _scores(demo_store)
    demo_store.roles.add_reviewer("lin", "lead")
    token = demo_store.links.add_link("lin", timedelta(days=1))
    monkeypatch.setenv("RUBRICATE_LINK_TOKEN", token)
    session = open_store(db_url)
    try:
        session.lead_reviews.accept(current[0], "lin")
        adjudication, _ = session.lead_reviews.reject(current[1], "lin", 5.0, "half right")
        with pytest.raises(UserError, match="acts for lin through a link"):
            session.lead_reviews.accept(current[2], lead)
    finally:
        session.close()
    with demo_store.db.read() as conn:
        reviews = conn.execute(text("SELECT reviewer, verdict, via FROM lead_review ORDER BY pk")).all()
        adj = conn.execute(text(f"SELECT reviewer, kind, via FROM human_score WHERE pk = {adjudication}")).one()
    assert [tuple(r) for r in reviews] == [("lin", "accept", "link"), ("lin", "reject", "link")]
    assert tuple(adj) == ("lin", "adjudication", "link")


def test_the_walk_is_the_folds_standing_votes_on_the_current_revision(demo_store: Store) -> None:
    """A vote on an earlier revision is not walked, nor one undone; a lead's adjudication after
    their own vote is not their vote (the vote still stands and is walked), as the fold says."""
    from reviewer.store.tables import HumanScore, table_of

    lead = "lea"
    demo_store.roles.add_reviewer(lead, "lead", login=demo_store.roles.login)
    demo_store.roles.add_reviewer("bo", "lead")
    pks = [r.item_pk for r in demo_store.queue.queue_page("triage", rubric_ref=REF)][:3]
    with demo_store.db.write() as conn:  # written as an import of an earlier revision's history would be
        old = conn.execute(table_of(HumanScore).insert().values(
            item_pk=pks[0], revision=0, dimension="accuracy", reviewer="bo", score=4.0, tags=[], kind="score",
            sample="triage")).inserted_primary_key
        assert old is not None
    demo_store.scores.add_human_score(pks[1], "accuracy", "bo", 5.0, sample="triage")
    demo_store.scores.add_human_score(pks[1], "accuracy", "bo", None, kind="undo", sample="triage")
    vote = demo_store.scores.add_human_score(pks[2], "accuracy", "bo", 6.0, sample="triage")
    with demo_store.db.write() as conn:
        demo_store.scores.score_in(conn, pks[2], "accuracy", "bo", 7.0, reason="settled", kind="adjudication")
    walked = [r.score_pk for r in demo_store.lead_reviews.walk("bo", lead)]
    assert walked == [vote] and old[0] not in walked
