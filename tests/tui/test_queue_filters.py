"""The queue list's filters under Pilot: `f` opens the filter dialog (dataset, band, status, the
judge and people disagreeing, the judge panel disagreeing, text), `/` the text alone, `x` clears;
the line under the title says what is filtered and how many items match, and the store pages the
filtered list.

On the code before this change the queue had no `f` or `x` (the keys did nothing, so no dialog
opened and nothing was said), the `/` search sent `%`/`_` to LIKE as wildcards (`gq_00` matched
`gq-001`…), its count stayed the whole queue's, and nothing stopped a blind session from
filtering by the judge's band."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Checkbox, DataTable, Input, Select, Static

from reviewer.store import Store
from reviewer.store.views import QueueFilter
from reviewer.tui.app import ReviewApp, make_app
from reviewer.tui.config import TuiSettings
from reviewer.tui.screens.filter import BLIND_NOTE, FilterDialog
from reviewer.tui.screens.queue import QueueScreen
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, settle


def ids(app: ReviewApp) -> list[str]:
    screen = app.screen
    assert isinstance(screen, QueueScreen)
    return [r.item_id for r in screen.rows]


def filter_line(app: ReviewApp) -> str:
    line = app.screen.query_one("#queue-filter", Static)
    return "" if line.has_class("-hidden") else str(line.render())


async def open_dialog(app: ReviewApp, pilot: Any) -> FilterDialog:
    await settle(app, pilot)
    await pilot.press("f")
    await settle(app, pilot)
    assert isinstance(app.screen, FilterDialog), "f opens the filter dialog"
    return app.screen


async def test_the_dialog_filters_by_status_in_the_store_and_says_how_many(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_dialog(app, pilot)
        # from the text box back (two disagreement boxes, the band) to the status select, open it
        # and pick "flagged" (the last)
        await pilot.press("shift+tab", "shift+tab", "shift+tab", "shift+tab")
        assert dialog.focused is dialog.query_one("#filter-status", Select)
        await pilot.press("enter", "down", "down", "down", "down", "enter")
        assert dialog.query_one("#filter-status", Select).value == "flagged"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, QueueScreen)
        flagged = store.queue.queue_page("triage", filt=QueueFilter(status="flagged"), limit=500)
        n, total = len(flagged), store.queue.queue_count("triage")
        assert 0 < n < total
        assert ids(app) == [r.item_id for r in flagged]
        assert all(r.flagged for r in app.screen.rows)
        line = filter_line(app)
        assert "status flagged" in line and f"{n} of {total} items match" in line
        # x clears: the whole queue again, the line gone
        await pilot.press("x")
        await settle(app, pilot)
        assert len(ids(app)) == min(total, app.settings.page_size) and filter_line(app) == ""


async def test_dataset_band_and_disagreement_from_the_dialog(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_dialog(app, pilot)
        bands = [v for _, v in dialog.query_one("#filter-band", Select)._options if isinstance(v, str)]
        band = store.queue.queue_page("triage", limit=1)[0].band
        assert band in bands
        dialog.query_one("#filter-band", Select).value = band
        dialog.query_one("#filter-dataset", Select).value = "demo"
        await pilot.press("enter")  # in the text box: applies
        await settle(app, pilot)
        want = store.queue.queue_page("triage", filt=QueueFilter(dataset="demo", band=band), limit=500)
        listed = app.screen
        assert isinstance(listed, QueueScreen)
        assert ids(app) == [r.item_id for r in want] and {r.band for r in listed.rows} == {band}
        assert f"band {band}" in filter_line(app) and "dataset demo" in filter_line(app)
        # the demo's judge is one model: no panel disagrees, and the list says so with 0 matches
        dialog = await open_dialog(app, pilot)
        assert dialog.query_one("#filter-band", Select).value == band  # the dialog opens on the filter in force
        await pilot.press("shift+tab")
        assert dialog.focused is dialog.query_one("#filter-disagreement", Checkbox)
        await pilot.press("space", "ctrl+s")
        await settle(app, pilot)
        assert ids(app) == [] and "panel disagrees" in filter_line(app) and "0 of" in filter_line(app)


async def test_the_judge_against_the_people_from_the_dialog(store: Store) -> None:
    """The demo's judge is one model, and its people often score far from it. Before this box the
    dialog's only disagreement was the panel's: ticking it listed 0 items (checked below), so the
    items a lead wants to look at first — the judge far from the people — could not be listed."""
    from reviewer.domain import PEOPLE_APART, human_gap

    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_dialog(app, pilot)
        await pilot.press("shift+tab", "shift+tab")  # from the text box: past the panel's box to the people's
        box = dialog.query_one("#filter-people", Checkbox)
        assert dialog.focused is box and str(box.label) == "judge and people disagree"
        await pilot.press("space", "ctrl+s")
        await settle(app, pilot)
        apart = store.queue.queue_page("triage", filt=QueueFilter(people_disagree=True), limit=500)
        total = store.queue.queue_count("triage")
        assert 0 < len(apart) < total
        assert ids(app) == [r.item_id for r in apart]
        line = filter_line(app)
        assert "judge and people disagree" in line and f"{len(apart)} of {total} items match" in line
        # each item listed is one whose fold has the judge and the people a quarter of the scale apart
        for it, fold in store.items.item_folds(item_pks=[r.item_pk for r in apart]):
            value = human_gap(store.rubrics.get_rubric(it.rubric_ref), fold.dims)
            assert value is not None and value >= PEOPLE_APART
        # the panel's box alone, as the dialog had before: nothing
        dialog = await open_dialog(app, pilot)
        assert dialog.query_one("#filter-people", Checkbox).value  # opens on the filter in force
        await pilot.press("shift+tab", "space", "shift+tab", "space", "ctrl+s")
        await settle(app, pilot)
        listed = app.screen
        assert isinstance(listed, QueueScreen)
        assert listed.filt == QueueFilter(disagreement=True)
        assert ids(app) == [] and "panel disagrees" in filter_line(app) and "0 of" in filter_line(app)


async def test_text_is_literal_data_and_never_markup(store: Store) -> None:
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"gq_00", "enter")
        await settle(app, pilot)
        # `_` is a plain character: nothing is called gq_00… (as a LIKE wildcard it matched gq-001)
        assert ids(app) == [] and '"gq_00"' in filter_line(app) and "0 of" in filter_line(app)
        await pilot.press("slash")
        box = app.screen.query_one("#queue-search", Input)
        assert box.value == "gq_00"  # the box opens on the text in force
        box.value = ""
        await pilot.press(*"[red]gq-00%", "enter")
        await settle(app, pilot)
        assert ids(app) == []
        assert '"[red]gq-00%"' in filter_line(app)  # shown as typed: not read as markup
        await pilot.press("slash")
        app.screen.query_one("#queue-search", Input).value = ""
        await pilot.press(*"GQ-00", "enter")  # case does not matter
        await settle(app, pilot)
        found = ids(app)
        assert found and all(i.startswith("gq-00") for i in found)
        assert f"{len(found)} of" in filter_line(app)
        await pilot.press("slash", "escape")  # escape in the box drops the text filter
        await settle(app, pilot)
        assert filter_line(app) == "" and len(ids(app)) > len(found)


async def test_a_filtered_list_is_paged_by_the_store(store: Store) -> None:
    app = make_app(store, REVIEWER, settings=TuiSettings(page_size=10))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        listed = app.screen
        assert isinstance(listed, QueueScreen)
        listed.set_filter(QueueFilter(status="new", dataset="demo"))
        await settle(app, pilot)
        every = [r.item_id for r in store.queue.queue_page("triage", filt=QueueFilter(status="new", dataset="demo"),
                                                     limit=500)]
        assert len(every) > 10
        assert ids(app) == every[:10] and app.screen.query_one(DataTable).row_count == 10
        await pilot.press("right_square_bracket")
        await settle(app, pilot)
        assert ids(app) == every[10:20]
        assert f"{len(every)} of" in filter_line(app)  # the count stays while paging


async def test_a_blind_session_has_no_judge_filters(store: Store) -> None:
    app = make_app(store, REVIEWER, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_dialog(app, pilot)
        assert not dialog.query("#filter-band") and not dialog.query("#filter-disagreement")
        assert not dialog.query("#filter-people")  # people's scores are no secret, but the judge's are
        assert BLIND_NOTE in str(dialog.query_one("#filter-blind", Static).render())
        await pilot.press("escape")
        await settle(app, pilot)
        # a filter by band asked for anyway (a keymap, a later caller) is refused and said
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        band = store.queue.queue_page("triage", limit=1)[0].band
        screen.set_filter(QueueFilter(band=band, dataset="demo"))
        await settle(app, pilot)
        assert screen.filt == QueueFilter(dataset="demo")
        assert any(BLIND_NOTE in str(n.message) for n in app._notifications)
        assert "band" not in filter_line(app) and len(ids(app)) == min(store.queue.queue_count("triage"), 200)


async def test_hostile_filter_text_is_shown_inert(store: Store) -> None:
    """Escapes, bidi overrides and Rich markup typed (or pasted) as the filter text reach the
    store as plain text and the screen as visible placeholders, never as markup or raw bytes."""
    from tests.hostile.harness import HOSTILE, MARKUP, raw_controls

    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for raw in [*HOSTILE.values(), *MARKUP.values()]:
            await pilot.press("slash")
            box = app.screen.query_one("#queue-search", Input)
            box.value = raw
            await pilot.press("enter")
            await settle(app, pilot)
            screen = app.screen
            assert isinstance(screen, QueueScreen) and screen.filt.text == raw.strip()
            line = app.screen.query_one("#queue-filter", Static).render()
            assert isinstance(line, Text) or hasattr(line, "plain")
            shown = str(line)
            assert raw_controls(shown) == [], repr(raw)
            if raw in MARKUP.values():
                assert raw.strip() in shown  # the brackets as typed, not a style or a link
                assert not any(s.style and "link" in str(s.style) for s in getattr(line, "spans", []))
            # the same rows the store gives for the text as a literal
            assert ids(app) == [r.item_id for r in store.queue.queue_page("triage", filt=QueueFilter(text=raw.strip()),
                                                                    limit=app.settings.page_size)]


async def test_the_list_never_calls_new_what_the_status_filter_does_not(store: Store) -> None:
    """An item someone holds, with no complete review, is "in progress" to the status filter. The
    list's column used to say "new" for every item without a complete review (its "status"
    column: "new" / "2 reviewed"), so the held item read "new" in the list and was missing under
    the filter's "new". The column now counts reviews and never says "new"."""
    claim = store.queue.claim_next("triage", "someone-else")
    assert claim is not None
    new = {r.item_pk for r in store.queue.queue_page("triage", filt=QueueFilter(status="new"), limit=500)}
    going = {r.item_pk for r in store.queue.queue_page("triage", filt=QueueFilter(status="in progress"), limit=500)}
    assert claim.item_pk in going and claim.item_pk not in new
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(DataTable)
        labels = [str(c.label) for c in table.ordered_columns]
        assert "reviews" in labels and "status" not in labels
        at = labels.index("reviews")
        cells = {int(str(key.value)): str(table.get_row(key)[at]) for key in table.rows}
        assert "new" not in cells.values()
        assert cells[claim.item_pk] == "none"
        counted = {r.item_pk: r.reviewed for r in store.queue.queue_page("triage", limit=500)}
        assert all(cells[pk] == (str(n) if n else "none") for pk, n in counted.items() if pk in cells)
        assert any(n for pk, n in counted.items() if pk in cells)
