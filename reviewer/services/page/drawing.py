"""The page's charts drawn on every core: a page names its charts where they go, then draws them
all at once — in worker processes when there are many and more than one core, in this process
otherwise — and puts each one (or the sentence saying why there is none) in its place.

matplotlib spends its time laying out and drawing text, one figure at a time in one process; a
calibration page of ten dimensions holds some twenty-five figures. The drawing functions are
pure (plain figures in, an SVG string out, the same bytes wherever they run), so drawing them in
forked workers changes nothing on the page but the time it takes.
"""

from __future__ import annotations

import multiprocessing
import os
import re
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from reviewer.services.page.document import chart

#: Below this many charts the workers' start costs more than they save.
PARALLEL_FROM = 6
#: A placeholder: NUL never survives into the page's escaped text, so data cannot forge one.
_SLOT = re.compile("\x00chart:(\\d+)\x00")

#: A chart to draw: a module-level drawing function with its figures bound
#: (:func:`functools.partial`, which a worker process can be handed).
Draw = Callable[[], "str | None"]


def _draw(job: Draw) -> str | None:
    return job()


def draw_all(jobs: list[Draw]) -> list[str | None]:
    """Each job's SVG (or None), in the jobs' order."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if len(jobs) < PARALLEL_FROM or cores < 2:
        return [_draw(j) for j in jobs]
    # matplotlib imported once here, before the fork: the workers inherit it instead of each
    # importing it again
    import matplotlib.backends.backend_svg
    import matplotlib.figure  # noqa: F401

    with ProcessPoolExecutor(max_workers=min(cores, len(jobs)), mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(_draw, jobs))


class Charts:
    """The charts of one page: :meth:`add` holds a chart's place in the body, :meth:`fill` draws
    them all and puts each in its place."""

    def __init__(self) -> None:
        self._jobs: list[Draw] = []
        self._words: list[tuple[str, str]] = []

    def add(self, draw: Draw, caption: str, absent: str) -> str:
        """The place of the chart ``draw()`` draws, with its ``caption``, or ``absent`` (the
        sentence saying why there is none) when it draws nothing."""
        self._jobs.append(draw)
        self._words.append((caption, absent))
        return f"\x00chart:{len(self._jobs) - 1}\x00"

    def fill(self, body: str) -> str:
        """``body`` with every chart drawn in its place."""
        svgs = draw_all(self._jobs)
        return _SLOT.sub(lambda m: chart(svgs[int(m[1])], *self._words[int(m[1])]), body)
