"""An item as an item file gives it: checked and ready to store (the records the store's import is
handed; :mod:`reviewer.io.itemfile` reads and checks files into them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class JudgeEntry:
    """One dimension's judge score from the file (or the error recorded elsewhere). Read-only
    once checked: the rows of one file share the entry of a plain score."""

    score: float | None
    samples: list[float]
    rationale: str = ""
    evidence: list[Any] = field(default_factory=list)
    confidence: float | None = None
    error: str | None = None
    raw_reply: str | None = None


@dataclass
class Row:
    """A checked row, ready to write."""

    line: int
    item_id: str
    data: dict[str, Any]
    content_hash: str
    judge_model: str | None
    judge: dict[str, JudgeEntry]
    #: (reviewer, dimension, score, reason, tags, blind)
    human: list[tuple[str, str, float, str | None, list[str], bool]]
    #: ``"audit": true``: the item belongs to the rubric's audit sample (drawn at random elsewhere).
    audit: bool = False


__all__ = ["JudgeEntry", "Row"]
