"""The safety status of one flag, derived from its decisions (pure: plain values in and out).

A flag starts ``open``. Its decisions, oldest first, move it:

- ``escalate`` → ``escalated``. An escalated flag never returns to ``open``: until it is cleared
  or confirmed it stays escalated, however many clearances are still missing.
- ``clear`` → ``cleared`` once the rubric's ``safety_signoffs`` **distinct people** — logins: the
  database login, or the OS account on SQLite, that wrote each decision — have cleared it since its
  last escalation, and at least one of them is not a person who escalated it (whoever escalated
  cannot be the only sign-off that clears it). Until then the flag keeps its state and shows the
  count in logins, as "1 of 2 logins".
- ``confirm`` → ``confirmed`` (blocked); one safety reviewer's confirmation is enough and final.
- ``withdraw`` (only the reviewer who raised a reviewer flag, before any decision) → ``withdrawn``.

An item's safety status over all its flags (of the current content revision; withdrawn flags do
not count): **open** while any flag is open, else **escalated** while any is escalated, else
**confirmed** if any is confirmed, else **cleared** when every flag is cleared, else **none** (no
flag). The safety cap applies to every status but cleared and none: an undecided or confirmed flag
caps the overall. The store never reads or updates a stored status column: it derives it here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reviewer.domain.rows import DecisionRow, FlagRow

#: states in which a flag still waits for a safety decision
WAITING = ("open", "escalated")


@dataclass(frozen=True)
class SafetyStatus:
    """Where a flag stands and how many sign-offs it has."""

    state: str
    #: distinct people whose clearance counts towards closing the flag
    signoffs: int
    #: the rubric's ``safety_signoffs``
    needed: int
    #: who escalated it, in order
    escalated_by: tuple[str, ...] = ()
    #: who cleared it since its last escalation, in order
    cleared_by: tuple[str, ...] = ()

    @property
    def waiting(self) -> bool:
        """Whether the flag still needs a decision."""
        return self.state in WAITING

    def why_waiting(self) -> str | None:
        """Why a flag with all its sign-offs still waits, in words (None when the count says it):
        every clearance is by a person who escalated it."""
        if self.state != "escalated" or self.signoffs < self.needed:
            return None
        return (f"cleared only by {', '.join(self.cleared_by)}, who escalated it: whoever escalated a flag "
                "cannot be the only one to clear it; another safety reviewer must clear it")

    def signoff_text(self) -> str:
        """The sign-offs in words, e.g. ``1 of 2 logins``."""
        return signoff_words(self.signoffs, self.needed)


def signoff_words(signoffs: int, needed: int) -> str:
    """Sign-offs in words: ``1 of 2 logins`` (a person is a login: what is counted is named)."""
    return f"{signoffs} of {needed} {'login' if needed == 1 else 'logins'}"


def safety_status(decisions: Iterable[tuple[str, str]], needed: int) -> SafetyStatus:
    """Fold ``(person, decision)`` pairs, oldest first, into the flag's :class:`SafetyStatus`."""
    needed = max(1, needed)
    state = "open"
    clearers: list[str] = []
    escalators: list[str] = []
    for person, decision in decisions:
        if state in ("confirmed", "withdrawn"):
            break
        if decision == "confirm":
            state = "confirmed"
        elif decision == "withdraw":
            state = "withdrawn"
        elif decision == "escalate":
            state, clearers = "escalated", []
            if person not in escalators:
                escalators.append(person)
        elif decision == "clear":
            if person not in clearers:
                clearers.append(person)
            if len(clearers) >= needed and any(p not in escalators for p in clearers):
                state = "cleared"
    return SafetyStatus(state, len(clearers), needed, tuple(escalators), tuple(clearers))


#: An item's status over its flags, most pressing first.
ITEM_ORDER = ("open", "escalated", "confirmed", "cleared")


@dataclass(frozen=True)
class FlagState:
    """One flag with its derived status."""

    flag: FlagRow
    status: str
    #: distinct people whose clearance counts towards closing it
    signoffs: int
    decisions: tuple[DecisionRow, ...] = ()
    #: the rubric's ``safety_signoffs`` (at least 1)
    needed: int = 1

    def signoff_text(self) -> str:
        """The sign-offs in words, e.g. ``1 of 2 logins``."""
        return signoff_words(self.signoffs, self.needed)


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
        return self.status in WAITING


def flag_status(flag: FlagRow, decisions: Iterable[DecisionRow], signoffs_needed: int = 1) -> FlagState:
    """A flag's status from its decisions (any order in; folded oldest first by
    :func:`safety_status`)."""
    mine = tuple(sorted((d for d in decisions if d.flag_pk == flag.pk), key=lambda d: d.pk))
    st = safety_status([(d.reviewer, d.decision) for d in mine], signoffs_needed)
    return FlagState(flag, st.state, st.signoffs, mine, st.needed)


def item_safety(flags: Iterable[FlagRow], decisions: Iterable[DecisionRow], signoffs_needed: int = 1) -> SafetyState:
    """The item's safety status over every flag given (withdrawn flags left out)."""
    decisions = list(decisions)
    states = tuple(flag_status(f, decisions, signoffs_needed) for f in sorted(flags, key=lambda f: f.pk))
    found = {s.status for s in states}
    return SafetyState(next((s for s in ITEM_ORDER if s in found), "none"), states)
