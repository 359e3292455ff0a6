"""Model outputs as markdown: headings, emphasis, lists, quotes, tables and highlighted code,
built into one Rich :class:`~rich.text.Text` — hostile text, so nothing is ever read as markup.

- Every piece of text goes through :func:`reviewer.safetext.safe` (escape sequences, bidi and
  zero-width characters shown as placeholders), and into a ``Text``, which Rich and Textual never
  parse as markup: ``[link=…]`` or ``[bold]`` in an output stays as typed.
- A link is never live: no ``link`` style (which a terminal turns into an OSC 8 hyperlink whose
  target the reader cannot see) — its text is shown with the address beside it, ``text ⟨url⟩``.
  An image is its alt text and address, ``[image: alt] ⟨url⟩``. Raw HTML is shown as text.
- Code blocks are highlighted by Pygments (through Rich's ``Syntax``); the fence's language
  names the lexer, an unknown or missing one leaves the code plain.

One render is one ``Text``, so the judge's evidence is highlighted on it the same way as on the
raw output (:func:`highlight`). Parsing a 50 KB output takes tens of milliseconds: renders are
cached by their source (:func:`render_markdown`), and the app renders an item's output in the
worker that loads it (:func:`warm`), so the UI thread finds it ready.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rich.text import Text

from reviewer.domain.marks import shown_span
from reviewer.safetext import safe, safe_line, safe_text

if TYPE_CHECKING:
    from markdown_it.token import Token

HEADING_STYLES = {"h1": "bold underline", "h2": "bold", "h3": "bold italic"}
INLINE_STYLES = {"strong": "bold", "em": "italic", "s": "strike", "link": "underline"}
CODE_INLINE = "bold cyan"
URL_STYLE = "dim"
EVIDENCE_STYLE = "black on yellow"
#: A reviewer's span mark (underlined too, so it shows without colour)
MARK_STYLE = "underline black on cyan"


@lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt

    # CommonMark with tables and strikethrough; raw HTML off (it is shown as the text it is)
    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


@lru_cache(maxsize=16)
def render_markdown(source: str) -> Text:
    """``source`` rendered (cached: callers must copy before changing it, as :func:`highlight`
    does)."""
    out = _Builder()
    out.blocks(_parser().parse(source))
    text = out.text
    text.rstrip()
    return text


def warm(*sources: str) -> None:
    """Render ``sources`` into the cache (called off the UI thread, where the item is loaded)."""
    for s in sources:
        if s:
            render_markdown(s)


def shown(source: str, raw: bool) -> Text:
    """The text as the output panel shows it: rendered markdown, or (``raw``) as written."""
    return safe_text(source) if raw else render_markdown(source).copy()


@lru_cache(maxsize=32)
def body(source: str, raw: bool, quotes: tuple[str, ...], marks: tuple[tuple[int, int], ...] = ()) -> Text:
    """What the output panel shows of ``source``: rendered (or ``raw``) with the evidence
    ``quotes`` highlighted, and the reviewer's span ``marks`` (offsets into ``source``) over them:
    as written, at their offsets (a style over the span, never markup); rendered, where offsets
    into the source do not hold, by their text as the evidence is. Cached and shared: never
    change the result."""
    text = highlight(shown(source, raw), list(quotes), raw)
    safe_source = safe(source) if marks and not raw else ""
    for start, end in marks:
        if raw:
            text.stylize(MARK_STYLE, *shown_span(source, start, end))
        else:
            mark_rendered(text, source, start, end, safe_source)
    return text


def _pattern(form: str) -> str | None:
    """A regex finding ``form`` across any run of whitespace (None: nothing but whitespace)."""
    words = form.split()
    return r"\s+".join(re.escape(w) for w in words) if words else None


def mark_rendered(text: Text, source: str, start: int, end: int, safe_source: str | None = None) -> None:
    """Draw the mark ``[start, end)`` of ``source`` on ``text``, its rendered markdown (changed in
    place). Offsets into the source do not hold there, so the mark is found by its text (as written,
    or as it renders: ``**Canberra**`` reads ``Canberra``), of any length: the occurrence that is
    the mark's in the source (the k-th, counted from the start). When the rendering does not keep
    every occurrence the source has, which one is the mark's is unknown: all are drawn.
    ``safe_source``: ``safe(source)`` when the caller has it (made once for all of an item's marks)."""
    said = source[start:end]
    safe_source = safe(source) if safe_source is None else safe_source
    at = shown_span(source, start, end)[0]
    plain = text.plain
    for form in dict.fromkeys((safe(said).strip(), render_markdown(said).plain.strip())):
        pattern = _pattern(form)
        if pattern is None:
            continue
        there = [m.span() for m in re.finditer(pattern, plain)]
        if not there:
            continue
        before = [m.start() for m in re.finditer(pattern, safe_source)]
        k = sum(s < at for s in before)
        for a, b in [there[k]] if len(there) == len(before) and k < len(there) else there:
            text.stylize(MARK_STYLE, a, b)
        return


def highlight(text: Text, quotes: list[str], raw: bool = True, style: str = EVIDENCE_STYLE) -> Text:
    """Highlight the judge's evidence ``quotes`` in ``text`` with ``style`` (changed in place and returned).

    A quote matches across any run of whitespace (a rendered paragraph may wrap where the source
    did not); on rendered markdown a quote written with markdown marks (``**Canberra**``) is
    looked for as it renders too."""
    for quote in quotes:
        if not isinstance(quote, str) or len(quote.strip()) < 4:
            continue
        forms = {safe(quote).strip()}
        if not raw:
            forms.add(render_markdown(quote).plain.strip())
        for form in forms:
            words = form.split()
            if words and len(form) >= 4:
                text.highlight_regex(r"\s+".join(re.escape(w) for w in words), style=style)
    return text


class _Builder:
    """Walks markdown-it's tokens and appends to one ``Text`` (keeping its own length and last
    characters: ``Text.plain`` joins the whole text on every read)."""

    def __init__(self) -> None:
        self.text = Text(end="")
        self.length = 0
        self.tail = ""
        #: per open list: its next number (None: a bullet list)
        self.lists: list[int | None] = []
        self.quote = 0
        self.line_start = 0

    def add(self, s: str | Text, style: str = "") -> None:
        if not s:
            return
        self.text.append(s, style=style or None)
        plain = s.plain if isinstance(s, Text) else s
        self.length += len(plain)
        self.tail = (self.tail + plain)[-2:]
        nl = plain.rfind("\n")
        if nl >= 0:
            self.line_start = self.length - len(plain) + nl + 1

    def _newline(self) -> None:
        if self.length and self.tail[-1:] != "\n":
            self.add("\n")

    def _gap(self) -> None:
        """End the block: a blank line before the next one."""
        self._newline()
        if self.length and self.tail != "\n\n":
            self.add("\n")

    def _prefix(self) -> None:
        if self.quote:
            self.add("▌ " * self.quote, style="dim")

    def blocks(self, tokens: list[Token]) -> None:
        for tok in tokens:
            kind = tok.type
            if kind == "inline":
                self.inline(tok.children or [])
            elif kind == "heading_open":
                self._prefix()
                self.add("#" * int(tok.tag[1:]) + " ", style="dim")
            elif kind == "heading_close":
                self.text.stylize(HEADING_STYLES.get(tok.tag, "bold"), self.line_start, self.length)
                self._gap()
            elif kind == "paragraph_open":
                if not tok.hidden:
                    self._prefix()
            elif kind == "paragraph_close":
                if tok.hidden:  # a tight list's item: one line each
                    self._newline()
                else:
                    self._gap()
            elif kind in ("bullet_list_open", "ordered_list_open"):
                self._newline()
                start = tok.attrs.get("start", 1) if kind == "ordered_list_open" else None
                self.lists.append(None if start is None else int(start))
            elif kind in ("bullet_list_close", "ordered_list_close"):
                self.lists.pop()
                if not self.lists:
                    self._gap()
            elif kind == "list_item_open":
                self._newline()
                self._prefix()
                number = self.lists[-1]
                indent = "  " * (len(self.lists) - 1)
                if number is None:
                    self.add(f"{indent}• ", style="bold")
                else:
                    self.add(f"{indent}{number}. ", style="bold")
                    self.lists[-1] = number + 1
            elif kind == "blockquote_open":
                self.quote += 1
            elif kind == "blockquote_close":
                self.quote -= 1
                self._gap()
            elif kind in ("fence", "code_block"):
                self._code(tok.content, tok.info.strip().split(" ")[0] if kind == "fence" else "")
            elif kind == "hr":
                self._prefix()
                self.add("─" * 40, style="dim")
                self._gap()
            elif kind == "tr_open":
                self._newline()
                self._prefix()
                self.cells = 0
            elif kind in ("th_open", "td_open"):
                if self.cells:
                    self.add(" │ ", style="dim")
                self.cells += 1
            elif kind == "thead_close":
                self.text.stylize("bold", self.line_start, self.length)
            elif kind == "table_close":
                self._gap()
            elif kind == "html_block":
                self._prefix()
                self.add(safe(tok.content), style=URL_STYLE)
                self._gap()

    def inline(self, children: list[Token]) -> None:
        styles: list[str] = []
        hrefs: list[tuple[str, int]] = []
        for tok in children:
            kind = tok.type
            style = " ".join(s for s in styles if s)
            if kind == "text":
                self.add(safe(tok.content), style=style)
            elif kind in ("softbreak", "hardbreak"):
                self.add("\n")
                self._prefix()
            elif kind == "code_inline":
                self.add(safe(tok.content), style=f"{style} {CODE_INLINE}".strip())
            elif kind == "html_inline":
                self.add(safe(tok.content), style=style)
            elif kind.endswith("_open"):
                name = kind[: -len("_open")]
                styles.append(INLINE_STYLES.get(name, ""))
                if name == "link":
                    hrefs.append((str(tok.attrs.get("href", "")), self.length))
            elif kind.endswith("_close"):
                name = kind[: -len("_close")]
                if styles:
                    styles.pop()
                if name == "link" and hrefs:
                    href, start = hrefs.pop()
                    label = self.text.plain[start:] if self.length - start <= len(href) else ""
                    if href and label != safe_line(href):  # an autolink shows its address once
                        self.add(f" ⟨{safe_line(href)}⟩", style=URL_STYLE)
            elif kind == "image":
                alt = "".join(c.content for c in tok.children or []) or tok.content
                self.add(f"[image: {safe_line(alt)}]", style=f"{style} italic".strip())
                src = str(tok.attrs.get("src", ""))
                if src:
                    self.add(f" ⟨{safe_line(src)}⟩", style=URL_STYLE)

    def _code(self, code: str, language: str) -> None:
        self._newline()
        self._prefix()
        self.add(f"┌ {safe_line(language) or 'code'}\n", style="dim")
        self.add(_highlighted(safe(code.rstrip("\n")), language.lower()))
        self.add("\n")
        self._prefix()
        self.add("└", style="dim")
        self._gap()


def _highlighted(code: str, language: str) -> Text:
    """``code`` (already made safe) highlighted by Pygments for ``language``; plain when no lexer
    knows the name (Rich's ``Syntax`` finds the lexer, and finds none for an unknown name)."""
    if not language:
        return Text(code)
    from rich.syntax import Syntax

    text = Syntax(code, language, theme="monokai", background_color="default").highlight(code)
    text.rstrip()
    text.end = ""
    return text
