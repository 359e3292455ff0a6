"""Focus that follows the work. On the code before: after a score the focus moved to a card below
the fold (the next enter agreed with a score nobody saw); items opened on dimension 1; `u` after
a score said "nothing to undo here"; an item claimed ahead showed the scores it had when claimed."""

from __future__ import annotations

from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.screens.item import ItemScreen
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import leases, mine, score_all, settle, start

SMALL = (80, 24)


def in_view(screen: ItemScreen) -> bool:
    """Whether the focused card's head (name, judge score) lies inside the cards' visible region
    (at 80×24 a whole card is taller than the room for it)."""
    card = screen.query_one(f"#card-{screen.focus_index}")
    column = screen.query_one("#item-right")
    top, bottom = card.region.y, min(card.region.bottom, card.region.y + 3)
    return bool(column.region.y <= top and bottom <= column.region.bottom)


async def test_the_focused_card_is_always_in_view(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SMALL) as pilot:
        screen = await start(app, pilot)
        for _ in range(4):
            can_agree = screen.focused_dim.judge_score is not None
            await pilot.press("enter" if can_agree else "j")  # agree: the focus moves on to the next card
            await settle(app, pilot)
            assert in_view(screen), f"focus on card {screen.focus_index} is off screen"
        assert screen.focus_index == 4


async def test_an_item_opens_at_its_first_unscored_dimension(store: Store) -> None:
    pk = store.queue.queue_page("triage", search="gq-002")[0].item_pk
    dims = [d.id for d in store.rubrics.get_rubric("general-quality@1.0.0").dimensions]
    for dim in dims[:2]:
        store.scores.add_human_score(pk, dim, REVIEWER, 6.0, reason="scored earlier")
    app = make_app(store, REVIEWER)
    async with app.run_test(size=(130, 42)) as pilot:
        await settle(app, pilot)
        app.open_item(pk)
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen) and app.screen.state.item_pk == pk
        assert app.screen.focus_index == 2  # was 0


def near(judge: float | None) -> str:
    """The digit key for the judge's score rounded (within the reason margin: no reason asked)."""
    assert judge is not None
    return str(round(judge) % 10)


async def test_undo_takes_back_the_last_action_wherever_it_was(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=(130, 42)) as pilot:
        screen = await start(app, pilot)
        d0, d1 = screen.state.dims[:2]
        await pilot.press(near(d0.judge_score), near(d1.judge_score))  # the focus moves on to the third
        await settle(app, pilot)
        assert screen.focus_index == 2
        await pilot.press("u")  # the old screen: "nothing to undo here" (the third is unscored)
        await settle(app, pilot)
        assert screen.focus_index == 1 and d1.my_score is None and d0.my_score is not None
        await pilot.press("u")
        await settle(app, pilot)
        assert screen.focus_index == 0 and d0.my_score is None
        first = round(d0.judge_score or 0)
        await pilot.press(near(first), "k", near(first - 1))  # a changed score: undo brings back the one before
        await settle(app, pilot)
        await pilot.press("u")
        await settle(app, pilot)
        assert d0.my_score == first
    a, b = d0.dim.id, d1.dim.id
    assert mine(store, screen.state.item_pk) == [
        (a, float(round(d0.judge_score or 0)), "score"), (b, float(round(d1.judge_score or 0)), "score"),
        (b, None, "undo"), (a, None, "undo"), (a, float(first), "score"), (a, float(first - 1), "score"),
        (a, float(first), "score")]


async def test_an_item_claimed_ahead_is_re_read_before_it_is_shown(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=(130, 42)) as pilot:
        screen = await start(app, pilot)
        ahead = next(pk for pk in leases(store) if pk != screen.state.item_pk)
        first_dim = store.rubrics.get_rubric(store.items.item_view(ahead, REVIEWER).rubric_ref).dimensions[0].id
        # meanwhile (another window of this reviewer's) the item ahead got a score
        store.scores.add_human_score(ahead, first_dim, REVIEWER, 2.0, reason="scored elsewhere")
        await pilot.press("s")
        await settle(app, pilot)
        shown = app.screen
        assert isinstance(shown, ItemScreen) and shown.state.item_pk == ahead
        assert shown.state.dims[0].my_score == 2.0  # was None: the state read when it was claimed


async def test_the_header_shows_progress_and_pace(store: Store) -> None:
    from textual.widgets import Static

    total = store.queue.queue_progress("triage", REVIEWER)[0]  # (gold items are not counted as work)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=(130, 42)) as pilot:
        screen = await start(app, pilot)
        title = str(screen.query_one("#item-title", Static).render())
        assert f"/{total} done" in title and "left for you" in title and "session 0 items" in title
        assert app.progress is not None
        before = app.progress
        await score_all(app, pilot, screen)  # every dimension, then the next item: one finished
        await pilot.press("n")
        await settle(app, pilot)
        title = str(app.screen.query_one("#item-title", Static).render())
        assert "session 1 item" in title and "s/item" in title  # the median time per item
        assert app.progress[2] == before[2] - 1  # one fewer left for this reviewer
    assert store.queue.queue_progress("triage", REVIEWER) == app.progress
