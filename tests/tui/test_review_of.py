"""A lead's review of a reviewer under Pilot (``rubricate review --review-of``), on SQLite and
PostgreSQL: the walk shows the store's page, ``a`` accepts and ``x`` rejects — both land in the
store signed by the lead, the reject as the lead's adjudication with its note and score — escape
in the reject dialog writes nothing, a score already reviewed shows its verdict, and the walk
pages on as the cursor nears the end. And the command line: a plain reviewer is refused in one
line before the app starts, as are a name nobody knows and a bad ``--since``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from textual.coordinate import Coordinate
from textual.widgets import DataTable, Static

from reviewer.locations import os_login
from reviewer.services.importing import import_file
from reviewer.store import Store, open_store
from reviewer.tui.app import make_app
from reviewer.tui.host import ReviewOf
from reviewer.tui.screens import review_of
from reviewer.tui.screens.item import ItemScreen
from reviewer.tui.screens.review_of import RejectDialog, ReviewOfScreen
from tests.cli import run_cli
from tests.store.conftest import DEMO
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import settle

LEAD = REVIEWER  # tess: a lead in the demo
PERSON = "rui"
REF = "general-quality@1.0.0"


def scores_by_rui(store: Store, n: int = 3) -> list[int]:
    """``n`` accuracy scores by rui on the first items of the triage queue, with reasons; the
    lead (tess) made a lead where the demo did not (PostgreSQL's copy holds items only)."""
    if "lead" not in store.roles.reviewer_roles(LEAD):
        store.roles.add_reviewer(LEAD, "lead")
    store.roles.add_reviewer(PERSON, "reviewer")
    pks = [r.item_pk for r in store.queue.queue_page("triage", rubric_ref=REF, limit=n)]
    return [store.scores.add_human_score(pk, "accuracy", PERSON, 1.0 + i % 10, reason=f"reason {i}", sample="triage")
            for i, pk in enumerate(pks)]


def _reviews(store: Store) -> list[tuple[Any, ...]]:
    with store.db.read() as conn:
        return [tuple(r) for r in conn.execute(text(
            "SELECT score_pk, reviewed, reviewer, verdict, adjudication_pk, note, actor FROM lead_review ORDER BY pk"))]


async def test_accept_and_reject_land_in_the_store_signed_by_the_lead(either: Store) -> None:
    store = either
    keys = scores_by_rui(store)
    app = make_app(store, LEAD, review_of=ReviewOf(PERSON))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewOfScreen)
        assert [r.score_pk for r in screen.rows] == sorted(keys, reverse=True)
        assert screen.rows == store.lead_reviews.walk(PERSON, LEAD)
        await pilot.press("a")
        await settle(app, pilot)
        await pilot.press("down", "x")
        await settle(app, pilot)
        assert isinstance(app.screen, RejectDialog)
        await pilot.press("1", "1", "enter")  # off the scale: refused in the dialog, nothing written
        await pilot.press("enter")
        assert isinstance(app.screen, RejectDialog)
        await pilot.press("backspace", "enter", *"invents a date", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ReviewOfScreen) and app.screen is screen
        await pilot.press("down", "d")
        await settle(app, pilot)
        await pilot.press("escape")  # the dialog closes; nothing is written
        await settle(app, pilot)
        table = screen.query_one(DataTable)
        shown = [str(table.get_cell_at(Coordinate(r, 5))) for r in range(table.row_count)]
        assert shown == ["accepted", "rejected → 1", "—"]
    login = store.roles.login
    newest, middle, _ = sorted(keys, reverse=True)
    reviews = _reviews(store)
    assert [r[:4] + r[5:] for r in reviews] == [(newest, PERSON, LEAD, "accept", None, login),
                                                (middle, PERSON, LEAD, "reject", "invents a date", login)]
    item_pk = next(r.item_pk for r in screen.rows if r.score_pk == middle)
    [adj] = [h for h in store.scores.human_rows(item_pk) if h.kind == "adjudication"]
    assert (adj.pk, adj.reviewer, adj.score, adj.reason) == (reviews[1][4], LEAD, 1.0, "invents a date")
    # opened again, the verdicts are the store's
    app = make_app(store, LEAD, review_of=ReviewOf(PERSON))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(DataTable)
        assert [str(table.get_cell_at(Coordinate(r, 5))) for r in range(table.row_count)] == [
            "accepted", "rejected → 1", "—"]
        await pilot.press("enter")  # the item itself, whole
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen) and app.screen.state.item_pk == store.lead_reviews.walk(
            PERSON, LEAD)[0].item_pk
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, ReviewOfScreen)


