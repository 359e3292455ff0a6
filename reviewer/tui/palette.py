"""Styles that carry a meaning by their colour, and what stands in for the colour under NO_COLOR.

With ``NO_COLOR`` set Textual shows every colour as its grey: red text (``fail``, ``FLAG``, a
judge error) becomes dark grey on a dark background, and a ``Low`` band's black-on-red label black
on dark grey — the warnings were the hardest things on the screen to read. Without colour the
meaning goes into weight and reverse video instead: warnings bold (alarms reversed), band and
status labels reversed, the text itself saying which.

The app says which at start (:func:`use_color`, from Textual's own reading of ``NO_COLOR``).
"""

from __future__ import annotations

from rich.color import Color, ColorParseError

_color = True

#: The colour a label stands on when its rubric names none, or names something that is not a colour.
DEFAULT_LABEL = "white"


def use_color(on: bool) -> None:
    """Colour on (the default) or off (``NO_COLOR``); set by the app when it starts."""
    global _color
    _color = on


def fail() -> str:
    """A failed verdict or a judge's error, in running text."""
    return "red" if _color else "bold"


def alarm() -> str:
    """A safety flag, an escalation, an error: the word that must be seen first."""
    return "bold red" if _color else "bold reverse"


def alarm_text() -> str:
    """The text a safety detector matched, marked where it stands."""
    return "bold white on red" if _color else "bold reverse"


def _is_color(name: str) -> bool:
    """Whether Rich reads ``name`` as one colour (and nothing else: no link, no attribute)."""
    try:
        Color.parse(name.strip())
    except ColorParseError:
        return False
    return True


def label(color: str) -> str:
    """A band's or status's label, on its colour (black on it, or ``white`` on a dark one).

    The colour comes from a rubric file, so it is made a style only when it is a colour
    (``X on Y``: both sides): anything else — ``white on red link https://…`` would make the
    label a hyperlink — stands on :data:`DEFAULT_LABEL` instead."""
    if not _color:
        return "reverse"
    fore, on, back = color.partition(" on ")
    if on and _is_color(fore) and _is_color(back):
        return f"{fore.strip()} on {back.strip()}"
    if not on and _is_color(color):
        return f"black on {color.strip()}"
    return f"black on {DEFAULT_LABEL}"


def added() -> str:
    """A line a corrected answer adds to the output (a diff's ``+``)."""
    return "green" if _color else "underline"
