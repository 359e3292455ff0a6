"""Span marks (``reviewer/store/marks.py``), on SQLite and PostgreSQL: offsets into the current
revision's text, checked; the marked text and the author's score row kept beside them; a revised
item keeps its earlier marks as history; signed like a score (a raw forgery refused by the
database on PostgreSQL); a link's session marks its rows ``via = 'link'``; logins granted before
the table existed may mark once the owner has migrated."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from reviewer.domain.marks import current_marks, shown_span
from reviewer.errors import UserError
from reviewer.safetext import safe
from reviewer.store import Store, open_store
from tests.hostile.team import Team, make_team, raw_ok
from tests.store.helpers import cap_item

REF = "general-quality@1.0.0"
OUTPUT = "Paris is the capital of France. It has 2 million people."


@pytest.fixture(params=["sqlite", "postgres"])
def team(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Team, dict[str, Any]]]:
    """The role tests' team (a lead owning the store, people with logins of their own)."""
    with ExitStack() as stack:
        yield make_team(request.param, tmp_path, stack)


def _item(store: Store, tmp_path: Path, output: str = OUTPUT, update: bool = False) -> int:
    return cap_item(store, tmp_path, output, update, judge={"accuracy": 8})


def test_a_mark_keeps_its_offsets_text_and_score_row(store: Store, tmp_path: Path) -> None:
    pk = _item(store, tmp_path)
    start = OUTPUT.index("2 million")
    first = store.marks.add_mark(pk, "accuracy", "ana", start, start + len("2 million"))
    store.scores.add_human_score(pk, "accuracy", "ana", 3.0)
    scored = store.marks.add_mark(pk, "accuracy", "ana", 0, 5)
    [a, b] = store.marks.marks([pk])[pk]
    assert (a.pk, a.start, a.end, a.text, a.dimension, a.reviewer, a.revision) == (
        first, start, start + 9, "2 million", "accuracy", "ana", 1)
    assert OUTPUT[a.start:a.end] == a.text and a.score_pk is None  # made before any score
    with store.db.read() as conn:
        latest = conn.execute(text("SELECT max(pk) FROM human_score WHERE reviewer = 'ana'")).scalar_one()
    assert (b.pk, b.text, b.score_pk) == (scored, "Paris", latest)  # the score row it was made beside


@pytest.mark.parametrize("start, end", [(-1, 3), (5, 5), (9, 4), (0, len(OUTPUT) + 1), (len(OUTPUT), len(OUTPUT) + 2)])
def test_offsets_outside_the_text_are_refused_in_one_line(store: Store, tmp_path: Path, start: int, end: int) -> None:
    pk = _item(store, tmp_path)
    with pytest.raises(UserError) as exc:
        store.marks.add_mark(pk, "accuracy", "ana", start, end)
    said = str(exc.value)
    assert "\n" not in said and "item cap" in said and f"≤ {len(OUTPUT)}" in said and f"got {start} to {end}" in said
    assert store.marks.marks([pk])[pk] == []  # nothing written
    store.marks.add_mark(pk, "accuracy", "ana", 0, len(OUTPUT))  # the whole text is a span


def test_a_dimension_or_item_that_is_not_there_is_refused(store: Store, tmp_path: Path) -> None:
    pk = _item(store, tmp_path)
    with pytest.raises(UserError, match="has no dimension 'tone'"):
        store.marks.add_mark(pk, "tone", "ana", 0, 3)
    with pytest.raises(UserError, match="no item with key"):
        store.marks.add_mark(pk + 99, "accuracy", "ana", 0, 3)
    assert store.marks.marks([pk])[pk] == []


def test_a_revision_keeps_the_old_marks_as_history(store: Store, tmp_path: Path) -> None:
    pk = _item(store, tmp_path)
    store.marks.add_mark(pk, "accuracy", "ana", OUTPUT.index("France"), OUTPUT.index("France") + 6)
    revised = "Paris is the capital of Germany."
    _item(store, tmp_path, revised, update=True)  # revision 2
    with pytest.raises(UserError, match=f"≤ {len(revised)}"):  # offsets index the new text now
        store.marks.add_mark(pk, "accuracy", "ana", 40, 50)
    with pytest.raises(UserError, match=r"has changed since it was opened \(revision 1, now 2\)"):
        store.marks.add_mark(pk, "accuracy", "ana", 0, 5, revision=1)  # made on the text read before
    store.marks.add_mark(pk, "accuracy", "ana", revised.index("Germany"), revised.index("Germany") + 7, revision=2)
    marks = store.marks.marks([pk])[pk]
    assert [(m.revision, m.text) for m in marks] == [(1, "France"), (2, "Germany")]
    assert [m.text for m in current_marks(marks, 2)] == ["Germany"]  # the old one is history, not drawn
    assert current_marks(marks, 2, "bo") == []


