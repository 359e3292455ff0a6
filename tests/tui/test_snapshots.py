"""SVG snapshots of each screen at 160×50, at 80×24 (a laptop over SSH) and with NO_COLOR
(textual is pinned in pyproject). Each was looked at before it was accepted."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.tui.app import make_app
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import VARIANTS, gold_weeks, settle, steady, terminal_variant
from tests.tui.seeded import seed
from tests.tui.team_work import team_work

PAIRWISE = "reval-issue-framing@1.0.0"
RAG = "rag-answer"  # the bundled version, whichever it is
#: screen → (blind session, the keys that lead there from the queue, the session's rubric)
SCREENS: dict[str, tuple[bool, tuple[str, ...], str | None]] = {
    "queue": (False, (), None),
    "blind_queue": (True, (), None),
    "item": (False, ("g", "7"), None),
    "item_context": (False, ("g", "c"), RAG),
    "blind_item": (True, ("g",), None),
    "blind_revealed": (True, ("g", "4", "v"), None),
    "reason": (False, ("g", "1", "r", "tab", "2"), None),
    "flag": (False, ("g", "f"), None),
    "comment": (False, ("g", "C", *"cites a retracted study"), None),
    "pair": (False, ("g", "5", "l", "b"), PAIRWISE),
    "safety": (False, ("S",), None),
    "safety_decided": (False, ("S", "down", "e", *"looks real", "enter"), None),
    "help": (False, ("g", "question_mark"), None),
    "calibration": (False, ("c",), None),
    "calibration_dimension": (False, ("c", "enter"), None),
    "calibration_drift": (False, ("c",), None),
    # relevance (the ambiguous dimension: people disagree), its largest disagreement
    "adjudication_dialog": (False, ("c", "down", "enter", "down", "8", *"ben misread it"), None),
    "filter_dialog": (False, ("f",), None),
    "queue_filtered": (False, ("f", "shift+tab", "shift+tab", "shift+tab", "shift+tab", "enter", *["down"] * 4, "enter",
                               "ctrl+s"), None),
    "pair_partners": (False, ("g", "o", "a", "e", *"fewer loaded words", "tab", "2", "enter"), PAIRWISE),
    "jump_choice": (False, ("colon", *"gq-003", "enter"), None),
    "team": (False, ("t",), None),
    # the correction editor, a line begun at its top; then the item showing it as a diff
    "correction": (False, ("g", "e", *"In short: "), None),
    "item_corrected": (False, ("g", "e", *"In short: ", "ctrl+s"), None),
    "sort_dialog": (False, ("o",), None),
    "queue_sorted": (False, ("o", "enter", "down", "enter", "tab", "space", "ctrl+s"), None),
    "history": (False, ("h",), None),
    "mark": (False, ("g", "x", "w", "l", "l", "space", "w", "w"), None),
}


def _trio(store: Store, tmp_path: Path) -> None:
    """A group of three under the pairwise rubric, alone in the session's dataset."""
    path = tmp_path / "trio.jsonl"
    path.write_text("".join(json.dumps({
        "id": f"trio-{v}", "group": "trio", "variant": v, "input": "Summarise the housing proposal.",
        "output": f"Answer {v}: the proposal expands public housing; critics cite the cost."}) + "\n"
        for v in "abc"))
    import_file(store, path, PAIRWISE, dataset="trio")


def _twin(store: Store, tmp_path: Path) -> None:
    """A second gq-003, in another dataset: ``:`` on that id asks which one."""
    path = tmp_path / "twin.jsonl"
    path.write_text(json.dumps({"id": "gq-003", "input": "q", "output": "another answer"}) + "\n")
    import_file(store, path, "general-quality@1.0.0", dataset="copy")


#: screen → (what it adds to the demo store, the session's dataset)
SETUP: dict[str, tuple[Callable[[Store, Path], None], str | None]] = {
    "pair_partners": (_trio, "trio"), "jump_choice": (_twin, None), "team": (team_work, None),
    "calibration_drift": (gold_weeks, None)}
def _decisions(store: Store, tmp_path: Path) -> None:
    """The session's reviewer's decisions on three items, at fixed times (a picture of the
    history panel must not change with the clock): written as the store's rows are."""
    from datetime import UTC, datetime

    from reviewer.store.tables import HumanScore, table_of

    pks = [r.item_pk for r in store.queue.queue_page("triage", limit=3)]
    rows = [(pks[0], "accuracy", 4.0, 1), (pks[0], "clarity", 3.0, 2), (pks[1], "accuracy", 8.0, 3),
            (pks[2], "relevance", 6.0, 4), (pks[2], "relevance", None, 5)]
    with store.db.write() as conn:
        conn.execute(table_of(HumanScore).insert(), [
            dict(item_pk=pk, dimension=dim, reviewer=REVIEWER, score=score, sample="triage",
                 kind="score" if score is not None else "undo", created_at=datetime(2026, 3, 2, 9, minute, tzinfo=UTC))
            for pk, dim, score, minute in rows])


SETUP["history"] = (_decisions, None)


def _pressing(app: Any, keys: tuple[str, ...], opening: int | None = None) -> Callable[[Any], Awaitable[None]]:
    """What runs before the picture: the store settled, the item ``opening`` opened, ``keys``
    pressed one by one, text cursors held on."""
    async def ready(pilot: Any) -> None:
        await settle(app, pilot)
        if opening is not None:
            app.open_item(opening)
            await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)
        await steady(app, pilot)

    return ready


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_screen(screen: str, variant: str, snap_compare: Any, store: Store, monkeypatch: pytest.MonkeyPatch,
                tmp_path: Path) -> None:
    blind, keys, rubric = SCREENS[screen]
    dataset = None
    if screen in SETUP:
        setup, dataset = SETUP[screen]
        setup(store, tmp_path)
    size = terminal_variant(variant, monkeypatch)
    app = make_app(store, REVIEWER, blind=blind, rubric_ref=store.rubrics.get_rubric(rubric).ref if rubric else None,
                   dataset=dataset)

    assert snap_compare(app, terminal_size=size, run_before=_pressing(app, keys))


#: screens of items added to the demo (tests/tui/seeded.py) → (the item opened, keys pressed on it)
SEEDED: dict[str, tuple[str, tuple[str, ...]]] = {
    "markdown": ("md-1", ()),  # rendered: heading, emphasis, link with its address, code highlighted
    "markdown_raw": ("md-1", ("m",)),  # the same output as written
    "conversation_turns": ("chat-1", ()),  # turn scores beside the turns, the safety cap named
    # the safety screen on the flagged chat: the whole conversation under decision, as written
    "safety_conversation": ("chat-1", ("escape", "S", *["down"] * 5)),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("screen", sorted(SEEDED))
def test_seeded_screen(screen: str, variant: str, snap_compare: Any, store: Store, tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    item, keys = SEEDED[screen]
    size = terminal_variant(variant, monkeypatch)
    pks = seed(store, tmp_path)
    store.safety.flag_item(pks["chat-1"], REVIEWER, "asks a minor for personal details")
    app = make_app(store, REVIEWER)

    assert snap_compare(app, terminal_size=size, run_before=_pressing(app, keys, opening=pks[item]))
