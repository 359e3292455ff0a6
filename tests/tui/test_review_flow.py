"""Every reviewer workflow under Pilot, asserting on what the store holds afterwards."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.screens.item import ItemScreen, digit_to_score
from reviewer.tui.screens.reason import ReasonDialog
from reviewer.tui.widgets.dimension_card import DimensionCard
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, focus, leases, mine, score_all, settle, start


def test_digit_keys_map_onto_scales() -> None:
    assert digit_to_score(0, 1, 10, None) == 10
    assert digit_to_score(7, 1, 10, None) == 7
    assert digit_to_score(3, 1, 5, (1, 3, 5)) == 3
    assert digit_to_score(2, 1, 5, (1, 3, 5)) is None
    assert digit_to_score(1, 0, 1, (0, 1)) == 1


async def test_score_with_digits_and_zero_is_ten(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        pk = screen.state.item_pk
        # the first score near the judge's (one far from it asks for a reason and keeps the focus)
        d0 = screen.state.dims[0]
        first = d0.dim.scale.nearest_level(d0.judge_score or 7)
        await pilot.press(str(int(first) % 10), "0")
        await settle(app, pilot)
        assert screen.state.dims[0].my_score == first and screen.state.dims[1].my_score == 10
    assert mine(store, pk)[:2] == [(screen.state.dims[0].dim.id, first, "score"),
                                   (screen.state.dims[1].dim.id, 10.0, "score")]


async def test_enter_agrees_with_the_judge_as_a_score(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        d = screen.state.dims[0]
        level = d.dim.scale.nearest_level(d.judge_score or 0)
        await pilot.press("enter")
        await settle(app, pilot)
    assert mine(store, screen.state.item_pk) == [(d.dim.id, level, "agree")]


async def test_agree_stores_the_nearest_level_shown_first_and_the_same_score_again_writes_nothing(
        tmp_path: Any) -> None:
    """The judge's mean of samples 8.3333 on 1–10 and 3.6667 on REVAL's 1–3–5: the old agree stored
    those fractions (not a level of either scale); now 8 and 3, each named on the card before enter
    is pressed. A tie (6.5) goes to the lower level. Pressing a score the reviewer already gave
    writes no second row."""
    import json

    from rich.console import Console

    from reviewer.store import open_store
    from reviewer.tui.widgets.dimension_card import DimensionCard

    s = open_store(str(tmp_path / "agree.db"))
    path = tmp_path / "items.jsonl"
    scores = {"accuracy": 8.3333, "relevance": 6.5, "completeness": 7, "conciseness": 7, "clarity": 7}
    path.write_text(json.dumps({"id": "a1", "input": "q", "output": "an answer",
                                "judge": {"model": "m", "scores": scores}}) + "\n")
    import_file(s, path, "general-quality@1.0.0")
    app = make_app(s, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        card = screen.query_one("#card-0", DimensionCard)
        console = Console(width=200, record=True)
        console.print(card._render_state())
        assert "enter agrees: 8" in console.export_text()  # said before it is pressed
        await pilot.press("enter", "enter")  # accuracy → 8, relevance 6.5 → 6 (a tie goes down)
        await focus(pilot, screen, 0)
        await pilot.press("8")  # the same score again: nothing written
        await settle(app, pilot)
        pk = screen.state.item_pk
    assert mine(s, pk) == [("accuracy", 8.0, "agree"), ("relevance", 6.0, "agree")]
    s.close()
    from rubrics.schema import Scale

    assert Scale(1, 5, (1, 3, 5)).nearest_level(3.6667) == 3 and Scale(1, 5, (1, 3, 5)).nearest_level(4) == 3


async def test_reason_with_tags_is_recorded(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        await pilot.press("1")
        await focus(pilot, screen, 0)
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, ReasonDialog)
        await pilot.press("f4", *"the date is wrong", "enter")
        await settle(app, pilot)
    rows = [h for h in store.scores.human_rows(screen.state.item_pk) if h.reviewer == REVIEWER]
    assert rows[-1].reason == "the date is wrong" and rows[-1].tags == ["judge_too_lenient"]
    assert rows[-1].score == 1.0


async def test_large_difference_requires_a_reason_before_next(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        first = screen.state.item_pk
        d = screen.state.dims[0]
        far = 1 if (d.judge_score or 10) > 5 else 9
        await pilot.press(str(far))
        await focus(pilot, screen, 0)
        await pilot.press("n")
        await settle(app, pilot)
        assert app.screen is screen and screen.state.item_pk == first  # refused: still on the same item
        await pilot.press("r", *"judge missed the error", "enter", "n")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen) and app.screen.state.item_pk != first


async def test_undo_is_a_new_row(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        await pilot.press("6")
        await focus(pilot, screen, 0)
        await pilot.press("u")
        await settle(app, pilot)
        assert screen.state.dims[0].my_score is None
    dim = screen.state.dims[0].dim.id
    assert mine(store, screen.state.item_pk) == [(dim, 6.0, "score"), (dim, None, "undo")]


async def test_skip_and_next_move_through_the_queue(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        first = (await start(app, pilot)).state
        await pilot.press("s")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)  # the screen is reused from item to item
        second = app.screen.state
        assert second.item_pk != first.item_pk
        before = store.queue.queue_page("triage", search=second.item_id)[0].reviewed
        await score_all(app, pilot, app.screen)
        await pilot.press("n")
        await settle(app, pilot)
        third = app.screen.state
        assert third.item_pk not in (first.item_pk, second.item_pk)
        await pilot.press("p")
        await settle(app, pilot)
        assert app.screen.state.item_pk == second.item_pk
    # the skipped item is not served to this reviewer again; the finished one counts as reviewed
    assert store.queue.queue_page("triage", search=second.item_id)[0].reviewed == before + 1


async def test_blind_mode_hides_the_judge_until_scored_and_keeps_both(store: Store) -> None:
    app = make_app(store, REVIEWER, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        d = screen.state.dims[0]
        assert not d.judge_visible
        await pilot.press("4")
        await focus(pilot, screen, 0)
        await settle(app, pilot)
        assert d.judge_visible and d.my_blind
        await pilot.press("5")
        await settle(app, pilot)
    rows = [h for h in store.scores.human_rows(screen.state.item_pk) if h.reviewer == REVIEWER]
    assert [(h.score, h.blind, h.kind) for h in rows] == [(4.0, True, "score"), (5.0, False, "revision")]


async def test_safety_clear_needs_the_role_and_a_reason(store: Store) -> None:
    from reviewer.tui.screens.safety import SafetyScreen

    store.roles.add_reviewer("rookie", "reviewer")
    flags = store.safety.open_flags()
    assert flags
    app = make_app(store, "rookie")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("S")
        await settle(app, pilot)
        assert isinstance(app.screen, SafetyScreen)
        await pilot.press("c")
        await settle(app, pilot)
        assert isinstance(app.screen, SafetyScreen)  # refused: no dialog opened
    assert len(store.safety.open_flags()) == len(flags)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("S")
        await settle(app, pilot)
        await pilot.press("c", "enter")  # an empty reason is refused
        await settle(app, pilot)
        await pilot.press(*"a test card number, not real", "enter")
        await settle(app, pilot)
    assert len(store.safety.open_flags()) == len(flags) - 1


async def test_flag_sends_the_item_to_the_safety_queue(store: Store) -> None:
    app = make_app(store, REVIEWER)
    before = store.queue.queue_count("safety")
    async with app.run_test(size=SIZE) as pilot:
        await start(app, pilot)
        await pilot.press("f", *"unsafe advice", "enter")  # `f` asks why
        await settle(app, pilot)
    assert store.queue.queue_count("safety") == before + 1


async def test_help_lists_binding_ids_and_keymap_remaps(store: Store, tmp_path: Any) -> None:
    from reviewer.tui.config import TuiSettings

    app = make_app(store, REVIEWER, settings=TuiSettings(keymap={"item.agree": "a"}))
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        await pilot.press("a")
        await settle(app, pilot)
        assert screen.state.dims[0].my_score == screen.state.dims[0].agree_level
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert type(app.screen).__name__ == "HelpScreen"


async def test_the_reused_item_screen_shows_the_new_item_everywhere(store: Store) -> None:
    from textual.widgets import Static

    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        await pilot.press("k", "k")  # focus moved; must not carry over
        first = screen.state
        await pilot.press("s")
        await settle(app, pilot)
        assert app.screen is screen and screen.state is not first  # reused, not rebuilt
        new = screen.state
        shown = str(screen.query_one("#item-output", Static).render())
        assert new.output[:40] in shown and (first.output[:40] not in shown or first.output == new.output)
        assert new.item_id in str(screen.query_one("#item-title", Static).render())
        assert screen.focus_index == 0
        cards = [screen.query_one(f"#card-{i}", DimensionCard) for i in range(len(new.dims))]
        assert all(c.state is d for c, d in zip(cards, new.dims, strict=True))


async def test_the_next_item_is_claimed_ahead_and_given_back_on_leaving(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        first = screen.state.item_pk
        held = leases(store)
        assert first in held and len(held) == 2  # the one on screen and the one claimed ahead
        ahead = next(pk for pk in held if pk != first)
        await score_all(app, pilot, screen)
        await pilot.press("n")
        await settle(app, pilot)
        shown_now = app.screen
        assert isinstance(shown_now, ItemScreen) and shown_now.state.item_pk == ahead
        assert first not in leases(store) and len(leases(store)) == 2
        await pilot.press("escape")
        await settle(app, pilot)
        assert leases(store) == []  # leaving the item gives back its lease and the one ahead
        await pilot.press("g")
        await settle(app, pilot)
        assert len(leases(store)) == 2
        shown_now = app.screen
        assert isinstance(shown_now, ItemScreen)
        current = shown_now.state.item_pk
        await pilot.press("ctrl+q")
        await settle(app, pilot)
    # quitting gives back the item claimed ahead; the one on screen stays leased to the reviewer
    # until it expires, so a restart resumes it
    assert leases(store) == [current]


async def test_leases_are_renewed_while_the_reviewer_works(store: Store) -> None:
    from sqlalchemy import text

    def until() -> dict[int, str]:
        with store.db.read() as conn:
            return dict(conn.execute(text("SELECT pk, lease_until FROM item WHERE lease_reviewer = :r"),
                                     {"r": REVIEWER}).all())

    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        before = until()
        assert len(before) == 2  # the item on screen and the one claimed ahead
        app.renew_leases()  # what the interval timer calls
        await settle(app, pilot)
        after = until()
        assert after.keys() == before.keys() and all(str(after[k]) > str(before[k]) for k in before)
        assert screen.state.claim.until > datetime.fromisoformat(str(before[screen.state.item_pk])).replace(
            tzinfo=screen.state.claim.until.tzinfo)
