"""Comments on an item: what a person wrote about it for later reviewers, and who may see them.

Comments are append-only (a correction is a new comment). Blind means blind: a comment can
carry an opinion of the judge's scores (or a peer's), so while any of the judge's scores is still
hidden from a reviewer (a blind session, before they have scored or revealed), they see only
their own comments.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar


@dataclass(frozen=True, slots=True)
class Comment:
    """One ``item_comment`` row."""

    pk: int
    item_pk: int
    reviewer: str
    text: str
    #: the item's content revision the comment was written on
    revision: int = 1
    created_at: datetime | None = None


#: A comment, or a row shaped like one (a corrected answer: :mod:`reviewer.domain.corrections`).
S = TypeVar("S", bound="Comment")


def visible_comments(comments: Iterable[S], viewer: str, judge_hidden: bool) -> list[S]:
    """The comments (or corrected answers) ``viewer`` may read now: all of them, or only their own
    while the judge is hidden from them (blind, not yet scored)."""
    return [c for c in comments if not judge_hidden or c.reviewer == viewer]
