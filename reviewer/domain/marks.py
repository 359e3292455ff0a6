"""Span marks: a reviewer's mark on a span of the text under review, attached to a dimension's
reason (the item screen's ``x``).

A mark is character offsets ``[start, end)`` into the text under review of one content revision
of an item — the output, or for a conversation without one, its last assistant message
(:func:`marked_source`) — checked ``0 ≤ start < end ≤ len(text)`` (:func:`span_problem`). Marks
are append-only; a revised item keeps its earlier revisions' marks as history, never drawn on the
new text (:func:`current_marks`). The marked text is stored beside the offsets, so an earlier
revision's mark says what it marked without that revision's content.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from reviewer.domain.provenance import iso
from reviewer.safetext import safe


@dataclass(frozen=True, slots=True)
class Mark:
    """One ``span_mark`` row."""

    pk: int
    item_pk: int
    #: the item's content revision whose text the offsets index
    revision: int
    dimension: str
    #: the author (a reviewer name, signed like a score)
    reviewer: str
    start: int
    end: int
    #: the marked text (``source[start:end]`` of that revision)
    text: str
    #: the author's score row on the dimension the mark was made beside (None: not scored yet)
    score_pk: int | None = None
    created_at: datetime | None = None


def under_review(conversation: list[dict[str, Any]]) -> int | None:
    """The index of the message an item-level judgement is about: the last assistant message."""
    return next((i for i in range(len(conversation) - 1, -1, -1)
                 if str(conversation[i].get("role", "")) == "assistant"), None)


def marked_source(output: str, conversation: list[dict[str, Any]] | None) -> str:
    """The text a mark's offsets index: the output, or for a conversation without one, its message
    under review (as the item screen's output panel shows it)."""
    if output or not conversation:
        return output or ""
    i = under_review(conversation)
    return "" if i is None else str(conversation[i].get("content", ""))


def span_problem(start: int, end: int, length: int) -> str | None:
    """Why ``[start, end)`` is no span of a text of ``length`` characters, or None."""
    if not 0 <= start < end <= length:
        return (f"a mark spans characters start to end with 0 ≤ start < end ≤ {length} (the text's length); "
                f"got {start} to {end}")
    return None


def current_marks(marks: Iterable[Mark], revision: int, reviewer: str | None = None) -> list[Mark]:
    """The marks drawn on the item's text now: those on its current ``revision`` (earlier ones are
    history), the ``reviewer``'s alone when given."""
    return [m for m in marks if m.revision == revision and (reviewer is None or m.reviewer == reviewer)]


def shown_span(source: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` of ``source`` as offsets into ``safe(source)``, the text as shown (a
    control character shows as a placeholder that may be longer than one character)."""
    a = len(safe(source[:start]))
    return a, a + len(safe(source[start:end]))


def mark_records(marks: Iterable[Mark], current: int) -> list[dict[str, Any]]:
    """An item's marks for export, oldest first: the span, its text, dimension, author, the revision
    it was made on (and whether that is the current one), and when."""
    return [{"start": m.start, "end": m.end, "text": m.text, "dimension": m.dimension, "author": m.reviewer,
             "revision": m.revision, "current_revision": m.revision == current, "created_at": iso(m.created_at)}
            for m in marks]