async def test_the_walk_pages_on_as_the_cursor_nears_the_end(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(review_of, "PAGE", 4)
    monkeypatch.setattr(review_of, "AHEAD", 1)
    keys = scores_by_rui(store, 9)
    app = make_app(store, LEAD, review_of=ReviewOf(PERSON, queue="triage"))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewOfScreen) and len(screen.rows) == 4 and screen.more
        for _ in range(8):
            await pilot.press("down")
            await settle(app, pilot)
        assert [r.score_pk for r in screen.rows] == sorted(keys, reverse=True)
        assert not screen.more and screen.query_one(DataTable).row_count == 9


def test_a_plain_reviewer_is_refused_before_the_app_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SQLite: the OS login is bound to rae, a plain reviewer (the lead, lee, to another login):
    one line, a non-zero exit, nothing written — whatever name the session signs with."""
    db = str(tmp_path / "team.db")
    boss = open_store(db, login="boss-login")
    try:
        import_file(boss, DEMO / "general-quality.jsonl", REF)
        boss.roles.add_reviewer("lee", "lead")
        boss.roles.add_reviewer("rae", "reviewer", login=os_login())
        pk = boss.queue.queue_page("triage", limit=1)[0].item_pk
        boss.scores.add_human_score(pk, "accuracy", PERSON, 4.0, sample="triage")
    finally:
        boss.close()
    for signer in (["--reviewer", "rae"], ["--reviewer", "lee"], []):
        code, out, err = run_cli(["review", "--db", db, "--review-of", PERSON, *signer], capsys)
        assert code != 0 and not out and len(err.strip().splitlines()) == 1, (signer, err)
        assert "only a lead reviews" in err
    store = open_store(db)
    try:
        assert _reviews(store) == []
    finally:
        store.close()


def test_a_login_without_the_lead_role_is_refused_on_postgres(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """PostgreSQL: the login's roles decide — mal's login (a plain reviewer) is refused by the
    command; the check the command makes passes for sue's login (made a lead) signing as sue,
    and refuses it signing as lee (bound to another login)."""
    from contextlib import ExitStack

    from reviewer.cli.review_cmds import check_review_of
    from reviewer.errors import UserError
    from tests.hostile.team import make_team

    with ExitStack() as stack:
        t, _ = make_team("postgres", tmp_path, stack)
        t.owner.roles.add_reviewer("sue", "lead")
        code, out, err = run_cli(["review", "--db", t.url(t.logins["mal"]), "--review-of", "ana", "--reviewer", "mal"],
                                 capsys)
        assert code != 0 and not out and len(err.strip().splitlines()) == 1 and "only a lead reviews" in err
        check_review_of(t.url(t.logins["sue"]), "sue", "ana", True)  # a lead's login: no refusal
        with pytest.raises(UserError, match="bound to the login"):
            check_review_of(t.url(t.logins["sue"]), "lee", "ana", True)  # signing as another lead


def test_bad_names_and_times_are_one_line(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    scores_by_rui(store)
    db = str(store.db.engine.url.database)
    for argv, says in ((["--review-of", "nobody-here"], "nobody-here"), (["--review-of", LEAD], "their own"),
                       (["--review-of", PERSON, "--since", "last week"], "--since"),
                       (["--review-of", PERSON, "--since", "999999d"], "before the year 1"),
                       (["--review-of", PERSON, "--reviewer", "ben"], "lead role"),
                       (["--since", "7d"], "--review-of")):
        signer = [] if "--reviewer" in argv else ["--reviewer", LEAD]
        code, out, err = run_cli(["review", "--db", db, *argv, *signer], capsys)
        assert code != 0 and not out and says in err, (argv, err)
        assert len([line for line in err.splitlines() if line.strip()]) <= 4  # (typer's usage box for a bad option)
    assert _reviews(store) == []


def pictured(store: Store) -> None:
    """Three of rui's scores given at fixed times (written as an import of that history would be:
    the picture shows when each was given), the newest accepted by tess, the next rejected."""
    from datetime import UTC, datetime

    from reviewer.store.tables import HumanScore, table_of

    store.roles.add_reviewer(PERSON, "reviewer")
    pks = [r.item_pk for r in store.queue.queue_page("triage", rubric_ref=REF, limit=3)]
    with store.db.write() as conn:
        for i, pk in enumerate(pks):
            conn.execute(table_of(HumanScore).insert().values(
                item_pk=pk, revision=1, dimension="accuracy", reviewer=PERSON, score=2.0 + 3 * i,
                reason=["misses the [bold]key[/] fact", "fine", "mostly right; one date wrong"][i], tags=[],
                kind="score", sample="triage", created_at=datetime(2026, 3, 2, 9, 10 * i, tzinfo=UTC)))
    newest, middle, _ = store.lead_reviews.walk(PERSON, LEAD)
    store.lead_reviews.accept(newest.score_pk, LEAD)
    store.lead_reviews.reject(middle.score_pk, LEAD, 8.0, "the answer is right: the [red]judge[/] agrees")


@pytest.mark.parametrize("variant", ["160x50", "80x24", "no_color"])
@pytest.mark.parametrize("keys", [(), ("down", "down", "x", "3")], ids=["walk", "reject_dialog"])
def test_pictures(keys: tuple[str, ...], variant: str, snap_compare: Any, store: Store,
                  monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.tui.helpers import steady, terminal_variant

    pictured(store)
    size = terminal_variant(variant, monkeypatch)
    app = make_app(store, LEAD, review_of=ReviewOf(PERSON, queue="triage"))

    async def ready(pilot: Any) -> None:
        await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)
        await steady(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=ready)


async def test_a_refused_verdict_after_a_reload_rolls_back_its_own_row_only(store: Store) -> None:
    """A verdict refused after a reload moved its row (a newer score came first) rolls back that
    score's row, found by its key, and never the row that now stands where it stood."""
    import threading

    keys = scores_by_rui(store, 3)
    gate = threading.Event()

    def refused(*args: Any, **kwargs: Any) -> int:
        assert gate.wait(10)
        raise RuntimeError("the database went away")

    store.lead_reviews.accept = refused  # type: ignore[method-assign]  # held, then refused
    app = make_app(store, LEAD, review_of=ReviewOf(PERSON))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewOfScreen)
        await pilot.press("a")  # the newest score, at row 0: accepted on screen, its write held
        await pilot.pause()
        assert screen.rows[0].verdict == "accept" and app.gateway.pending == 1
        item_pk = store.queue.queue_page("triage", rubric_ref=REF, limit=4)[3].item_pk
        newer = store.scores.add_human_score(item_pk, "accuracy", PERSON, 2.0, reason="newer", sample="triage")
        await pilot.press("r")  # the newer score now stands at row 0, the accepted one at row 1
        await pilot.pause()
        await app.workers.wait_for_complete([w for w in app.workers if w.group == "review-of"])
        await pilot.pause()
        assert [r.score_pk for r in screen.rows] == [newer, *sorted(keys, reverse=True)]
        gate.set()
        await settle(app, pilot)
        assert app.write_errors
        assert screen.rows == store.lead_reviews.walk(PERSON, LEAD)
        table = screen.query_one(DataTable)
        assert [str(table.get_cell_at(Coordinate(r, 1))) for r in range(2)] == [
            screen.rows[0].item_id, screen.rows[1].item_id]
        assert screen.rows[0].score_pk == newer


