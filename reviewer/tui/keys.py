"""Bindings, the keys they answer to under a reviewer's keymap, and which key names exist.

Every binding has a stable id (``item.agree``); ``keymap:`` in the settings file maps ids to keys.
The check of a keymap against every screen is :mod:`reviewer.tui.keymap` (it needs the app and
the screens; this module is below them, for the help screen and the settings file).
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from functools import cache

from textual.binding import Binding
from textual.keys import Keys, _character_to_key

#: what may stand before a key name, joined by ``+`` (``ctrl+s``, ``ctrl+shift+up``)
MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")


def bindings(classes: Iterable[type]) -> list[Binding]:
    """The bindings of ``classes`` that carry an id."""
    return [b for c in classes for b in getattr(c, "BINDINGS", []) if isinstance(b, Binding) and b.id]


def keys_of(b: Binding, keymap: dict[str, str]) -> list[str]:
    """The keys binding ``b`` answers to under ``keymap``."""
    keys = keymap.get(b.id or "", b.key)
    return [k.strip() for k in keys.split(",") if k.strip()]


@cache
def _names() -> frozenset[str]:
    """Every key name a terminal key press arrives as (without modifiers): the named keys
    (``enter``, ``f2``, ``up``) and the names of printable characters (``question_mark``)."""
    named = {k.value for k in Keys if "+" not in k.value and not k.value.startswith("<")}
    return frozenset(named | {_character_to_key(c) for c in string.printable if c.isprintable()})


def key_problem(keys: str) -> str | None:
    """What is wrong with a keymap value (comma-separated keys), or None: a key must be a name
    a key press arrives as, else the binding would answer to nothing."""
    parts = [k.strip() for k in keys.split(",")]
    if not any(parts):
        return "no key given; give at least one key, e.g. enter,a"
    for key in parts:
        if not key:
            return f"{keys!r} has an empty key between commas; remove the extra comma"
        *mods, base = key.split("+")
        bad = next((m for m in mods if m not in MODIFIERS), None)
        if bad is not None or not base:
            return (f"{key!r} is not a key: {bad or '(nothing)'!r} is not a modifier; "
                    f"use {', '.join(MODIFIERS)} before +, e.g. ctrl+s")
        if len(base) == 1 and base.isprintable() and not base.isspace():
            name = _character_to_key(base)
            if name != base:
                return f"{key!r} is not a key name; write {key[:-1]}{name} (the name of {base!r})"
            continue
        if base not in _names():
            return (f"{key!r} is not a key name; give a character (a, A, 7) or a key's name "
                    "(enter, escape, tab, space, up, f2, question_mark), e.g. item.agree: enter,a")
    return None


__all__ = ["MODIFIERS", "bindings", "key_problem", "keys_of"]
