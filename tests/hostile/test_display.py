"""Displayed text: control characters never reach the terminal, data is never read as markup.

Each case first shows the failure without the guard (the raw string carries ESC or a bidi
override, Rich keeps it in what it writes, Rich's markup parser crashes on ``[/]`` or turns
``[link=…]`` into a hyperlink), then that :mod:`reviewer.safetext` and the commands and screens
using it do not.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.errors import MarkupError
from rich.text import Text

from reviewer.safetext import placeholder, safe, safe_line, safe_text
from reviewer.services.importing import import_file
from reviewer.store import open_store
from tests.cli import run_cli
from tests.hostile.harness import (
    HOSTILE,
    MARKUP,
    Case,
    hostile_items_file,
    hostile_run,
    ids,
    raw_controls,
)

GQ = "general-quality@1.0.0"


def _terminal_bytes(renderable: Any) -> str:
    """What Rich writes to a real (colour) terminal for ``renderable``."""
    buf = io.StringIO()
    Console(file=buf, force_terminal=True, width=200, color_system="truecolor").print(renderable)
    return buf.getvalue()


# --- safe(): every hostile string ------------------------------------------------------------

@pytest.mark.parametrize("name", list(HOSTILE))
def test_safe_makes_every_control_character_visible(name: str) -> None:
    """Proves: no control or harmful invisible character of ``name`` survives safe(), and each is
    replaced by a visible placeholder (so a reviewer sees that it was there)."""
    raw = HOSTILE[name]
    assert raw_controls(raw), "the case must carry something dangerous"  # without the guard
    shown = safe(raw)
    assert raw_controls(shown) == []
    assert all(placeholder(ch) in shown for ch in raw_controls(raw))


@pytest.mark.parametrize("name", [n for n in HOSTILE if "\x1b" in HOSTILE[n] or "\x9b" in HOSTILE[n]])
def test_rich_passes_escapes_through_but_not_after_safe(name: str) -> None:
    """Proves: a Rich Text keeps ESC/CSI as it is (Rich strips only BEL, BS, VT, FF, CR), so the
    terminal would run it; through safe_text the terminal gets only printable characters."""
    raw = HOSTILE[name]
    unguarded = _terminal_bytes(Text(raw))
    rich_keeps = raw.translate({c: None for c in (7, 8, 11, 12, 13)})  # what Rich itself strips
    assert rich_keeps in unguarded  # the failure: the sequence reaches the terminal as it is
    guarded = _terminal_bytes(safe_text(raw))
    # Rich's own colour codes are SGR sequences ending in "m"; anything else is the data's.
    leftovers = [seq for seq in re.findall(r"\x1b\[[0-9;]*[A-Za-z]|\x1b[^\[]|\x9b", guarded)
                 if not seq.endswith("m")]
    assert leftovers == []
    assert "␛" in guarded or "⟨U+009B⟩" in guarded


def test_newlines_and_tabs_stay_where_layout_allows_and_not_on_one_line() -> None:
    """Proves: multi-line outputs keep their lines, while one-line contexts (titles, table cells,
    error lines) cannot be split by data."""
    assert safe("a\nb\tc") == "a\nb\tc"
    assert safe_line("a\nb\tc") == "a␤b␉c" and "\n" not in safe_line("x\ny")


@pytest.mark.parametrize("value", [None, 7, 2.5, ["a\x1b"], {"k": "\x1b"}], ids=str)
def test_safe_accepts_any_object(value: object) -> None:
    """Proves: safe() takes whatever a view hands it (None is empty) and never raises."""
    assert raw_controls(safe(value)) == []


def test_plain_text_is_returned_unchanged() -> None:
    """Proves: ordinary text (accents, CJK, emoji with joiners) is left exactly as it is."""
    text = "Café 東京 👩‍💻 — naïve"
    assert safe(text) is text or safe(text) == text


# --- markup: never parsed -------------------------------------------------------------------

@pytest.mark.parametrize("name", list(MARKUP))
def test_safe_text_is_never_read_as_markup(name: str) -> None:
    """Proves: a name like ``[/]`` or ``[link=…]`` is shown as typed; read as markup it would crash
    or vanish into a style or hyperlink."""
    raw = MARKUP[name]
    try:
        parsed: str | None = Text.from_markup(raw).plain
    except MarkupError:
        parsed = None  # the crash `reviewer accuracy` and the queue screen used to hit
    assert parsed != raw or name == "unclosed"  # the failure ("[bold" alone is kept by Rich)
    assert safe_text(raw).plain == raw
    assert "\x1b]8;" not in _terminal_bytes(safe_text(raw))  # no terminal hyperlink either


def test_markup_link_becomes_a_terminal_hyperlink_without_the_guard() -> None:
    """Proves the hyperlink failure concretely: printed as markup, ``[link=…]`` writes OSC 8."""
    assert "\x1b]8;" in _terminal_bytes(MARKUP["link"])
    assert "\x1b]8;" not in _terminal_bytes(safe_text(MARKUP["link"]))


# --- the CLI on a store full of hostile data -------------------------------------------------

@pytest.fixture
def hostile_db(tmp_path: Path) -> str:
    db = str(tmp_path / "hostile.db")
    import_file(open_store(db), hostile_items_file(tmp_path / "h.jsonl"), GQ)
    assert hostile_run(db) == 2
    return db


CLI_CASES = [
    Case("judge_report", "judge --report prints a model name holding escapes safely",
         (["judge", "--report", "{run}"],), {"literal": "model␛]0;pwned␇"}),
    Case("judge_report_markup", "judge --report prints a markup-like model name as typed",
         (["judge", "--report", "1"],), {"literal": "[link=http://evil.example]"}),
    Case("calibrate_table", "calibrate's table and reasons show markup-like reviewer names as typed",
         (["calibrate", "--rubric", GQ],), {"literal": "[/]ana"}),
    Case("calibrate_markdown", "calibrate --format markdown writes no raw escapes",
         (["calibrate", "--rubric", GQ, "--format", "markdown"],), {"literal": "accuracy"}),
    Case("calibrate_html", "calibrate --format html writes no raw escapes",
         (["calibrate", "--rubric", GQ, "--format", "html"],), {"literal": "accuracy"}),
    Case("report_table", "report's table shows hostile data safely", (["report", "--rubric", GQ],),
         {"literal": "accuracy"}),
    Case("report_markdown", "report --format markdown writes no raw escapes",
         (["report", "--rubric", GQ, "--format", "markdown"],), {"literal": "accuracy"}),
    Case("export_jsonl", "export jsonl encodes control characters (JSON escapes them)",
         (["export"],), {"literal": "h-0"}),
    Case("export_csv", "export csv on a terminal writes no raw ESC", (["export", "--format", "csv"],),
         {"literal": "h-0", "csv": True}),
]


@pytest.mark.parametrize("case", CLI_CASES, ids=ids(CLI_CASES))
def test_cli_output_on_hostile_data(case: Case, hostile_db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Proves (per case): the command succeeds on a store whose outputs, rationales, reasons,
    model and reviewer names carry escapes and markup, and prints none of them raw."""
    store = open_store(hostile_db)
    assert "\x1b" in (store.runs.judge_run_report(2)["model"] or "")  # the hostile data is really in the store
    assert "\x1b" in store.items.item_view(1, "x").output
    code, out, err = run_cli([*(a.format(run=2) for a in case.args[0]), "--db", hostile_db], capsys)
    assert code == 0, err
    assert "Traceback" not in err
    if case.extra.get("csv"):
        out = out.replace("\r\n", "\n")  # the csv module's line ends
    assert raw_controls(out + err) == [], (out + err)[:500]
    assert case.extra["literal"] in out


