"""What the pages carry: every figure of ``--format json``, formatted as the terminal formats it;
data escaped everywhere, chart text included; the same bytes for the same report; and matplotlib
loaded only when a page is written."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewer.safetext import safe
from reviewer.services.page.calibration_page import calibration_page
from reviewer.services.page.report_page import report_page
from reviewer.services.report_render import fmt
from reviewer.services.reports import CalibrationReport, Confusion, DimensionEntry
from rubrics.loader import load_rubric_text
from tests.page.conftest import GQ, ROOT

HOSTILE = "</svg><script>alert(1)</script>"


def leaves(value: Any) -> Iterator[Any]:
    """Every number and string in a JSON document."""
    if isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v)
    elif value is not None and not isinstance(value, bool):
        yield value


@pytest.mark.parametrize("name", ["calibrate", "report"])
def test_the_page_carries_every_figure_of_the_json(demo: Path, name: str) -> None:
    """Proves: each number of ``--format json`` is on the page as the terminal writes it (three
    decimals, integers whole), and each string as text."""
    page = (demo / f"{name}.html").read_text(encoding="utf-8")
    data = json.loads((demo / f"{name}.json").read_text(encoding="utf-8"))
    values = list(leaves(data))
    assert len(values) > 50  # the check reads a real report
    missing = [v for v in values if (fmt(v) if not isinstance(v, str) else html.escape(safe(v))) not in page]
    assert missing == []


def test_the_calibrate_page_prints_what_the_terminal_prints(demo: Path) -> None:
    """Proves: the reasons, the reviewers' lines and the corrected estimates are on the page."""
    page = html.unescape((demo / "calibrate.html").read_text(encoding="utf-8"))
    assert "reviewers vs the others: ana" in page
    assert "Corrected estimates (judge on every item, people on the audit sample):" in page
    assert re.search(r"pass rate: judge \d\.\d{3} · people", page)


def _report(dim: str) -> CalibrationReport:
    figures: DimensionEntry = {
        "dimension": dim, "n": 40, "level": "ordinal", "alpha": 0.7, "alpha_ci": [0.6, 0.8], "alpha_humans": 0.9,
        "bias": -0.4, "status": "tentative", "reason": f"{dim} reason",
        "reviewers": [{"reviewer": HOSTILE, "n": 3, "bias": 0.2, "mae": None, "alpha_with_others": 0.5}]}
    return {"rubric": "hostile@1.0.0", "dataset": None, "sample": "all", "group_by": None, "human_aggregate": "mean",
            "normalise": "none", "models": [], "level": None, "bootstrap": 0, "revisions": "current",
            "dimensions": [figures]}


RUBRIC = """\
id: hostile
version: 1.0.0
name: Hostile
scale: {min: 1, max: 3}
bands:
  - {min: 0.5, label: "<script>band</script>", color: "red;background:url(http://evil.example)"}
  - {min: 0.0, label: low, color: green}
dimensions:
  - id: accuracy
    description: The facts are right.
    method: llm_judge
    weight: 1
    threshold: 50
    anchors:
      - {range: [1, 1], label: "<script>alert(2)</script>"}
      - {range: [2, 3], label: fine}
owner: tests
"""


def test_data_is_text_in_the_page_and_in_its_charts() -> None:
    """Proves: a dimension named ``</svg><script>…``, a reviewer so named, a level label and a band
    label ``<script>`` and a band colour smuggling CSS all end up as text: no tag opens, every
    chart is well-formed SVG, and the colour falls back to grey."""
    rubric = load_rubric_text(RUBRIC)
    conf: dict[str, Confusion] = {HOSTILE: {"levels": [1.0, 2.0, 3.0], "table": [[2, 0, 0], [0, 1, 0], [0, 0, 3]], "n": 6,
                                            "reliability": [{"level": 1.0, "n": 2, "mean_human": 1.0, "ci": [1.0, 1.0]},
                                                            {"level": 2.0, "n": 1, "mean_human": 2.0, "ci": None}]}}
    page = calibration_page(_report(HOSTILE), conf, rubric, [{"reviewer": HOSTILE, "n": 2, "mae": 0.5, "exact": 0.5,
                                                               "within_one": 1.0, "drift": 0.2,
                                                               "mae_by_week": {"2026-W01": 0.4, "2026-W02": 0.6}}])
    assert "<script" not in page and "evil.example" not in page
    assert "&lt;/svg&gt;&lt;script&gt;" in page and "&lt;script&gt;band" in page
    svgs = re.findall(r"<svg\b.*?</svg>", page, re.S)
    assert len(svgs) == page.count("<svg") == page.count("</svg>") == 6
    for svg in svgs:
        ET.fromstring(svg)  # raises on a tag the data opened
    assert any(HOSTILE in "".join(ET.fromstring(s).itertext()) for s in svgs)  # the name drawn, as text


