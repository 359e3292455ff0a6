"""Bindings and the keys they answer to under a reviewer's keymap.

Every binding has a stable id (``item.agree``); ``keymap:`` in the settings file maps ids to keys.
The check of a keymap against every screen is :mod:`reviewer.tui.keymap` (it needs the app and
the screens; this module is below them, for the help screen).
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.binding import Binding


def bindings(classes: Iterable[type]) -> list[Binding]:
    """The bindings of ``classes`` that carry an id."""
    return [b for c in classes for b in getattr(c, "BINDINGS", []) if isinstance(b, Binding) and b.id]


def keys_of(b: Binding, keymap: dict[str, str]) -> list[str]:
    """The keys binding ``b`` answers to under ``keymap``."""
    keys = keymap.get(b.id or "", b.key)
    return [k.strip() for k in keys.split(",") if k.strip()]


__all__ = ["bindings", "keys_of"]
