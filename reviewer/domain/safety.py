"""Safety: each flag's status, and the item's, derived from the decisions (never from a stored
status column).

A flag starts **open**. Its decisions, oldest first: ``confirm`` makes it **confirmed``;
``escalate`` makes it **escalated** and starts the sign-offs afresh; ``clear`` is a sign-off.
Sign-offs count distinct people since the flag was last escalated or confirmed. A flag is
**cleared** once it has the rubric's ``safety_signoffs`` distinct sign-offs and at least one of them
is not a person who escalated it (whoever escalated cannot alone clear it); until then it keeps
its earlier status.

An item's safety status over all its flags (of the current revision): **open** while any flag
is open, else **escalated** while any is escalated, else **confirmed** if any is confirmed,
else **cleared** when every flag is cleared, else **none** (no flag). The safety cap applies to
every status but cleared and none: an undecided or confirmed flag caps the overall.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reviewer.domain.rows import DecisionRow, FlagRow

DECIDED = {"clear": "cleared", "escalate": "escalated", "confirm": "confirmed"}
ITEM_ORDER = ("open", "escalated", "confirmed", "cleared")


@dataclass(frozen=True)
class FlagState:
    """One flag's derived status."""

    flag: FlagRow
    status: str
    #: distinct people who cleared it since it was last escalated or confirmed
    signoffs: int
    decisions: tuple[DecisionRow, ...] = ()


@dataclass(frozen=True)
class SafetyState:
    """An item's safety status over all its flags."""

    status: str
    flags: tuple[FlagState, ...] = ()

    @property
    def capped(self) -> bool:
        """Whether the rubric's safety cap applies (a flag open, escalated or confirmed)."""
        return self.status not in ("none", "cleared")

    @property
    def pending(self) -> bool:
        """Whether some flag waits for a safety decision (the safety queue serves it)."""
        return self.status in ("open", "escalated")


def flag_status(flag: FlagRow, decisions: Iterable[DecisionRow], signoffs_needed: int = 1) -> FlagState:
    """A flag's status from its decisions (any order in; folded oldest first)."""
    mine = tuple(sorted((d for d in decisions if d.flag_pk == flag.pk), key=lambda d: d.pk))
    status, clearers, escalators = "open", set[str](), set[str]()
    for d in mine:
        if d.decision == "clear":
            clearers.add(d.reviewer)
            if len(clearers) >= max(1, signoffs_needed) and clearers - escalators:
                status = "cleared"
        elif d.decision in DECIDED:
            status = DECIDED[d.decision]
            clearers = set()
            if d.decision == "escalate":
                escalators.add(d.reviewer)
    return FlagState(flag, status, len(clearers), mine)


def item_safety(flags: Iterable[FlagRow], decisions: Iterable[DecisionRow], signoffs_needed: int = 1) -> SafetyState:
    """The item's safety status over every flag given."""
    decisions = list(decisions)
    states = tuple(flag_status(f, decisions, signoffs_needed) for f in sorted(flags, key=lambda f: f.pk))
    if not states:
        return SafetyState("none")
    found = {s.status for s in states}
    return SafetyState(next(s for s in ITEM_ORDER if s in found), states)
