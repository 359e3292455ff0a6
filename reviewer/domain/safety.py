"""The safety status of one flag, derived from its decisions (pure: plain values in and out).

A flag starts ``open``. Its decisions, oldest first, move it:

- ``escalate`` → ``escalated``. An escalated flag never returns to ``open``: until it is cleared
  or confirmed it stays escalated, however many clearances are still missing.
- ``clear`` → ``cleared`` once the rubric's ``safety_signoffs`` **distinct people** have cleared
  it since its last escalation, and at least one of them is not a person who escalated it (whoever
  escalated cannot be the only sign-off that clears it). Until then the flag keeps its state and
  shows the count as "1 of 2 people".
- ``confirm`` → ``confirmed`` (blocked); one safety reviewer's confirmation is enough and final.
- ``withdraw`` (only the reviewer who raised a reviewer flag, before any decision) → ``withdrawn``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

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

    @property
    def waiting(self) -> bool:
        """Whether the flag still needs a decision."""
        return self.state in WAITING

    def signoff_text(self) -> str:
        """The sign-offs in words, e.g. ``1 of 2 people``."""
        return f"{self.signoffs} of {self.needed} {'person' if self.needed == 1 else 'people'}"


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
    return SafetyStatus(state, len(clearers), needed, tuple(escalators))
