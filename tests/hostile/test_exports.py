"""Exports: CSV formula cells neutralised, Markdown table cells escaped, HTML escaped.

Each case shows what the raw value would do (a spreadsheet formula, a broken or extra table
column, a live link or tag) and that the export does not.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import cast

import pytest

from reviewer.safetext import CSV_FORMULA_START, csv_cell, md_cell
from reviewer.services.importing import import_file
from reviewer.services.report_render import (
    calibration_html,
    calibration_markdown,
    run_report_markdown,
)
from reviewer.services.reports import CalibrationReport, RunReport
from reviewer.store import open_store
from tests.cli import run_cli
from tests.hostile.harness import HOSTILE, Case, ids, raw_controls

GQ = "general-quality@1.0.0"

FORMULAS = [
    Case("equals", "=1+1 would compute", ("=1+1",)),
    Case("hyperlink", "=HYPERLINK(...) would make a live link", ('=HYPERLINK("http://evil.example","open")',)),
    Case("dde", "a DDE payload would run a program", ("=cmd|' /C calc'!A0",)),
    Case("plus", "+ starts a formula", ("+1+cmd|' /C calc'!A0",)),
    Case("minus", "- starts a formula", ("-2+3",)),
    Case("at", "@ starts a formula (Lotus syntax)", ("@SUM(A1:A9)",)),
    Case("tab", "a leading tab hides a formula", ("\t=1+1",)),
    Case("cr", "a leading CR hides a formula", ("\r=1+1",)),
    Case("lf", "a leading LF hides a formula", ("\n=1+1",)),
]


@pytest.mark.parametrize("case", FORMULAS, ids=ids(FORMULAS))
def test_csv_formula_cells_get_a_leading_apostrophe(case: Case) -> None:
    """Proves: a cell a spreadsheet would run starts with ``'`` after csv_cell (it started with a
    formula character before), and the original is still there after the apostrophe."""
    raw = case.args[0]
    assert raw.startswith(CSV_FORMULA_START)  # the failure without the guard
    cell = csv_cell(raw)
    assert cell == "'" + raw


@pytest.mark.parametrize("value", ["plain", "a=b", "x-1", "", 7, -2.5, None, True], ids=repr)
def test_harmless_cells_and_numbers_are_left_alone(value: object) -> None:
    """Proves: the guard changes nothing else (numbers, even negative ones, stay numbers)."""
    assert csv_cell(value) == value


def _import(tmp_path: Path, rows: list[dict[str, object]]) -> str:
    db = str(tmp_path / "x.db")
    src = tmp_path / "x.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    import_file(open_store(db), src, GQ, dataset="@SUM(A1)")
    return db


def test_csv_export_neutralises_every_formula_cell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Proves, end to end: `rubricate export --format csv` of items whose id, dataset and judge
    error start with formula characters has no cell a spreadsheet would run; the JSON Lines
    export keeps the values exactly (it is not a spreadsheet format)."""
    rows: list[dict[str, object]] = [
        {"id": '=HYPERLINK("http://evil.example","x")', "output": "o",
         "judge": {"model": "m", "scores": {"accuracy": {"error": "-bad reply", "raw_reply": "=1"}}}},
        {"id": "+1", "output": "o"}, {"id": "ok-id", "output": "o"}]
    db = _import(tmp_path, rows)
    code, out, err = run_cli(["export", "--format", "csv", "--db", db], capsys)
    assert code == 0, err
    cells = [c for row in csv.reader(io.StringIO(out)) for c in row]
    assert not [c for c in cells if c.startswith(CSV_FORMULA_START)], cells
    assert "'=HYPERLINK(\"http://evil.example\",\"x\")" in cells and "'+1" in cells and "'@SUM(A1)" in cells
    assert "ok-id" in cells  # untouched
    code, out, err = run_cli(["export", "--db", db], capsys)
    ids_out = {json.loads(line)["id"] for line in out.splitlines()}
    assert '=HYPERLINK("http://evil.example","x")' in ids_out and "+1" in ids_out