def test_reviewer_accuracy_with_markup_names(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Proves: `reviewer accuracy` prints reviewers named ``[/]ana`` and ``[link=…]bob`` as typed
    (it crashed with a MarkupError before)."""
    import json

    monkeypatch.setenv("COLUMNS", "200")  # wide enough that Rich does not shorten the names

    db = str(tmp_path / "gold.db")
    src = tmp_path / "gold.jsonl"
    src.write_text("".join(json.dumps({
        "id": f"g{i}", "output": "o", "gold": {"accuracy": 7},
        "human": [{"reviewer": MARKUP["close_tag"] + "ana", "scores": {"accuracy": 6}},
                  {"reviewer": MARKUP["link"], "scores": {"accuracy": 7}}]}) + "\n" for i in range(3)))
    import_file(open_store(db), src, GQ)
    with pytest.raises(MarkupError):  # the failure without the guard: the name as a table cell
        Console(file=io.StringIO()).print(MARKUP["close_tag"] + "ana")
    code, out, err = run_cli(["reviewer", "accuracy", "--db", db], capsys)
    assert code == 0, err
    assert "[/]ana" in out and "[link=http://evil.example]" in out and "\x1b]8;" not in out


def test_rubric_show_with_a_hostile_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Proves: `rubric show` prints a rubric whose name holds a title escape and markup as text."""
    src = Path("rubrics/library/general-quality.yaml").read_text(encoding="utf-8")
    lines = src.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("name:"))
    lines[at] = 'name: "Evil \\e]0;pwned\\a [/] [link=http://evil.example]x[/link]"'
    path = tmp_path / "evil.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run_cli(["rubric", "show", str(path)], capsys)
    assert code == 0, err
    assert raw_controls(out) == [] and "␛]0;pwned␇" in out and "[/] [link=http://evil.example]x[/link]" in out


