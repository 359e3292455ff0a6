"""Corrected answers: the output as a person says it should have been (``e`` on the item screen).

A correction is append-only like every history row: a later one replaces nothing, it is newer.
It belongs to the content revision it corrects. Saving text identical to the output, or to the
person's own last correction of that revision, stores nothing (:func:`unchanged`). Blind means
blind, as for comments: a correction carries an opinion of the output, so while any of the judge's
scores is hidden from a reviewer they see only their own (:func:`reviewer.domain.comments.visible_comments`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from reviewer.domain.comments import Comment
from reviewer.domain.itemlimits import text_problem
from reviewer.safetext import safe

#: The longest correction stored, in characters: an item file's line holds at most 10 MB, so no
#: output is longer than this and a whole output can always be corrected.
MAX_CORRECTION_CHARS = 10_000_000


@dataclass(frozen=True, slots=True)
class Correction(Comment):
    """One ``item_correction`` row: its ``text`` the answer as it should have been, its
    ``revision`` the content revision whose output it corrects."""


def correction_problem(value: Any) -> str | None:
    """A correction: non-empty text of at most :data:`MAX_CORRECTION_CHARS` characters that UTF-8
    can store; else what is wrong, in one line."""
    return text_problem(value, "correction", MAX_CORRECTION_CHARS, "write the answer as it should have been")


def unchanged(text: str, output: str, corrections: Iterable[Correction], reviewer: str, revision: int) -> str | None:
    """Why saving ``text`` as ``reviewer``'s correction of ``revision`` would store nothing (it is
    the output — as stored, or as the editor shows it, its unsafe characters as placeholders — or
    their own last correction of that revision), else None."""
    if text == output or text == safe(output):
        return "the same as the output: nothing stored"
    mine = [c for c in corrections if c.reviewer == reviewer and c.revision == revision]
    if mine and mine[-1].text == text:
        return "the same as your last correction: nothing stored"
    return None


def latest(corrections: Sequence[Correction]) -> Correction | None:
    """The newest correction (they are kept oldest first), or None."""
    return corrections[-1] if corrections else None


#: The most lines a text may have for :func:`line_diff` to compare it: the item screen draws the
#: diff as it shows the item, and two texts of 2000 lines each, built so that no line is rare
#: enough to anchor the match, take about 50 ms (three times that at 3000 lines).
MAX_DIFF_LINES = 2000

#: how a line of :func:`line_diff` reads: in both texts, only in the output, only in the correction
Side = Literal["same", "output", "correction"]


def line_diff(output: str, corrected: str) -> list[tuple[Side, str]] | None:
    """The output against its correction line by line (difflib's matching blocks, a line found
    in more than 1% of a long text matched only around others): every line of both, in order,
    each said to be in both, only the output's, or only the correction's. None when either has
    more than :data:`MAX_DIFF_LINES` lines (a diff's time grows with the product of the two)."""
    a, b = output.splitlines(), corrected.splitlines()
    if max(len(a), len(b)) > MAX_DIFF_LINES:
        return None
    out: list[tuple[Side, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes():
        if op == "equal":
            out += [("same", line) for line in a[i1:i2]]
            continue
        out += [("output", line) for line in a[i1:i2]]
        out += [("correction", line) for line in b[j1:j2]]
    return out
