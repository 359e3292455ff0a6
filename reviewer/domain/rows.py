"""The rows an item's state is folded from, as plain records (the store fills them; nothing here
knows a table or a session). ``revision`` is the item's content revision the row was written for."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class HumanRow:
    """One ``human_score`` row: a score, an agree, a revision, an adjudication, or an undo (no score)."""

    pk: int
    dimension: str
    reviewer: str
    score: float | None
    kind: str = "score"
    blind: bool = False
    revision: int = 1
    reason: str | None = None
    tags: tuple[str, ...] = ()
    sample: str | None = None
    created_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class JudgeRow:
    """One ``judge_score`` row of one model (``model`` None: a judge with no model name)."""

    pk: int
    dimension: str
    model: str | None
    score: float | None
    normalised: float | None = None
    error: str | None = None
    not_applicable: bool = False
    std: float | None = None
    turn: int | None = None
    revision: int = 1


@dataclass(frozen=True, slots=True)
class FlagRow:
    """One ``safety_flag`` row (its stored ``status`` column is never read: status is derived)."""

    pk: int
    gate: str
    detector: str = ""
    revision: int = 1


@dataclass(frozen=True, slots=True)
class DecisionRow:
    """One ``safety_decision`` row: ``decision`` is clear, escalate or confirm."""

    pk: int
    flag_pk: int
    reviewer: str
    decision: str


@dataclass
class ItemRows:
    """Everything stored about one item that its state depends on."""

    item_pk: int
    revision: int = 1
    human: list[HumanRow] = field(default_factory=list)
    judge: list[JudgeRow] = field(default_factory=list)
    flags: list[FlagRow] = field(default_factory=list)
    decisions: list[DecisionRow] = field(default_factory=list)


def revision_of(row: Any, current: int = 1) -> int:
    """A stored row's content revision. A store whose tables do not record revisions yet (no
    ``revision`` attribute) cannot tell: its rows count as the ``current`` revision's."""
    value = getattr(row, "revision", None)
    return current if value is None else int(value)
