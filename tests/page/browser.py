"""A real browser for the page tests: a file opened in headless Chromium through the tests' one
DevTools client (:mod:`tests.devtools`), with every console error, uncaught exception and
request it recorded, every ``<svg>`` the page lays out measured, and a screenshot."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from tests.devtools import Browser, chromium

#: every svg element's id and laid-out size, in CSS pixels
SVG_SIZES = ("[...document.querySelectorAll('svg')].map(s => {const r = s.getBoundingClientRect();"
             " return [s.id, r.width, r.height]})")


@dataclass
class Rendered:
    """What the browser saw on one page."""

    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    #: (id, width, height) of every svg element, in CSS pixels as laid out
    svgs: list[tuple[str, float, float]] = field(default_factory=list)
    png: bytes = b""


async def _render(exe: str, url: str, width: int, height: int) -> Rendered:
    browser = Browser(exe)
    try:
        await browser.start(width, height)
        await browser.viewport(width, height)
        await browser.open(url)
        await browser.loaded(url)
        sizes = await browser.eval(SVG_SIZES)
        png = await browser.png(whole=True)
        return Rendered(errors=list(browser.errors), requests=[r for r in browser.requests if r != url],
                        svgs=[(str(s[0]), float(s[1]), float(s[2])) for s in sizes], png=png)
    finally:
        await browser.close()


def render(path: Path, png: Path | None = None, width: int = 1400, height: int = 4000) -> Rendered:
    """Open ``path`` in headless Chromium at ``width`` × ``height``; the screenshot goes to ``png``."""
    out = asyncio.run(_render(chromium(), path.resolve().as_uri(), width, height))
    if png is not None:
        png.write_bytes(out.png)
    return out