def test_csv_export_to_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Proves: --out writes the same neutralised cells as standard output."""
    db = _import(tmp_path, [{"id": "-1", "output": "o"}])
    out_file = tmp_path / "e.csv"
    code, _, err = run_cli(["export", "--format", "csv", "--out", str(out_file), "--db", db], capsys)
    assert code == 0, err
    cells = [c for row in csv.reader(out_file.open(encoding="utf-8", newline="")) for c in row]
    assert "'-1" in cells and "-1" not in cells


MD_CELLS = [
    Case("pipe", "a pipe would start a new column", ("a|b",), {"raw_breaks": True}),
    Case("newline", "a newline would end the table row", ("a\nb",), {"raw_breaks": True}),
    Case("link", "[x](url) would be a live link", ("[click](javascript:alert(1))",), {}),
    Case("html", "<script> would be raw HTML in the page", ("<script>alert(1)</script>",), {}),
    Case("image", "![x](url) would load a remote image", ("![x](http://evil.example/p.png)",), {}),
    Case("code", "a backtick would open a code span across cells", ("`a|b`",), {"raw_breaks": True}),
    Case("escape", "ESC would reach a terminal showing the file", (HOSTILE["clear_screen"],), {}),
    Case("bidi", "a bidi override would reorder the row", (HOSTILE["bidi_override"],), {}),
    Case("backslash", "a backslash in data is kept as a backslash (escaped itself)", ("a\\|b",), {}),
]


def _columns(row: str) -> int:
    """Markdown table columns in ``row``: unescaped pipes minus one."""
    n, i = 0, 0
    while i < len(row):
        if row[i] == "\\":
            i += 2
            continue
        n += row[i] == "|"
        i += 1
    return n - 1


def _unescaped(text: str) -> list[str]:
    """The characters in ``text`` that start a link, tag or code span, not backslash-escaped."""
    found, i = [], 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] in "[]<>`":
            found.append(text[i])
        i += 1
    return found


@pytest.mark.parametrize("case", MD_CELLS, ids=ids(MD_CELLS))
def test_markdown_cells_are_escaped(case: Case) -> None:
    """Proves: a table row built from md_cell keeps its columns, its line, and no live markup;
    built from the raw value it would not."""
    raw = case.args[0]
    unguarded, guarded = f"| {raw} | x |", f"| {md_cell(raw)} | x |"
    if case.extra.get("raw_breaks"):
        assert "\n" in unguarded or _columns(unguarded) != 2  # the failure
    assert "\n" not in guarded and _columns(guarded) == 2
    assert raw_controls(guarded) == []
    if _unescaped(raw):
        assert _unescaped(unguarded)  # the failure: a live link, tag or code span
    assert _unescaped(guarded) == []


def test_calibration_markdown_with_hostile_dimension_and_reason() -> None:
    """Proves: the calibration Markdown table keeps its column count whatever the data says."""
    # only the keys the table shows: the renderer reads no others
    report = cast(CalibrationReport, {"rubric": "r@1|x", "sample": "all", "pairs": None,
                  "dimensions": [{"dimension": "acc|uracy", "n": 3, "status": "trusted",
                                  "reason": "line one\nline two | [link](http://evil.example) <b>"}]})
    md = calibration_markdown(report)
    rows = [line for line in md.splitlines() if line.startswith("|")]
    header_cols = _columns(rows[0])
    assert all(_columns(r) == header_cols for r in rows), rows
    assert "<b>" not in md and _unescaped(md) == []


def test_run_report_markdown_with_a_hostile_model() -> None:
    """Proves: the run report's leaderboard keeps its columns with a model named with pipes."""
    rep = cast(RunReport, {"rubric": "r@1", "overall_mean": 0.5, "overall_band": "High", "safety": {},
           "dimensions": [{"dimension": "a", "mean": 1.0, "band": "x|y", "pass_rate": 1.0, "judge_errors": 0,
                           "cost_usd": 0.0}],
           "leaderboard": [{"model": "evil|model\n| injected | row |", "n": 1, "mean_overall": 0.5,
                            "pass_rate": 1.0}]})
    md = run_report_markdown(rep)
    table = [line for line in md.splitlines() if line.startswith("|")]
    assert len(table) == 6  # two headers, two rules, one row each: no injected row
    assert all(_columns(r) in (4, 6) for r in table)


def test_calibration_html_escapes_tags_and_controls() -> None:
    """Proves: dimension names and reasons go into the HTML page escaped, controls made visible."""
    report = cast(CalibrationReport, {"rubric": "r@1", "sample": "all",
                  "dimensions": [{"dimension": "<script>alert(1)</script>", "status": "trusted",
                                  "reason": "<img src=x onerror=alert(1)>" + HOSTILE["clear_screen"]}]})
    page = calibration_html(report, {"<b>dim</b>": {"levels": [1, 2], "table": [[1, 0], [0, 1]], "n": 2,
                                                  "reliability": [{"level": 1, "n": 1, "mean_human": 1.0, "ci": None}]}})
    assert "<script>alert" not in page and "<img" not in page and "<b>dim" not in page
    assert "&lt;script&gt;" in page and raw_controls(page) == []


def test_report_html_escapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Proves, end to end: `report --format html` on items judged by a model named like a tag."""
    db = _import(tmp_path, [{"id": "a", "output": "o",
                             "judge": {"model": "<script>x</script>", "scores": {"accuracy": 7}}}])
    code, out, err = run_cli(["report", "--rubric", GQ, "--format", "html", "--db", db], capsys)
    assert code == 0, err
    assert "<script>x" not in out and raw_controls(out) == []