async def test_a_page_is_added_below_the_rows_on_screen(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next page is appended: the rows already on screen stay the table's own (never cleared
    and added again, which made reading the walk quadratic), a wider cell widens its column, and
    the judge panel's mean reads as every screen writes a score (two places: 4.33, never 4.3333)."""
    from reviewer.domain.wording import score_text

    monkeypatch.setattr(review_of, "PAGE", 4)
    monkeypatch.setattr(review_of, "AHEAD", 1)
    scores_by_rui(store, 9)
    app = make_app(store, LEAD, review_of=ReviewOf(PERSON, queue="triage"))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewOfScreen)
        table = screen.query_one(DataTable)
        first = list(table.rows.values())
        assert len(first) == 4
        for _ in range(3):
            await pilot.press("down")
            await settle(app, pilot)
        assert table.row_count == 8 and list(table.rows.values())[:4] == first
        assert all(a is b for a, b in zip(table.rows.values(), first, strict=False))  # the same rows, kept
        assert table.cursor_row == 3
        judges = [r.judge for r in screen.rows if r.judge is not None]
        assert any(not float(j).is_integer() for j in judges)  # (the demo's panel means: thirds)
        column = [str(table.get_cell_at(Coordinate(r, 4))) for r in range(table.row_count)]
        assert column == [score_text(r.judge) for r in screen.rows]
        assert all(len(c.split(".")[-1]) <= 2 for c in column if "." in c)
        widest = max(len(c) for c in column)
        assert table.ordered_columns[4].width >= widest
        third = next(i for i, r in enumerate(screen.rows) if r.judge is not None and not float(r.judge).is_integer())
        table.move_cursor(row=third, animate=False)
        await settle(app, pilot)
        detail = str(screen.query_one("#review-of-score", Static).render())
        assert f"judge: {score_text(screen.rows[third].judge)} " in detail and "." in score_text(screen.rows[third].judge)
