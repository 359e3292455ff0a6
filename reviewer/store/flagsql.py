"""A safety flag's status in SQL, derived from its decisions (standard library only: the TUI's
first page reads it without SQLAlchemy).

The flag row is history and never changes; its status is the ``outcome`` its latest decision
recorded, ``open`` while it has none. Flags decided before outcomes were recorded (migration
``0007g_roles``) kept the status the store then wrote on the flag row, which is the fallback.
"""

from __future__ import annotations

from reviewer.domain.safety import WAITING

__all__ = ["UNSETTLED", "WAITING", "flag_status", "status_in"]
#: Statuses that still mark the item as flagged.
UNSETTLED = ("open", "escalated", "confirmed")


def flag_status(alias: str = "safety_flag") -> str:
    """The SQL expression of the status of the flag row named ``alias``."""
    return (f"COALESCE((SELECT d.outcome FROM safety_decision d WHERE d.flag_pk = {alias}.pk"
            f" ORDER BY d.pk DESC LIMIT 1), {alias}.status)")


def status_in(statuses: tuple[str, ...], alias: str = "safety_flag") -> str:
    """``flag_status(alias) IN (...)`` for fixed status words."""
    return f"{flag_status(alias)} IN ({', '.join(repr(s) for s in statuses)})"
