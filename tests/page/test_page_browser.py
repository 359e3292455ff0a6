"""The calibration and report pages opened in a real browser (headless Chromium): no console
error, no request leaving the page, every chart laid out with a size; the screenshots are kept
beside the pages (``--basetemp`` to look at them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.page.browser import render


@pytest.mark.parametrize("name", ["calibrate", "report"])
def test_the_page_renders_whole_and_alone(demo: Path, name: str) -> None:
    """Proves: the page loads without an error or a request, and each chart has a size."""
    page = demo / f"{name}.html"
    seen = render(page, demo / f"{name}.png")
    assert seen.errors == []
    assert seen.requests == []
    assert seen.svgs, "the page drew no chart"
    assert [s for s in seen.svgs if s[1] < 50 or s[2] < 30] == []
    assert seen.png.startswith(b"\x89PNG")
    assert "<script" not in page.read_text(encoding="utf-8")  # readable with scripts off: there are none


def test_the_browser_check_sees_each_fault(tmp_path: Path) -> None:
    """Proves: the harness catches what it is there for: a console error, an uncaught exception,
    a request leaving the page and a chart with no size."""
    bad = tmp_path / "bad.html"
    bad.write_text("<!doctype html><img src='http://127.0.0.1:9/x.png'><svg id='empty' width='0' height='0'></svg>"
                   "<script>console.error('boom'); undefined_name();</script>", encoding="utf-8")
    seen = render(bad)
    assert any("boom" in e for e in seen.errors)
    assert any("undefined_name" in e or "Uncaught" in e for e in seen.errors)
    assert "http://127.0.0.1:9/x.png" in seen.requests
    assert ("empty", 0.0, 0.0) in seen.svgs
