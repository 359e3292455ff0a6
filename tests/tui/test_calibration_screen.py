"""The calibration screen under Pilot: leads only, the per-dimension table, the drill-down, and
adjudication landing in the store once confirmed with a reason (escape writes nothing)."""

from __future__ import annotations

from typing import Any

from textual.widgets import DataTable

from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.screens.calibration import CalibrationScreen, DimensionDetailScreen
from reviewer.tui.screens.confirm import AdjudicationDialog
from reviewer.tui.screens.item import ItemScreen
from reviewer.tui.screens.queue import QueueScreen
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, press_to, settle


def _top(app: Any) -> Any:
    """The screen on top now (read afresh each time: a dialog comes and goes)."""
    return app.screen


async def _open(app: Any, pilot: Any) -> CalibrationScreen:
    screen: CalibrationScreen = await press_to(app, pilot, "c", CalibrationScreen)
    return screen


async def test_a_reviewer_without_the_lead_role_is_refused(store: Store) -> None:
    store.roles.add_reviewer("rae", "reviewer")
    app = make_app(store, "rae")
    async with app.run_test(size=SIZE) as pilot:
        await press_to(app, pilot, "c", QueueScreen)


async def test_the_table_holds_every_dimension_with_status_and_reason(store: Store) -> None:
    app = make_app(store, REVIEWER)  # the demo gives this reviewer every role
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        rubrics = {r.split("@")[0] for r in store.ratings.rubrics_with_items()}
        assert {row["rubric"].split("@")[0] for row in screen.rows} == rubrics
        assert all(row["status"] in ("trusted", "tentative", "low_confidence", "insufficient_data")
                   for row in screen.rows)
        assert all(row["reason"] for row in screen.rows)
        assert screen.query_one(DataTable).row_count == len(screen.rows)
        scored = [row for row in screen.rows if row["n"] > 0]
        assert scored, "the demo has human scores beside the judge's"


async def test_drill_down_adjudicate_and_open_the_item(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        table = screen.query_one(DataTable)
        # the demo's relevance: the rubric is ambiguous there, so its reviewers split on items
        target = next(i for i, r in enumerate(screen.rows) if r["n"] > 0 and r["dimension"] == "relevance")
        table.move_cursor(row=target)
        await pilot.press("enter")
        await settle(app, pilot)
        detail = app.screen
        assert isinstance(detail, DimensionDetailScreen) and detail.items
        dim = detail.row["dimension"]
        split = [i for i, d in enumerate(detail.items) if d["human_spread"] >= 2]
        agreed = [i for i, d in enumerate(detail.items) if d["human_spread"] < 2]
        table = detail.query_one("#detail-table", DataTable)
        if agreed:  # where the humans agree there is nothing to settle: nothing is written
            table.move_cursor(row=agreed[0])
            await pilot.press("5")
            await settle(app, pilot)
            pk = detail.items[agreed[0]]["item_pk"]
            assert not [h for h in store.scores.human_rows(pk) if h.kind == "adjudication"]
        assert split, "the demo's reviewers disagree somewhere"
        table.move_cursor(row=split[0])
        item = detail.items[split[0]]
        await pilot.press("3")  # asks first: escape writes nothing (one digit wrote it before)
        await settle(app, pilot)
        assert isinstance(_top(app), AdjudicationDialog)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is detail and item["adjudicated"] is None
        assert not [h for h in store.scores.human_rows(item["item_pk"]) if h.kind == "adjudication"]
        await pilot.press("3", "enter")  # a reason is required: enter alone writes nothing
        await settle(app, pilot)
        assert isinstance(_top(app), AdjudicationDialog)
        await pilot.press(*"the source says 3", "enter")
        await settle(app, pilot)
        assert app.screen is detail
        rows = [h for h in store.scores.human_rows(item["item_pk"]) if h.kind == "adjudication"]
        assert [(h.dimension, h.score, h.reviewer, h.reason) for h in rows] == [(dim, 3.0, REVIEWER,
                                                                                "the source says 3")]
        assert store.ratings.rating_rows(detail.row["rubric"])[0] is not None
        adjudicated = {r["item_pk"]: r["adjudicated"] for r in store.ratings.rating_rows(detail.row["rubric"])}
        assert adjudicated[item["item_pk"]] == {dim: 3.0}
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen) and app.screen.state.item_pk == item["item_pk"]


async def test_the_corrected_pass_rate_stands_beside_the_judges(store: Store) -> None:
    """People score the demo's audit items; the screen shows the judge's pass rate and the one
    corrected with those labels, with its interval — the same figures as `rubricate calibrate`."""
    from reviewer.services.calibrate_service import calibrate

    ref = "general-quality@1.0.0"
    rubric = store.rubrics.get_rubric(ref)
    for pk in sorted(store.queue.audit_pks(ref)):
        for d in rubric.dimensions:
            store.scores.add_human_score(pk, d.id, REVIEWER, float(d.scale.max if pk % 3 else d.scale.min), sample="audit")
    expected = calibrate(store, ref)["pass_rate_estimate"]
    assert expected["ppi"] is not None and expected["n_labelled"] > 0
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        await settle(app, pilot)
        line = str(screen.query_one("#calibration-estimate").render())
        assert f"{ref} pass rate: judge {expected['judge_only']:.3f}" in line
        ci = expected["ppi_ci"]
        assert ci is not None
        lo, hi = ci
        assert f"corrected {expected['ppi']:.3f} [{lo:.3f}, {hi:.3f}]" in line


async def test_the_highlighted_dimension_shows_its_last_align(store: Store) -> None:
    from textual.widgets import Static

    ref = store.ratings.rubrics_with_items()[0]
    dim = next(d.id for d in store.rubrics.get_rubric(ref).dimensions if not d.is_pair)
    stopped = store.align.create_align_run(ref, dim, "openai/judge-x", {"seed": 0})
    store.align.finish_align_run(stopped, "cost_cap", {"dimension": dim})
    run = store.align.create_align_run(ref, dim, "openai/judge-x", {"seed": 0})
    side = {"n": 12, "alpha_ci": [0.1, 0.3], "kappa": 0.2, "bias": 0.5}
    store.align.finish_align_run(run, "done", {
        "dimension": dim, "chosen": "k2", "dev_items": [f"q{i}" for i in range(28)],
        "test": {"n": 12, "before": {**side, "alpha": 0.1}, "after": {**side, "alpha": 0.95},
                 "difference": 0.85, "difference_ci": [0.6, 1.0], "verdict": "better"}}, written_ref="x@1.1.0")
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        target = next(i for i, r in enumerate(screen.rows) if r["rubric"] == ref and r["dimension"] == dim)
        table = screen.query_one(DataTable)
        table.move_cursor(row=target)
        await settle(app, pilot)
        shown = str(screen.query_one("#calibration-reason", Static).render())
        assert (f"last align (run {run}): k2 chosen on 28 dev items; better on 12 test items: α 0.10 → 0.95, "
                "difference +0.85 [+0.60, +1.00]; written as x@1.1.0") in " ".join(shown.split())
        others = [i for i, r in enumerate(screen.rows) if (r["rubric"], r["dimension"]) != (ref, dim)]
        table.move_cursor(row=others[0])
        await settle(app, pilot)
        assert "last align" not in str(screen.query_one("#calibration-reason", Static).render())
