"""Pair records of an item file: two items compared, people's verdicts and a judge's (the
contract is docs/formats.md, "Pair records"). Pure data: :mod:`reviewer.io.pairrow` reads and
checks them, the import writes them (:mod:`reviewer.store.pair_verdicts`)."""

from __future__ import annotations

from dataclasses import dataclass

#: A verdict: the item shown first (``a``) is better, the second (``b``), or neither.
WINNERS = ("a", "b", "tie")


@dataclass(frozen=True)
class PairVerdict:
    """One verdict on a pair: who gave it (a reviewer name or a judge model), the winner as
    shown (``a``, ``b`` or ``tie``) and the words given for it."""

    by: str
    winner: str
    reason: str | None = None


@dataclass(frozen=True)
class PairRecord:
    """One pair line of an item file: item ``a`` shown first, item ``b`` second (ids as the
    file gives them), the people's verdicts and at most one judge verdict."""

    line: int
    a: str
    b: str
    human: tuple[PairVerdict, ...] = ()
    judge: PairVerdict | None = None


@dataclass(frozen=True)
class PairLines:
    """An item file's pair records and what is wrong with its bad ones (``FILE:LINE: what``),
    handed to the import beside its rows: the file is refused whole if any is wrong."""

    records: tuple[PairRecord, ...] = ()
    errors: tuple[str, ...] = ()
    #: what messages call the file
    source: str = ""


__all__ = ["WINNERS", "PairLines", "PairRecord", "PairVerdict"]
