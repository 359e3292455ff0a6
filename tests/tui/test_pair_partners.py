"""The pair view in a group of more than two: `o` cycles the partner beside the item the pair was
opened on ("partner 2 of 3"), each pair keeping its own choice; `e` gives a reason (optional, quick
tags) with the choice on screen, stored with it and shown as plain text.

On the code before this change a group of three showed its first partner only (no `o`, no
"partner" in the title; the other pairs could not be chosen on), a choice named no pair, and
there was no way to say why: `e` did nothing and pair_choice had no tags."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import text
from textual.widgets import Static

from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.tui.app import ReviewApp, make_app
from reviewer.tui.screens.pair import PairScreen
from reviewer.tui.screens.reason import ReasonDialog
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, settle

REVAL = "reval-issue-framing@1.0.0"


def trio(store: Store, tmp_path: Path, name: str = "trio") -> list[int]:
    """A group of three under the pairwise rubric, in its own dataset; keys by variant."""
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps({
        "id": f"{name}-{v}", "group": name, "variant": v, "input": "Summarise the housing proposal.",
        "output": f"Answer {v}: the proposal expands public housing."}) + "\n" for v in "abc"))
    import_file(store, path, REVAL, dataset=name)
    return [pk for pk, _, _ in store.scores.group_overalls(REVAL)[name]]


def title(app: ReviewApp) -> str:
    return str(app.screen.query_one("#pair-title", Static).render())


def choice_line(app: ReviewApp) -> str:
    return str(app.screen.query_one("#pair-choice", Static).render())


async def open_pair(app: ReviewApp, pilot: Any, pk: int) -> PairScreen:
    await settle(app, pilot)
    app.open_item(pk)
    await settle(app, pilot)
    assert isinstance(app.screen, PairScreen)
    return app.screen


def current(store: Store) -> dict[tuple[int, int], tuple[int | None, str | None, tuple[str, ...]]]:
    return {(c.item_a_pk, c.item_b_pk): (c.winner_item_pk, c.reason, c.tags)
            for c in store.scores.pair_choice_rows(REVAL, "trio") if c.reviewer == REVIEWER}


async def test_o_cycles_the_partners_each_pair_keeping_its_choice(store: Store, tmp_path: Path) -> None:
    a, b, c = trio(store, tmp_path)
    app = make_app(store, REVIEWER, rubric_ref=REVAL)
    async with app.run_test(size=SIZE) as pilot:
        first = await open_pair(app, pilot, a)
        assert [s.item_pk for s in first.pair.sides] == [a, b]
        assert "partner 1 of 2" in title(app)
        await pilot.press("b")  # B (trio-b) better than A (trio-a)
        await settle(app, pilot)
        await pilot.press("o")
        await settle(app, pilot)
        second = app.screen
        assert isinstance(second, PairScreen) and second is not first
        assert [s.item_pk for s in second.pair.sides] == [a, c] and "partner 2 of 2" in title(app)
        assert second.pair.choice is None and "none yet" in choice_line(app)
        await pilot.press("t")
        await settle(app, pilot)
        assert current(store) == {(a, b): (b, None, ()), (a, c): (None, None, ())}
        await pilot.press("o")  # round again: the first pair, its choice read back from the store
        await settle(app, pilot)
        third = app.screen
        assert isinstance(third, PairScreen) and "partner 1 of 2" in title(app)
        assert third.pair.choice == 1 and "B better (trio-b)" in choice_line(app)
        await pilot.press("O")  # and back the other way
        await settle(app, pilot)
        assert isinstance(app.screen, PairScreen) and "partner 2 of 2" in title(app)
        assert app.screen.pair.choice == -1


async def test_a_reason_goes_with_a_choice_as_plain_text(store: Store, tmp_path: Path) -> None:
    a, b, _ = trio(store, tmp_path)
    app = make_app(store, REVIEWER, rubric_ref=REVAL)
    async with app.run_test(size=SIZE) as pilot:
        await open_pair(app, pilot, a)
        await pilot.press("e")  # nothing chosen yet: said, no dialog
        await settle(app, pilot)
        assert isinstance(app.screen, PairScreen)
        assert any("choose first" in str(n.message) for n in app._notifications)
        await pilot.press("a", "e")
        await settle(app, pilot)
        assert isinstance(app.screen, ReasonDialog)
        await pilot.press(*"[red]fewer[/red] loaded words", "tab", "2", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, PairScreen)
        assert current(store) == {(a, b): (a, "[red]fewer[/red] loaded words", ("more_balanced",))}
        # enter on the tag row closed the dialog and went no further (before, it reached the pair
        # view below and agreed there: "nothing to agree with: score it yourself")
        assert not any("agree" in str(n.message) for n in app._notifications)
        line = choice_line(app)
        assert "because [red]fewer[/red] loaded words [more_balanced]" in line  # as typed, not markup
        # escape in the dialog records nothing; a new choice starts without a reason
        await pilot.press("e", "escape")
        await settle(app, pilot)
        with store.db.read() as conn:
            assert conn.execute(text("SELECT count(*) FROM pair_choice WHERE grp = 'trio'")).scalar() == 2  # the choice, then its reason
        await pilot.press("t")
        await settle(app, pilot)
        assert current(store)[(a, b)] == (None, None, ()) and "because" not in choice_line(app)


async def test_cycling_a_claimed_pair_moves_the_lease_to_the_new_partner(store: Store, tmp_path: Path) -> None:
    pks = trio(store, tmp_path)
    app = make_app(store, REVIEWER, rubric_ref=REVAL, dataset="trio")

    def held() -> set[int]:
        with store.db.read() as conn:
            return set(conn.execute(text("SELECT pk FROM item WHERE lease_reviewer = :r AND dataset = 'trio'"),
                                    {"r": REVIEWER}).scalars())

    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("g")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, PairScreen)
        anchor, partner = screen.pair.anchor.item_pk, screen.pair.partner.item_pk
        # the claim made ahead leaves the rest of the group alone (it is cycled through here)
        assert held() == {anchor, partner}
        await pilot.press("o")
        await settle(app, pilot)
        now = app.screen
        assert isinstance(now, PairScreen) and now.pair.anchor.item_pk == anchor
        new = now.pair.partner.item_pk
        assert new not in (anchor, partner)
        assert held() == {anchor, new}  # the old partner's lease given back
        assert now.pair.anchor.claim is not None and now.pair.partner.claim is not None
        assert set(pks) >= {anchor, partner, new}


async def test_a_group_of_two_has_no_partner_key(store: Store) -> None:
    app = make_app(store, REVIEWER, rubric_ref=REVAL)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("g")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, PairScreen) and len(screen.pair.partners) == 1
        assert screen.check_action("partner", (1,)) is False and "partner" not in title(app)
        await pilot.press("o")
        await settle(app, pilot)
        assert app.screen is screen


async def test_a_hostile_reason_is_stored_as_given_and_shown_inert(store: Store, tmp_path: Path) -> None:
    from textual.widgets import Input

    from tests.hostile.harness import HOSTILE, raw_controls

    a, b, _ = trio(store, tmp_path)
    raw = HOSTILE["osc8_hyperlink"] + " [link=http://evil.example]x[/link]"
    assert raw_controls(raw)  # the case carries escapes
    app = make_app(store, REVIEWER, rubric_ref=REVAL)
    async with app.run_test(size=SIZE) as pilot:
        await open_pair(app, pilot, a)
        await pilot.press("b", "e")
        await settle(app, pilot)
        assert isinstance(app.screen, ReasonDialog)
        app.screen.query_one(Input).value = raw
        await pilot.press("enter")
        await settle(app, pilot)
        shown = app.screen.query_one("#pair-choice", Static).render()
        assert raw_controls(str(shown)) == [] and "[link=http://evil.example]x[/link]" in str(shown)
        assert not any("link" in str(s.style) for s in getattr(shown, "spans", []))
    assert current(store)[(a, b)] == (b, raw.strip(), ())  # stored exactly as given
