"""A blind reveal is stored and read on every open; a reason or an undo keeps the kind and the
blind mark of the score it belongs to; ``r`` after "a reason is required for X" writes X's reason.
Under Pilot on a real SQLite file, asserting on the rows, the export and ``queue show``. (The
store's side, on SQLite and PostgreSQL: tests/store/test_reveals.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from reviewer.services.importing import import_file
from reviewer.store import Store, open_store
from reviewer.tui.app import ReviewApp, make_app
from reviewer.tui.screens.item import ItemScreen
from reviewer.tui.screens.reason import ReasonDialog
from tests.cli import run_cli
from tests.store.conftest import DEMO, pg_schema_url
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, focus, settle, start

REF = "general-quality@1.0.0"


def rows(store: Store, pk: int) -> list[tuple[str, float | None, bool, str, str | None]]:
    """This reviewer's rows on the item: dimension, score, blind, kind, reason."""
    return [(h.dimension, h.score, h.blind, h.kind, h.reason) for h in store.scores.human_rows(pk) if h.reviewer == REVIEWER]


def exported(store: Store, pk: int, dim: str) -> dict[str, Any]:
    """This reviewer's standing score on ``dim`` as the export writes it."""
    item_id = store.items.item_view(pk).item_id
    [row] = [r for r in store.items.export_rows(REF) if r["id"] == item_id]
    [mine] = [h for h in row["dimensions"][dim]["human_scores"] if h["reviewer"] == REVIEWER]
    return dict(mine)


def shown(store: Store, demo_db: Path, pk: int, capsys: pytest.CaptureFixture[str]) -> str:
    """``rubricate queue show`` of the item: this reviewer's line(s)."""
    view = store.items.item_view(pk)
    code, out, err = run_cli(["queue", "show", view.item_id, "--dataset", view.dataset, "--db", str(demo_db)], capsys)
    assert code == 0, err
    return "\n".join(line for line in out.splitlines() if line.strip().startswith(f"{REVIEWER}:"))


async def reopen(app: ReviewApp, pilot: Any, pk: int) -> ItemScreen:
    await settle(app, pilot)
    app.open_item(pk)
    await settle(app, pilot)
    assert isinstance(app.screen, ItemScreen) and app.screen.state.item_pk == pk
    return app.screen


async def blind_four(app: ReviewApp, pilot: Any) -> tuple[ItemScreen, int, str]:
    """Open the next item and score its first dimension 4, blind; the focus back on it."""
    screen = await start(app, pilot)
    await pilot.press("4")
    await focus(pilot, screen, 0)
    return screen, screen.state.item_pk, screen.state.dims[0].dim.id


