"""The pair view under Pilot: a pairwise rubric's groups open side by side, both sides are scored,
and the reviewer's choice lands in the store (append-only: a changed mind is a new row)."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import text

from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.screens.item import ItemScreen
from reviewer.tui.screens.pair import PairScreen
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, mine, press_to, settle

REVAL = "reval-issue-framing@1.0.0"
GQ = "general-quality@1.0.0"


def choice_rows(store: Store, group: str) -> list[tuple[str, int | None]]:
    with store.db.read() as conn:
        return [tuple(r) for r in conn.execute(
            text("SELECT reviewer, winner_item_pk FROM pair_choice WHERE grp = :g AND reviewer = :r ORDER BY pk"),
            {"g": group, "r": REVIEWER})]


async def test_a_pairwise_group_opens_side_by_side_and_the_choice_is_stored(store: Store) -> None:
    app = make_app(store, REVIEWER, rubric_ref=REVAL)
    async with app.run_test(size=SIZE) as pilot:
        screen: PairScreen = await press_to(app, pilot, "g", PairScreen)
        pair = screen.pair
        a, b = pair.sides
        assert a.group == b.group == pair.group and a.item_pk != b.item_pk
        assert (a.variant or "") <= (b.variant or "")
        claimed = next((s for s in pair.sides if s.claim is not None), None)
        assert claimed is not None
        # score side A's first dimension, then side B's
        await pilot.press("h", "3", "l")
        await settle(app, pilot)
        while screen.focus_index != 0:
            await pilot.press("k")
        await pilot.press("5")
        await settle(app, pilot)
        # next is refused until the reviewer has chosen
        await pilot.press("n")
        await settle(app, pilot)
        assert app.screen is screen
        await pilot.press("b")
        await settle(app, pilot)
        assert store.scores.pair_choices(REVAL, pair.group)[pair.group][REVIEWER] == b.item_pk
        await pilot.press("t")  # a changed mind: a tie, as a new row
        await settle(app, pilot)
        await pilot.press("n")
        await settle(app, pilot)
        nxt = app.screen
        assert isinstance(nxt, PairScreen) and nxt is not screen
        assert nxt.pair.group != pair.group  # both items of the pair were completed together
    assert (a.dims[0].dim.id, 3.0, "score") in mine(store, a.item_pk)
    assert (b.dims[0].dim.id, 5.0, "score") in mine(store, b.item_pk)
    assert choice_rows(store, pair.group) == [(REVIEWER, b.item_pk), (REVIEWER, None)]
    assert store.scores.pair_choices(REVAL, pair.group)[pair.group][REVIEWER] is None  # the latest row wins
    with store.db.read() as conn:
        state = conn.execute(text("SELECT state FROM assignment WHERE item_pk = :p AND reviewer = :r ORDER BY pk"),
                             {"p": claimed.item_pk, "r": REVIEWER}).scalars().first()
    # one dimension of each side scored: the review stays in progress for this reviewer (it comes
    # back to them to finish), not done
    assert state == "active"


async def test_w_opens_a_pair_over_an_item_and_escape_returns_to_it(store: Store, tmp_path: Path) -> None:
    # general-quality is not pairwise: its grouped items open alone, w shows the partner beside
    rows = [{"id": f"two-answers-{v}", "input": "What is the boiling point of water at sea level?",
             "output": out, "group": "boiling", "variant": v}
            for v, out in (("a", "100 °C."), ("b", "About 90 °C, depending on the pot."))]
    path = tmp_path / "pair.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_file(store, path, GQ, dataset="pairs")
    app = make_app(store, REVIEWER, rubric_ref=GQ, dataset="pairs")
    async with app.run_test(size=SIZE) as pilot:
        item: ItemScreen = await press_to(app, pilot, "g", ItemScreen)
        assert item.state.group == "boiling" and item.check_action("pair", ()) is True
        pair: PairScreen = await press_to(app, pilot, "w", PairScreen)
        assert {s.item_id for s in pair.pair.sides} == {"two-answers-a", "two-answers-b"}
        assert pair.pair.sides[0].variant == "a"
        other = next(i for i, s in enumerate(pair.pair.sides) if s is not item.state)
        await pilot.press("h" if other == 0 else "l", "8")
        await pilot.press("b")  # not pairwise: no choice is recorded
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is item
    partner = pair.pair.sides[other]
    assert (partner.dims[0].dim.id, 8.0, "score") in mine(store, partner.item_pk)
    assert choice_rows(store, "boiling") == []


async def test_an_item_without_a_group_offers_no_pair_view(store: Store) -> None:
    app = make_app(store, REVIEWER, rubric_ref=GQ)
    async with app.run_test(size=SIZE) as pilot:
        item: ItemScreen = await press_to(app, pilot, "g", ItemScreen)
        assert item.state.group is None
        assert item.check_action("pair", ()) is False
        await pilot.press("w")
        await settle(app, pilot)
        assert app.screen is item