def test_a_mark_is_append_only(store: Store, tmp_path: Path) -> None:
    pk = _item(store, tmp_path)
    store.marks.add_mark(pk, "accuracy", "ana", 0, 5)
    for sql in ("UPDATE span_mark SET start = 1", "DELETE FROM span_mark"):
        with pytest.raises(Exception, match="append-only"), store.db.write() as conn:
            conn.execute(text(sql))
    assert [(m.start, m.end) for m in store.marks.marks([pk])[pk]] == [(0, 5)]


def test_the_span_as_shown_follows_the_placeholders() -> None:
    source = "a\x1b[2Jb\u202ec target"
    start = source.index("target")
    a, b = shown_span(source, start, start + 6)
    assert safe(source)[a:b] == "target" and a > start  # ESC and the bidi override show longer


def test_a_mark_is_signed_like_a_score(team: tuple[Team, dict[str, Any]]) -> None:
    """mal's login may mark as mal (on PostgreSQL through ``db roles``' grants), never as ana:
    refused by the store, and on PostgreSQL by the database for a raw INSERT too."""
    t, info = team
    pk = info["pk"]
    mal = t.as_("mal")
    mal.marks.add_mark(pk, "accuracy", "mal", 0, 2)
    with pytest.raises(UserError, match="may not sign as ana"):
        mal.marks.add_mark(pk, "accuracy", "ana", 0, 2)
    raw = t.raw()
    try:
        assert raw.one("SELECT reviewer, actor, quote FROM span_mark") == ("mal", t.logins["mal"], "an")
    finally:
        raw.close()
    if t.backend == "postgres":
        forged = ('INSERT INTO span_mark (item_pk, revision, dimension, reviewer, start, "end", quote, created_at) '
                  f"VALUES ({pk}, 1, 'accuracy', 'ana', 0, 2, 'an', CURRENT_TIMESTAMP)")
        assert not raw_ok(t, "mal", forged)
        assert raw_ok(t, "ana", forged)


def test_a_link_session_marks_through_the_link(demo_store: Store, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    demo_store.roles.add_reviewer("boss", "lead", login=demo_store.roles.login)
    demo_store.roles.add_reviewer("ana", "reviewer")
    token = demo_store.links.add_link("ana", timedelta(days=1))
    with demo_store.db.read() as conn:
        pk = int(conn.execute(text("SELECT min(pk) FROM item")).scalar_one())
    dim = demo_store.rubrics.get_rubric(REF).dimensions[0].id
    monkeypatch.setenv("RUBRICATE_LINK_TOKEN", token)
    session = open_store(db_url)
    try:
        session.marks.add_mark(pk, dim, "ana", 0, 3)
        with pytest.raises(UserError, match="acts for ana through a link"):
            session.marks.add_mark(pk, dim, "boss", 0, 3)
        demo_store.links.revoke_links("ana")
        with pytest.raises(UserError, match="revoked or has expired"):
            session.marks.add_mark(pk, dim, "ana", 0, 4)
    finally:
        session.close()
    with demo_store.db.read() as conn:
        rows = conn.execute(text("SELECT reviewer, start, \"end\", via FROM span_mark")).all()
    assert rows == [("ana", 0, 3, "link")]


@pytest.mark.parametrize("team", ["postgres"], indirect=True)
def test_postgres_logins_granted_before_the_mark_table_may_mark(team: tuple[Team, dict[str, Any]]) -> None:
    """A team whose grants were made before ``0013m_span_marks`` may mark once the owner has
    opened the database (an earlier migration that grants the people's tables again leaves out
    the table not made yet). Checked first: a table made without that grant refuses every
    reviewer's mark ("permission denied")."""
    from reviewer.store.tables import SpanMark, table_of

    t, info = team
    with t.owner.db.engine.begin() as conn:
        conn.execute(text("DROP TABLE span_mark"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0013m_span_marks'"))
        table_of(SpanMark).create(conn)  # the table alone, as a migration without the grant makes it
    with pytest.raises(Exception, match="permission denied"):
        t.as_("mal").marks.add_mark(info["pk"], "accuracy", "mal", 0, 2)
    with t.owner.db.engine.begin() as conn:  # and a release before 0012h too: its team grants run without the table
        conn.execute(text("DROP TABLE span_mark"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0012h_judge_headline'"))
    t.stores.append(open_store(t.url()))  # the owner opens it: the migrations run
    t.as_("mal").marks.add_mark(info["pk"], "accuracy", "mal", 0, 2)
    assert [m.reviewer for m in t.owner.marks.marks([info["pk"]])[info["pk"]]] == ["mal"]
