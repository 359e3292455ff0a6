"""The calibration screen's pictures as Rich renderables built from numbers, never from markup:
α with its interval on a bar against the human ceiling, and a shaded confusion matrix.

Each picture says its meaning twice — by colour and by glyph or printed number — so it reads the
same under ``NO_COLOR`` (Textual shows every colour as its grey there).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

#: Cells of an α bar: 0 at the first, 1 at the last (a twentieth of the scale each).
BAR_WIDTH = 21
#: Glyphs of the bar: the scale, the interval, α itself, the human ceiling, a value below 0.
TRACK, SPAN, POINT, CEILING, BELOW = "·", "━", "●", "┃", "◀"
#: Each status's colour on a bar (the status word beside it says the same).
STATUS_COLOUR = {"trusted": "green", "tentative": "yellow", "low_confidence": "red", "insufficient_data": "grey50"}
#: Shades of a confusion cell, from few items to the most any cell holds (the count is printed on it).
SHADES = ("", "white on #1d3b5a", "white on #285e8e", "black on #5b9bd5", "black on #a9cdee")


def _cell(x: float, width: int) -> int:
    """The bar cell of ``x`` on 0–1 (values outside are drawn at the end they passed)."""
    return round(min(max(x, 0.0), 1.0) * (width - 1))


def alpha_bar(alpha: float | None, ci: Sequence[float] | None, ceiling: float | None, status: str,
              width: int = BAR_WIDTH) -> Text:
    """α (``●``) with its interval (``━``) on a 0–1 scale, and the human ceiling (``┃``: the
    humans' α among themselves), coloured by ``status``; a value below 0 is drawn as ``◀`` at 0.
    No α: a dash."""
    if alpha is None:
        return Text("—")
    if width < 3:
        raise ValueError(f"an α bar needs at least 3 cells, not {width}")
    colour = STATUS_COLOUR.get(status, "")
    glyphs = [TRACK] * width
    styles = ["dim"] * width
    if ci is not None:
        for i in range(_cell(ci[0], width), _cell(ci[1], width) + 1):
            glyphs[i], styles[i] = SPAN, colour
    if ceiling is not None:
        c = _cell(ceiling, width)
        glyphs[c], styles[c] = (BELOW if ceiling < 0 else CEILING), "bold"
    p = _cell(alpha, width)
    glyphs[p], styles[p] = (BELOW if alpha < 0 else POINT), f"bold {colour}".strip()
    out = Text()
    for glyph, style in zip(glyphs, styles, strict=True):
        out.append(glyph, style)
    return out


def shade_of(count: int, most: int) -> str:
    """The style of a confusion cell holding ``count`` items when the fullest holds ``most``."""
    if count <= 0 or most <= 0:
        return SHADES[0]
    return SHADES[1 + min(len(SHADES) - 2, (count * (len(SHADES) - 1) - 1) // most)]


#: What the matrix's shading and underlining mean, under it.
MATRIX_KEY = "brighter: more · underlined: agree"


def confusion_table(levels: Sequence[float], table: Sequence[Sequence[int]], title: str) -> Table:
    """The judge × humans confusion matrix, each cell shaded by its share of the fullest and the
    diagonal's counts (judge and humans agree) underlined; every count printed on its cell."""
    most = max((int(c) for row in table for c in row), default=0)
    matrix = Table(title=title, caption=MATRIX_KEY, box=None, pad_edge=False, padding=(0, 0))
    matrix.add_column("", justify="right")
    for lv in levels:
        matrix.add_column(f" {lv:g} ", justify="right")
    for i, (lv, counts) in enumerate(zip(levels, table, strict=True)):
        cells = []
        for j, c in enumerate(counts):
            n = int(c)
            cell = Text(" ", style=shade_of(n, most))
            cell.append(str(n) if n else "·", "underline" if i == j else "")
            cells.append(cell.append(" "))
        matrix.add_row(f"{lv:g} ", *cells)
    return matrix
