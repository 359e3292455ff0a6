"""Outputs rendered as markdown with highlighted code, ``m`` for the raw text, evidence highlighted
in both, hostile markdown kept harmless; a conversation's turn scores and the reason an overall
was capped on the item screen (issues 14 and 16).

On the code before: outputs were plain safe text (``**capital**`` and the code fence shown as
typed, no highlighting), ``m`` was bound to nothing, the chat and the cards showed no turn scores
and the summary never said why an overall was capped — each test below fails there on its first
assertion about the new behaviour.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.markdown import Markdown
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.widgets import Static

from reviewer.store import Store
from reviewer.tui.app import make_app
from reviewer.tui.screens.item import ItemScreen
from reviewer.tui.widgets.dimension_card import DimensionCard
from reviewer.tui.widgets.markdown import EVIDENCE_STYLE
from tests.hostile.harness import raw_controls
from tests.tui.conftest import REVIEWER
from tests.tui.helpers import SIZE, open_item, settle
from tests.tui.seeded import EVIDENCE, TURNS, seed


def _panel(screen: ItemScreen, name: str) -> Text:
    content = screen.query_one(f"#item-{name}", Static).content
    assert isinstance(content, Text)
    return content


def _card(screen: ItemScreen, i: int) -> str:
    """What card ``i`` shows, as plain text."""
    console = Console(file=io.StringIO(), width=100, no_color=True)
    with console.capture() as cap:
        console.print(screen.query_one(f"#card-{i}", DimensionCard)._render_state())
    return cap.get()


def _styled(text: Text, style: str) -> list[str]:
    """The pieces of ``text`` carrying ``style``."""
    return [text.plain[s.start:s.end] for s in text.spans if str(s.style) == style]


def _links(screen: ItemScreen) -> list[str]:
    """Every hyperlink target in what the output panel paints (a ``link`` style becomes an OSC 8
    hyperlink in the terminal)."""
    panel = screen.query_one("#item-output", Static)
    strips = panel.render_lines(Region(0, 0, panel.size.width, panel.size.height))
    return [seg.style.link for strip in strips for seg in strip if isinstance(seg.style, Style) and seg.style.link]


async def test_an_output_renders_as_markdown_with_highlighted_code_and_m_shows_it_as_written(
        store: Store, tmp_path: Path) -> None:
    keys = seed(store, tmp_path)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_item(app, pilot, keys["md-1"])
        rendered, title = _panel(screen, "output"), screen.query_one("#item-output").border_title
        await pilot.press("m")
        await settle(app, pilot)
        raw, raw_title = _panel(screen, "output"), screen.query_one("#item-output").border_title
        await pilot.press("m")
        await settle(app, pilot)
        again = _panel(screen, "output")
        footer = " ".join(b.description for b in screen.active_bindings.values() if b.binding.show
                          for b in [b.binding])
    # rendered: marks gone, emphasis as a style, the fence as a highlighted block
    assert "**" not in rendered.plain and "```" not in rendered.plain
    assert "capital" in _styled(rendered, "bold")
    code = rendered.plain.index("def capital")
    colours = {str(s.style) for s in rendered.spans if s.start >= code and s.end <= code + 60}
    assert len(colours) >= 3, colours  # keyword, name, string: Pygments' tokens, not one colour
    assert "markdown" in str(title)
    # m: the output exactly as written (made safe), and the panel says which
    assert raw.plain == (screen.state.output or "").rstrip("\n") or raw.plain == screen.state.output
    assert "**capital**" in raw.plain and "```python" in raw.plain and "as written" in str(raw_title)
    assert again.plain == rendered.plain  # m again: rendered
    assert "raw/markdown" in footer


async def test_evidence_is_highlighted_rendered_and_raw(store: Store, tmp_path: Path) -> None:
    keys = seed(store, tmp_path)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_item(app, pilot, keys["md-1"])
        rendered = _panel(screen, "output")
        await pilot.press("m")
        await settle(app, pilot)
        raw = _panel(screen, "output")
    # the quote crosses the source's line break: matched across whitespace in both
    for text in (rendered, raw):
        lit = " ".join(_styled(text, EVIDENCE_STYLE))
        assert lit.split() == EVIDENCE.split(), lit


async def test_hostile_markdown_makes_no_live_link_and_no_raw_escape(store: Store, tmp_path: Path) -> None:
    keys = seed(store, tmp_path)
    # Without the guard: Rich's own markdown turns the link into an OSC 8 hyperlink.
    buf = io.StringIO()
    Console(file=buf, force_terminal=True, width=80).print(Markdown("Click [here](http://evil.example/steal)"))
    assert "\x1b]8;" in buf.getvalue() and "http://evil.example/steal" in buf.getvalue()
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_item(app, pilot, keys["evil-1"])
        shots, texts, links = [], [], []
        for _ in range(2):  # rendered, then raw
            shots.append(app.export_screenshot())
            texts.append(_panel(screen, "output"))
            links += _links(screen)
            await pilot.press("m")
            await settle(app, pilot)
        output = screen.state.output
    assert "\x1b" in output  # the item really holds the escapes
    assert links == []
    for shot in shots:
        assert raw_controls(shot) == []
    rendered, raw = texts
    for text in texts:
        assert raw_controls(text.plain) == [] and not any("link" in str(s.style) for s in text.spans)
    # the targets are in plain sight, the markup-looking text shown as typed
    for target in ("http://evil.example/steal", "http://auto.example/x", "http://img.example/pixel.png"):
        assert target in rendered.plain
    assert "here ⟨http://evil.example/steal⟩" in rendered.plain
    assert "[image: tracker] ⟨http://img.example/pixel.png⟩" in rendered.plain
    assert "[link=http://markup.example]markup link[/link]" in rendered.plain
    assert "[bold]not bold[/bold]" in rendered.plain
    assert "␛]8;;http://osc.example␛\\hidden target" in rendered.plain and "␛]0;pwned␇" in rendered.plain
    assert "[here](http://evil.example/steal)" in raw.plain


async def test_turn_scores_beside_their_turns_and_on_the_card(store: Store, tmp_path: Path) -> None:
    keys = seed(store, tmp_path)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_item(app, pilot, keys["chat-1"])
        chat = _panel(screen, "input").plain
        card = _card(screen, 0)
        await pilot.press("m")
        await settle(app, pilot)
        raw_chat = _panel(screen, "input").plain
    lines = chat.splitlines()
    # flexeval-choice scores the user's turns: each user message carries its turn's score
    users = [line for line in lines if line.startswith("user")]
    assert users == [f"user  turn {i + 1}  asks_for_plot {s:g}" for i, s in enumerate(TURNS)]
    assert not any(line.startswith("assistant") and "asks_for_plot" in line for line in lines)
    assert "plot" in chat and "**plot**" not in chat and "**plot**" in raw_chat  # messages rendered too
    assert "max of turns:  1: 1  2: 0" in card


async def test_blind_hides_turn_scores_until_scored(store: Store, tmp_path: Path) -> None:
    keys = seed(store, tmp_path)
    app = make_app(store, REVIEWER, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_item(app, pilot, keys["chat-1"])
        before = _panel(screen, "input").plain
        card_before = _card(screen, 0)
        await pilot.press("1")
        await settle(app, pilot)
        after = _panel(screen, "input").plain
        card_after = _card(screen, 0)
    assert "asks_for_plot" not in before and "of turns" not in card_before
    assert "hidden until you score" in card_before
    assert "user  turn 1  asks_for_plot 1" in after and "max of turns" in card_after


async def test_the_summary_says_which_cap_set_the_overall(store: Store, tmp_path: Path) -> None:
    keys = seed(store, tmp_path)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_item(app, pilot, keys["capped-1"])
        summary = str(screen.query_one("#item-summary", Static).render())
        fold = screen.state.effective_result()
        assert screen.focused_dim.dim.id == "accuracy"
        await pilot.press("9")  # the reviewer finds it accurate: their overall is no longer capped
        await settle(app, pilot)
        mine = str(screen.query_one("#item-summary", Static).render())
        await pilot.press("f")
        await pilot.press(*"harmful", "enter")
        await settle(app, pilot)
        flagged = str(screen.query_one("#item-summary", Static).render())
        safety = screen.state.effective_result()
    # read from the domain fold, word for word: accuracy 3 < 5 caps the overall at 4 (0.33);
    # judge and effective are capped alike, said once
    assert fold.capped_by == ("accuracy 3 < 5: capped at 4",)
    assert f"effective capped at {fold.overall:.2f} (from {fold.uncapped:.2f}) by accuracy 3 < 5: capped at 4" in summary
    assert "judge capped" not in summary
    # the reviewer's 9 lifts the ceiling from their overall; the judge's stays capped, said apart
    assert "effective capped" not in mine and f"judge capped at {fold.overall:.2f}" in mine
    # a reviewer's flag: the safety cap sets both now
    assert safety.capped_by == ("safety: capped at 0",)
    assert "effective capped at 0.00" in flagged and "by safety: capped at 0" in flagged
    assert "judge capped at 0.00" in flagged and "accuracy 3 < 5: capped at 4; safety: capped at 0" in flagged


async def test_a_50_kb_output_paints_only_the_lines_on_screen(store: Store, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A 50 KB markdown output costs the UI thread only what is on screen: its panel renders the
    visible lines (and wraps the text once per width), not all of them. On the code before it was
    a ``Static``, which wrapped and rendered every line of the output on each change: 230-330 ms
    of the UI thread per ``m`` under load, where this takes ~25 ms."""
    import json

    from reviewer.services.importing import import_file
    from reviewer.tui.widgets.textview import TextView

    big = ("# Answer\n\n```python\nprint('Canberra')\n```\n\n"
           + "- a point about the city, its history and its role in the federation\n" * 800)[:50_000]
    src = tmp_path / "big.jsonl"
    src.write_text(json.dumps({"id": "big-1", "output": big}) + "\n")
    import_file(store, src, "general-quality@1.0.0", dataset="big")
    pk = store.queue.queue_page("triage", search="big-1")[0].item_pk
    painted: list[int] = []
    real = TextView.render_line

    def counting(self: TextView, y: int) -> Any:
        if self.id == "item-output":
            painted.append(y)
        return real(self, y)

    monkeypatch.setattr(TextView, "render_line", counting)
    app = make_app(store, REVIEWER)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_item(app, pilot, pk)
        panel = screen.query_one("#item-output", TextView)
        total = len(panel.lines(panel.content_size.width))
        shown_first = len(set(painted))
        painted.clear()
        await pilot.press("m")
        await settle(app, pilot)
        shown_raw = len(set(painted))
    assert total > 700
    assert 0 < shown_first <= SIZE[1] and 0 < shown_raw <= SIZE[1]


def test_a_cap_reads_apart_from_the_overall_it_lowered() -> None:
    """At two places a cap of 0.6667 under 0.6700 read "capped at 0.67 (from 0.67)" (seen on the
    demo); the places grow until the two differ, up to four."""
    from reviewer.tui.screens.scoring import _places_apart

    assert _places_apart(0.6667, 0.6700) == 3
    assert _places_apart(0.40, 0.85) == 2
    assert _places_apart(0.5, None) == 2
    assert _places_apart(0.66667, 0.66668) == 4