def test_the_same_report_gives_the_same_bytes(demo: Path) -> None:
    """Proves: writing a page twice from one report gives identical files (no date, no random id)."""
    data = json.loads((demo / "report.json").read_text(encoding="utf-8"))
    assert report_page(data) == report_page(data)
    first = (demo / "calibrate.html").read_bytes()
    from tests.page.conftest import rubricate

    rubricate("calibrate", "--rubric", GQ, "--format", "html", "--out", str(demo / "again.html"),
              "--db", str(demo / "demo.db"))
    assert (demo / "again.html").read_bytes() == first


def _modules_after(argv: list[str]) -> set[str]:
    code = (f"import sys\nsys.argv={['rubricate', *argv]!r}\nfrom reviewer.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\nprint(' '.join(sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return set(out.stdout.split())


def test_only_a_page_loads_matplotlib(demo: Path) -> None:
    """Proves: ``calibrate`` as a table or JSON never imports matplotlib; writing the page does."""
    db = str(demo / "demo.db")
    for fmt_ in ("table", "json"):
        assert "matplotlib" not in _modules_after(["calibrate", "--rubric", GQ, "--format", fmt_, "--db", db,
                                                   "--bootstrap", "0"])
    assert "matplotlib" in _modules_after(["calibrate", "--rubric", GQ, "--format", "html", "--db", db,
                                           "--bootstrap", "0", "--out", str(demo / "lean.html")])


def test_the_report_page_leads_with_the_rubric_headline(demo: Path) -> None:
    """Proves: where a rubric names a headline (REVAL's treatment parity), the page opens with it,
    its band as a chip and the lowest pair, before any dimension."""
    rep = json.loads((demo / "report.json").read_text(encoding="utf-8"))
    rep["headline"] = {"dimension": "parity", "name": "Treatment parity", "mean": 0.912, "band": "High", "n": 14,
                       "lowest": {"group": "frame-03", "score": 0.61, "band": "Low"}}
    page = report_page(rep, load_rubric_text(RUBRIC.replace("<script>band</script>", "High")))
    lead = page.index("Treatment parity: 0.912")
    assert lead < page.index("<h2>Dimensions") and "lowest frame-03 0.610" in page[lead:]
    assert "background:#9e9e9e" in page[lead:page.index("<h2>Dimensions")]  # High's colour here is not a colour


@pytest.mark.filterwarnings("ignore:Glyph 9216")  # the forged name's NUL, drawn as ␀
def test_charts_drawn_in_workers_are_the_charts_drawn_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """Proves: the page is the same bytes whether its charts are drawn in worker processes or in
    this one, and a dimension named like a chart's placeholder stays text (it cannot pull a chart
    into its place)."""
    from reviewer.services.page import drawing

    forged = "\x00chart:0\x00"
    rubric = load_rubric_text(RUBRIC)
    conf: dict[str, Confusion] = {
        d: {"levels": [1.0, 2.0, 3.0], "table": [[2, 0, 0], [0, 1, 0], [0, 0, 3]], "n": 6,
            "reliability": [{"level": 1.0, "n": 2, "mean_human": 1.5, "ci": [1.0, 2.0]}]}
        for d in (forged, "b", "c", "d")}
    report = _report(forged)
    monkeypatch.setattr(drawing, "PARALLEL_FROM", 10**9)
    here = calibration_page(report, conf, rubric)
    monkeypatch.setattr(drawing, "PARALLEL_FROM", 1)
    calls: list[int] = []
    from concurrent.futures import ProcessPoolExecutor as real

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(drawing, "ProcessPoolExecutor", counted)
    assert calibration_page(report, conf, rubric) == here
    assert calls == [1]  # the second page was drawn by the workers
    assert "\x00" not in here and here.count("<svg") == 3 + 2 * len(conf)
