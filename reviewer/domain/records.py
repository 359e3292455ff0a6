"""An item as an item file gives it: checked and ready to store (the records the store's import is
handed; :mod:`reviewer.io.itemfile` reads and checks files into them)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, overload


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


#: One person's score on one dimension: (reviewer, dimension, score, reason, tags, blind).
HumanEntry = tuple[str, str, float, str | None, list[str], bool]


@dataclass
class Row:
    """A checked row, ready to write."""

    line: int
    item_id: str
    data: dict[str, Any]
    content_hash: str
    judge_model: str | None
    judge: dict[str, JudgeEntry]
    #: (reviewer, dimension, score, reason, tags, blind); a :class:`PlainHuman` for the common row
    human: Sequence[HumanEntry]
    #: ``"audit": true``: the item belongs to the rubric's audit sample (drawn at random elsewhere).
    audit: bool = False
    #: (reviewer, dimension) → when the person gave that score (UTC), for entries that said so
    #: (``"at"``); the others are stamped with the import's time
    human_at: dict[tuple[str, str], datetime] | None = None


@dataclass(frozen=True, slots=True)
class PlainScores:
    """One score object of a file as the common row gives it: dimension → a whole number, each on
    its dimension's scale, with nothing beside it. Checked once per distinct object of a file and
    shared by every row that gives the same (read-only)."""

    #: the dimensions, in the file's order
    dims: tuple[str, ...]
    #: each dimension's score, as the full check gives it (a float)
    scores: tuple[float, ...]


class PlainJudge(dict[str, JudgeEntry]):
    """A row's judge scores when each is a plain number (no samples, rationale, evidence,
    confidence or error): the dimension → :class:`JudgeEntry` mapping the full check makes, plus
    ``key``, the scores as the file gave them (hashable: whoever derives something from the scores
    may remember it by this key). Shared by the rows that give the same scores: read-only."""

    __slots__ = ("key",)

    def __init__(self, key: tuple[tuple[str, int], ...]) -> None:
        super().__init__((dim_id, JudgeEntry(float(score), [])) for dim_id, score in key)
        self.key = key


class PlainHuman(Sequence[HumanEntry]):
    """A row's human entries when each is a person's plain scores (no reason, tags, blind or
    aggregate mark): the same entries, in the same order, as the full check's list (iterate it),
    kept as (reviewer, :class:`PlainScores`) pairs for whoever can use them whole."""

    __slots__ = ("by_person", "distinct", "dims", "_size")

    def __init__(self, by_person: list[tuple[str, PlainScores]]) -> None:
        self.by_person = by_person
        #: no person named twice
        self.distinct = len({who for who, _ in by_person}) == len(by_person)
        first = by_person[0][1].dims if by_person else ()
        #: the dimensions every person scored, in order, when all scored the same ones (else None)
        self.dims = first if all(s.dims == first for _, s in by_person) else None
        self._size = sum(len(s.dims) for _, s in by_person)

    def __iter__(self) -> Iterator[HumanEntry]:
        for who, s in self.by_person:
            for dim_id, score in zip(s.dims, s.scores, strict=True):
                yield (who, dim_id, score, None, [], False)

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> HumanEntry: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[HumanEntry]: ...
    def __getitem__(self, index: int | slice) -> HumanEntry | Sequence[HumanEntry]:
        return list(self)[index]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # a sequence compared by its entries, like a list


__all__ = ["HumanEntry", "JudgeEntry", "PlainHuman", "PlainJudge", "PlainScores", "Row"]
