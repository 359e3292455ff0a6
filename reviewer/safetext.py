"""Data made safe to show or export: the one place that decides how hostile text is displayed.

Model outputs, rationales, reasons, and reviewer, model and rubric names are written by others —
the outputs by the very systems under evaluation — so they are hostile by assumption. Shown raw,
an ESC sequence wipes the screen or sets the terminal title, a bidi override reorders what the
reviewer reads, and a name like ``[link=…]`` becomes a hyperlink when Rich or Textual reads it as
markup.

- :func:`safe` turns every control or invisible-and-harmful character into a visible placeholder
  (C0 controls as the Unicode control pictures ``␛ ␀ ␇ …``, DEL as ``␡``, C1 controls, bidi
  embeddings/overrides/isolates, zero-width spaces, lone surrogates and tag characters as
  ``⟨U+XXXX⟩``). ``\\n`` and ``\\t`` stay where the layout allows them (``newlines=True``), else
  they become ``␤`` and ``␉`` so a value stays on one line.
- :func:`safe_text` wraps the result in a :class:`rich.text.Text`, which neither Rich nor Textual
  parses as markup.
- :func:`csv_cell` and :func:`md_cell` do the same for exports: a CSV cell a spreadsheet would run
  as a formula gets a leading ``'``; a Markdown table cell has its pipes, newlines and markup
  escaped.

Pure: imports nothing of ours, and Rich only inside :func:`safe_text`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.text import Text

# Zero-width and invisible characters that hide or smuggle text (ZWJ/ZWNJ stay: scripts and emoji
# need them); bidi embeddings, overrides and isolates (the "Trojan Source" characters); line and
# paragraph separators; the interlinear annotation marks; the BOM inside text.
_INVISIBLE = "\u200b\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e\u061c\u200e\u200f\u2028\u2029\ufff9\ufffa\ufffb"
_BIDI = "\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f" + _BIDI + _INVISIBLE + "\ud800-\udfff\U000e0000-\U000e007f]")
_UNSAFE_LINE = re.compile(
    "[\x00-\x1f\x7f-\x9f" + _BIDI + _INVISIBLE + "\ud800-\udfff\U000e0000-\U000e007f]")

#: Cells a spreadsheet reads as a formula (OWASP's list): these get a leading apostrophe.
CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


@lru_cache(maxsize=512)
def placeholder(ch: str) -> str:
    """The visible stand-in for one unsafe character."""
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟ (␛ for ESC, ␤-like ␊ for LF)
    if code == 0x7F:
        return "␡"
    return f"⟨U+{code:04X}⟩"


def _sub(match: re.Match[str]) -> str:
    ch = match.group()
    if ch == "\n":
        return "␤"
    return placeholder(ch)


def safe(text: object, *, newlines: bool = True) -> str:
    """``text`` as a string with every control and harmful invisible character made visible.

    ``None`` is the empty string; anything else goes through ``str()``. With ``newlines=False``
    (table cells, titles, one-line errors) ``\\n`` becomes ``␤`` and ``\\t`` ``␉``.
    """
    if text is None:
        return ""
    s = text if isinstance(text, str) else str(text)
    pattern = _UNSAFE if newlines else _UNSAFE_LINE
    if pattern.search(s) is None:
        return s
    return pattern.sub(_sub, s)


def safe_line(text: object) -> str:
    """:func:`safe` for a one-line context: newlines and tabs shown as ``␤`` and ``␉``."""
    return safe(text, newlines=False)


def safe_text(text: object, style: str = "", *, newlines: bool = True) -> Text:
    """A Rich ``Text`` of :func:`safe` ``(text)``: never read as markup by Rich or Textual."""
    from rich.text import Text

    return Text(safe(text, newlines=newlines), style=style, end="")


def json_text(value: Any, **kwargs: Any) -> str:
    """``json.dumps(value)`` with text kept readable (no ``ensure_ascii``) but every character
    :func:`safe` would replace written as a ``\\uXXXX`` escape (JSON escapes the C0 controls
    itself): the same value once parsed, and no raw ESC, C1, bidi or invisible character on a
    terminal that shows the file."""
    import json

    return _UNSAFE.sub(_json_escape, json.dumps(value, ensure_ascii=False, **kwargs))


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # a surrogate pair, as JSON writes characters beyond the BMP
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet will not run: a string starting with ``= + - @``, tab, CR or LF
    gets a leading ``'`` (numbers are left alone). Control characters are kept as they are (CSV
    quotes them); the apostrophe is the documented marker that a cell was neutralised."""
    if isinstance(value, str) and value.startswith(CSV_FORMULA_START):
        return "'" + value
    return value


_MD_SPECIAL = re.compile(r"([\\`\[\]<>|])")


def md_cell(value: object) -> str:
    """A Markdown table cell: controls made visible, newlines as ``␤``, and the characters that
    end a cell or make a link, HTML or code (``| \\ ` [ ] < >``) backslash-escaped (emphasis
    characters are left: at worst they change the look)."""
    return _MD_SPECIAL.sub(r"\\\1", safe(value, newlines=False))
