"""The rule for reviewer names and logins, written once (the store, the import reader and the
database triggers in ``reviewer.store.guards`` apply it)."""

from __future__ import annotations

#: The longest name accepted.
MAX_NAME = 100


def name_problem(name: object) -> str | None:
    """What is wrong with ``name`` as a reviewer name, or None: it must be non-empty text of
    printable characters, without surrounding spaces, at most :data:`MAX_NAME` characters."""
    if not isinstance(name, str) or not name.strip():
        return "must not be empty"
    if name != name.strip() or not name.isprintable() or len(name) > MAX_NAME:
        return f"{name!r}: use printable characters without surrounding spaces (at most {MAX_NAME})"
    return None