def test_an_import_error_line_shows_hostile_ids_safely(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Proves: an import refused for a duplicate id whose text holds escapes prints one line with
    the escapes made visible (raw escapes were printed by import error lines)."""
    path = tmp_path / "dup.jsonl"
    evil = "x" + HOSTILE["set_title_bel"] + HOSTILE["clear_screen"]
    import json

    path.write_text(json.dumps({"id": evil, "output": "a"}) + "\n" + json.dumps({"id": evil, "output": "b"}) + "\n")
    code, out, err = run_cli(["import", str(path), "--rubric", GQ, "--db", str(tmp_path / "d.db")], capsys)
    assert code == 1
    assert raw_controls(err) == [] and "Traceback" not in err and err.strip()


def test_a_usage_error_with_escapes_in_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    """Proves: even the option name of a usage error is printed safely (it is echoed back)."""
    code, out, err = run_cli(["--\x1b]0;pwned\x07"], capsys)
    assert code == 2 and raw_controls(err) == [] and "pwned" in err and len(err.strip().splitlines()) == 1


# --- the TUI under Pilot -------------------------------------------------------------------

async def test_item_screen_with_escapes_everywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Proves: opening an item whose input, output, rationale and reasons are full of escapes
    renders them as placeholders — nothing raw on the screen — and markup-like text as typed."""
    from reviewer.tui.app import make_app
    from reviewer.tui.screens.item import ItemScreen
    from tests.tui.helpers import SIZE, settle

    monkeypatch.setenv("RUBRICATE_CONFIG", str(tmp_path / "none.yaml"))
    db = str(tmp_path / "tui.db")
    store = open_store(db)
    import_file(store, hostile_items_file(tmp_path / "h.jsonl"), GQ)
    app = make_app(store, "tess")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        queue_svg = app.export_screenshot()
        await pilot.press("g")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        svg = app.export_screenshot()
        output = app.screen.state.output
    assert "\x1b" in output  # the item really holds the escapes
    for shot in (queue_svg, svg):
        assert raw_controls(shot) == []
    assert "␛]0;pwned␇" in svg.replace("&#160;", " ")
    assert "⟨U+202E⟩" in svg
    assert "rationale" in svg  # the judge's rationale is shown (made safe), not dropped


async def test_queue_and_calibration_screens_with_markup_names(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Proves: item ids, datasets and reviewer names like ``[/]`` and ``[link=…]`` are shown as typed
    on the queue screen and the calibration drill-down (a DataTable reads a plain string cell as
    markup: ``[/]`` crashed the queue screen)."""
    import json

    from textual.widgets import DataTable

    from reviewer.tui.app import make_app
    from reviewer.tui.screens.calibration import CalibrationScreen, DimensionDetailScreen
    from tests.tui.helpers import SIZE, settle

    monkeypatch.setenv("RUBRICATE_CONFIG", str(tmp_path / "none.yaml"))
    db = str(tmp_path / "names.db")
    src = tmp_path / "names.jsonl"
    src.write_text("".join(json.dumps({
        "id": f"[/]item-{i}", "output": "o",
        "judge": {"model": "m", "scores": {"accuracy": 5}},
        "human": [{"reviewer": "[/]ana", "scores": {"accuracy": 2 + i}},
                  {"reviewer": "[link=http://evil.example]bob", "scores": {"accuracy": 9 - i}}]}) + "\n"
        for i in range(4)))
    store = open_store(db)
    import_file(store, src, GQ, dataset="[bold]set")
    store.roles.add_reviewer("tess", "lead")
    with pytest.raises(MarkupError):  # the failure without the guard
        Text.from_markup("[/]item-0")
    app = make_app(store, "tess")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        queue_svg = app.export_screenshot()
        for _ in range(20):  # once in a whole-suite run the picture was taken before the rows' paint
            if "item-0" in queue_svg:
                break
            await pilot.pause(0.05)
            queue_svg = app.export_screenshot()
        table = app.screen.query_one(DataTable)
        cells = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        await pilot.press("c")
        await settle(app, pilot)
        assert isinstance(app.screen, CalibrationScreen)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, DimensionDetailScreen)
        detail_svg = app.export_screenshot()
    assert "[/]item-0" in cells
    assert "[/]item-0" in queue_svg and "[bold]set" in queue_svg
    assert "[/]ana" in detail_svg and "[link=http://evil.example]bob" in detail_svg.replace("&#160;", " ")


def test_a_live_judge_run_with_a_markup_model_name(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Proves: `rubricate judge` against the loopback server, with a model named like markup and a
    reply whose rationale carries escapes, prints the name as typed in its progress and totals
    (Rich's progress columns read markup by default) and nothing raw; the rationale is stored as
    the judge wrote it (shown through safe text later)."""
    import json

    from rubrics.judge.client import release_litellm
    from tests.judge.loopback import LoopbackServer, Reply

    monkeypatch.setenv("COLUMNS", "200")
    server = LoopbackServer().start()
    try:
        rationale = "fine " + HOSTILE["set_title_bel"] + HOSTILE["clear_screen"]
        server.reset(default=Reply(json.dumps({"score": 7, "rationale": rationale, "evidence": [],
                                               "confidence": 0.9})))
        db = str(tmp_path / "live.db")
        src = tmp_path / "i.jsonl"
        src.write_text("".join(json.dumps({"id": f"q{i}", "input": "Q?", "output": "A."}) + "\n" for i in range(2)))
        import_file(open_store(db), src, GQ)
        model = "openai/[link=http://evil.example]judge[/link]"
        code, out, err = run_cli(["judge", "--rubric", GQ, "--model", model, "--api-base", server.url,
                                  "--api-key", "sk-test", "--db", db], capsys)
    finally:
        server.stop()
        import asyncio

        asyncio.run(release_litellm())
    assert code == 0, err
    assert "[link=http://evil.example]judge[/link]" in out and "\x1b]8;" not in out
    assert raw_controls(out + err) == []
    stored = [r for r in open_store(db).items.item_view(1, "x").judge.get("accuracy", []) if r.rationale]
    assert stored and "\x1b" in stored[-1].rationale  # kept as written: the guard is at display time


@pytest.mark.parametrize("colour", ["white on red link https://evil.example", "link https://evil.example",
                                    "red on link https://evil.example", "bold blink red"])
def test_a_band_colour_that_is_not_a_colour_is_never_a_style(colour: str) -> None:
    """Proves: a rubric's band colour becomes the label's style only when it is a colour (both
    sides of ``X on Y``); ``white on red link …`` would otherwise make the band's label a
    hyperlink to wherever the rubric's author wanted. It stands on the default colour instead."""
    from reviewer.tui import palette

    style = palette.label(colour)
    assert style == f"black on {palette.DEFAULT_LABEL}"
    out = _terminal_bytes(Text(" Low ", style=style))
    assert "\x1b]8;" not in out and "evil" not in out and "\x1b[5" not in out  # no link, no blink


def test_a_band_colour_that_is_a_colour_is_kept() -> None:
    """Proves: the guard keeps every colour a rubric may name (a name, hex, ``X on Y``)."""
    from reviewer.tui import palette

    assert palette.label("red") == "black on red"
    assert palette.label("#ff8800") == "black on #ff8800"
    assert palette.label("white on dark_red") == "white on dark_red"
