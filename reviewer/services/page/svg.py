"""Figures to inline SVG: matplotlib's SVG backend, set up so the same figures give the same
bytes, text stays text (escaped by matplotlib, never parsed as mathtext) and every chart reads
in black and white (each colour has its hatch)."""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING

from reviewer.safetext import safe_line

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Status → (fill colour, hatch): the hatch doubles the colour on a black-and-white print.
STATUS_STYLE = {"trusted": ("#2e7d32", ""), "tentative": ("#f9a825", "//"),
                "low_confidence": ("#c62828", "xx"), "insufficient_data": ("#9e9e9e", "..")}
#: Named colours a rubric's band may give (its ``color``), as the page draws them.
NAMED = {"green": "#2e7d32", "yellow": "#f9a825", "red": "#c62828", "orange": "#ef6c00", "blue": "#1565c0",
         "grey": "#9e9e9e", "gray": "#9e9e9e", "purple": "#6a1b9a", "cyan": "#00838f"}
_HEX = re.compile(r"#[0-9a-fA-F]{6}")
_DOCTYPE = re.compile(r"\A.*?(?=<svg)", re.S)


def colour(name: str | None) -> str:
    """A band's colour as CSS: a named one of :data:`NAMED` or ``#rrggbb``, else grey (a
    rubric's text never reaches the style sheet)."""
    if name and _HEX.fullmatch(name):
        return name.lower()
    return NAMED.get((name or "").strip().lower(), "#9e9e9e")


def label(value: object, width: int = 40) -> str:
    """Data as chart text: one safe line (no control characters), cut at ``width``."""
    text = safe_line(str(value)).replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def figure(width: float, height: float) -> tuple[Figure, Axes]:
    """A figure of ``width`` × ``height`` inches and its axes, on matplotlib's SVG canvas with the
    page's settings (matplotlib is imported here, on the first page written: ``calibrate``
    without ``--format html`` never loads it; no pyplot, so no global figure state)."""
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    matplotlib.rcParams.update({
        "svg.fonttype": "none",  # text as <text>: searchable, escaped, no glyph paths
        "text.parse_math": False,  # a "$" in a label is a dollar, not mathtext
        "text.usetex": False,
        "font.family": "sans-serif",
        "font.size": 9,
        "hatch.linewidth": 0.6,
        "axes.spines.top": False,
        "axes.spines.right": False,
    })
    fig = Figure(figsize=(width, height))
    FigureCanvasSVG(fig)
    return fig, fig.subplots()


def to_svg(fig: Figure, name: str) -> str:
    """The figure as an ``<svg>`` element to inline (no XML prolog). ``name`` is
    unique on the page: it salts the ids of clip paths and hatches so two charts never share one,
    and names the root element; no date is written, so the bytes depend on the figures alone."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": name, "svg.id": name}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None},
                    bbox_inches="tight")
    return _DOCTYPE.sub("", buf.getvalue(), count=1)


def rows_figure(rows: int, per_row: float = 0.36, base: float = 0.9) -> tuple[Figure, Axes, list[int]]:
    """A page-wide figure of ``rows`` horizontal rows: the figure, its axes and each row's y
    (the first row at the top)."""
    fig, ax = figure(7.6, base + per_row * max(rows, 1))
    return fig, ax, list(range(rows))[::-1]
