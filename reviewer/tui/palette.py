"""Styles that carry a meaning by their colour, and what stands in for the colour under NO_COLOR.

With ``NO_COLOR`` set Textual shows every colour as its grey: red text (``fail``, ``FLAG``, a
judge error) becomes dark grey on a dark background, and a ``Low`` band's black-on-red label black
on dark grey — the warnings were the hardest things on the screen to read. Without colour the
meaning goes into weight and reverse video instead: warnings bold (alarms reversed), band and
status labels reversed, the text itself saying which.

The app says which at start (:func:`use_color`, from Textual's own reading of ``NO_COLOR``).
"""

from __future__ import annotations

_color = True


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


def label(color: str) -> str:
    """A band's or status's label, on its colour (black on it, or ``white`` on a dark one)."""
    if not _color:
        return "reverse"
    return color if " on " in color else f"black on {color}"


def added() -> str:
    """A line a corrected answer adds to the output (a diff's ``+``)."""
    return "green" if _color else "underline"