async def reveal_then_resume(store: Store) -> tuple[int, str]:
    """``v`` on the next item of a blind session, quit, resume blind and score its first
    dimension 4: the item's key and that dimension."""
    app = make_app(store, REVIEWER, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        pk, dim = screen.state.item_pk, screen.state.dims[0].dim.id
        assert screen.state.judge_hidden
        await pilot.press("v")
        await settle(app, pilot)
        assert not screen.state.judge_hidden
    assert rows(store, pk) == []  # a reveal is not a score
    assert store.scores.revealed(pk, REVIEWER)
    app = make_app(store, REVIEWER, blind=True)  # quit and resume
    async with app.run_test(size=SIZE) as pilot:
        screen = await reopen(app, pilot, pk)
        assert not screen.state.judge_hidden
        assert "judge hidden" not in str(screen.query_one("#item-summary", Static).render())
        await pilot.press("4")
        await settle(app, pilot)
    return pk, dim


async def test_a_reveal_outlives_the_session(store: Store, demo_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``v``, quit, resume blind: the judge is still shown and the next score is stored, exported
    and shown as not blind. Before, the reveal lived on the screen only: hidden again on the
    next open, and the score stored blind though the person had seen the judge."""
    pk, dim = await reveal_then_resume(store)
    assert rows(store, pk) == [(dim, 4.0, False, "score", None)]
    mine = exported(store, pk, dim)
    assert (mine["blind"], mine["blind_score"], mine["kind"]) == (False, None, "score")
    assert shown(store, demo_db, pk, capsys).split(" UTC")[0].strip().startswith(f"{REVIEWER}: 4 (score)")


async def test_a_reveal_outlives_the_session_on_postgres(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same on PostgreSQL: the demo's general-quality items in a fresh schema."""
    monkeypatch.setenv("RUBRICATE_CONFIG", str(tmp_path / "config.yaml"))  # no user config leaks in
    urls = pg_schema_url()
    s = open_store(next(urls))
    try:
        import_file(s, DEMO / "general-quality.jsonl", REF, dataset="demo")
        pk, dim = await reveal_then_resume(s)
        assert rows(s, pk) == [(dim, 4.0, False, "score", None)]
        assert exported(s, pk, dim)["blind"] is False
    finally:
        s.close()
        next(urls, None)  # the generator drops the schema


async def test_an_undone_blind_score_leaves_its_judge_shown(store: Store) -> None:
    """A blind score shows that dimension's judge; undone, and the item opened again, the judge
    stays shown there (the next score is not blind) and stays hidden on the others."""
    app = make_app(store, REVIEWER, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        screen, pk, dim = await blind_four(app, pilot)
        await pilot.press("u")
        await settle(app, pilot)
    app = make_app(store, REVIEWER, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await reopen(app, pilot, pk)
        assert screen.state.dims[0].judge_visible and not screen.state.dims[1].judge_visible
        await pilot.press("5")
        await settle(app, pilot)
    assert rows(store, pk) == [(dim, 4.0, True, "score", None), (dim, None, False, "undo", None),
                               (dim, 5.0, False, "score", None)]


async def test_a_reason_and_its_undo_keep_an_agree(store: Store, demo_db: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Before, the reason's row and the undo's were stored as plain scores: the agree was lost."""
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        pk, d = screen.state.item_pk, screen.state.dims[0]
        await pilot.press("enter")
        await focus(pilot, screen, 0)
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, ReasonDialog)
        await pilot.press(*"matches the source", "enter")
        await settle(app, pilot)
        await pilot.press("u")  # the reason undone: the agree as it was
        await settle(app, pilot)
    level = d.agree_level
    assert rows(store, pk) == [(d.dim.id, level, False, "agree", None),
                               (d.dim.id, level, False, "agree", "matches the source"),
                               (d.dim.id, level, False, "agree", None)]
    assert exported(store, pk, d.dim.id)["kind"] == "agree"
    assert f"{REVIEWER}: {level:g} (agree)" in shown(store, demo_db, pk, capsys)


async def test_a_reason_and_an_undo_keep_a_blind_score_blind(store: Store, demo_db: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Blind 4, a reason, a revision to 5, undone: the 4 stands again as it was given, blind.
    Before, the reason's row and the undo's were stored as not blind: the export said the 4 was
    given after the reveal."""
    app = make_app(store, REVIEWER, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        screen, pk, dim = await blind_four(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        await pilot.press(*"the date is wrong", "enter")
        await settle(app, pilot)
        await pilot.press("5", "u")
        await settle(app, pilot)
    assert rows(store, pk) == [(dim, 4.0, True, "score", None), (dim, 4.0, True, "score", "the date is wrong"),
                               (dim, 5.0, False, "revision", None), (dim, 4.0, True, "score", "the date is wrong")]
    mine = exported(store, pk, dim)
    assert (mine["score"], mine["blind"], mine["blind_score"], mine["kind"]) == (4.0, True, 4.0, "score")
    assert f"{REVIEWER}: 4 (score, blind)" in shown(store, demo_db, pk, capsys)


async def test_a_reason_keeps_an_imported_audit_scores_kind_and_sample(store: Store) -> None:
    """A score imported as given in the audit sample, explained later from an item opened
    without a claim: the reason's row is still an imported audit score. Before, it became a
    plain score with no sample (and, from another queue, that queue's)."""
    pk = store.queue.queue_page("triage")[0].item_pk
    first = next(iter(store.items.item_view(pk).fold.dims))
    store.scores.add_human_score(pk, first, REVIEWER, 6.0, kind="import", sample="audit")
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await reopen(app, pilot, pk)
        await focus(pilot, screen, next(i for i, d in enumerate(screen.state.dims) if d.dim.id == first))
        await pilot.press("r")
        await settle(app, pilot)
        await pilot.press(*"source checked", "enter")
        await settle(app, pilot)
    last = [h for h in store.scores.human_rows(pk) if h.reviewer == REVIEWER][-1]
    assert (last.dimension, last.score, last.kind, last.sample, last.reason) == (
        first, 6.0, "import", "audit", "source checked")


async def test_r_writes_the_reason_on_the_dimension_the_message_names(store: Store) -> None:
    """A score far from the judge on the first dimension, an agree on the second (focused), then
    ``n``: "a reason is required for <first> (press r)". ``r`` writes that reason on the first
    dimension; before, it went to the focused card (the second), and the first stayed unexplained."""
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        pk, (d0, d1) = screen.state.item_pk, screen.state.dims[:2]
        assert d0.judge_score is not None and d1.agree_level is not None
        far = 1 if d0.judge_score > 5 else 9
        await pilot.press(str(far))
        await focus(pilot, screen, 1)
        await pilot.press("enter")
        await focus(pilot, screen, 1)  # the agreed card has the focus
        await pilot.press("n")
        await settle(app, pilot)
        assert screen.state.item_pk == pk  # refused: still on the item
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, ReasonDialog) and app.screen.dimension == d0.dim.id
        await pilot.press(*"judge missed the error", "enter")
        await settle(app, pilot)
    assert rows(store, pk)[-1] == (d0.dim.id, float(far), False, "score", "judge missed the error")
    assert [r for r in rows(store, pk) if r[0] == d1.dim.id] == [(d1.dim.id, d1.agree_level, False, "agree", None)]


async def test_a_reveal_in_the_pair_view_is_stored_for_both_sides(store: Store) -> None:
    """``v`` in the pair view reveals the judge on both items: both reveals are stored, and each
    item loaded again in a blind session shows its judge."""
    from reviewer.tui import adapter
    from reviewer.tui.screens.pair import PairScreen

    app = make_app(store, REVIEWER, rubric_ref="reval-issue-framing@1.0.0", blind=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("g")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, PairScreen) and all(s.judge_hidden for s in screen.pair.sides)
        await pilot.press("v")
        await settle(app, pilot)
        sides = [s.item_pk for s in screen.pair.sides]
    assert all(store.scores.revealed(pk, REVIEWER) for pk in sides)
    assert not any(adapter.load_item(store, pk, REVIEWER, blind=True).judge_hidden for pk in sides)
