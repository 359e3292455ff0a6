"""The keymap a reviewer's config file sets, checked before the app starts.

Every binding has a stable id (``item.agree``); ``keymap:`` in the settings file maps ids to keys.
An unknown id, or a key that two bindings of one screen would then share (remapping agree onto
``n`` would silently remove "next"), is refused with one line naming the file.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from textual.binding import Binding

from reviewer.errors import UserError


def screens() -> dict[str, list[type]]:
    """Each screen's name and the classes whose bindings are in force on it (the app's too)."""
    from reviewer.tui.app import ReviewApp
    from reviewer.tui.screens.calibration import CalibrationScreen, DimensionDetailScreen
    from reviewer.tui.screens.filter import FilterDialog
    from reviewer.tui.screens.help import HelpScreen
    from reviewer.tui.screens.item import ItemScreen
    from reviewer.tui.screens.pair import PairScreen
    from reviewer.tui.screens.queue import QueueScreen
    from reviewer.tui.screens.reason import ReasonDialog, TagRow
    from reviewer.tui.screens.safety import DecisionDialog, SafetyScreen

    return {
        "queue": [QueueScreen, ReviewApp], "item": [ItemScreen, ReviewApp], "pair": [PairScreen, ReviewApp],
        "safety": [SafetyScreen, ReviewApp], "calibration": [CalibrationScreen, ReviewApp],
        "calibration detail": [DimensionDetailScreen, ReviewApp], "help": [HelpScreen, ReviewApp],
        "reason": [ReasonDialog, ReviewApp], "reason tags": [TagRow, ReasonDialog, ReviewApp],
        "decision": [DecisionDialog, ReviewApp], "filter": [FilterDialog, ReviewApp],
    }


def bindings(classes: Iterable[type]) -> list[Binding]:
    """The bindings of ``classes`` that carry an id."""
    return [b for c in classes for b in getattr(c, "BINDINGS", []) if isinstance(b, Binding) and b.id]


def keys_of(b: Binding, keymap: dict[str, str]) -> list[str]:
    """The keys binding ``b`` answers to under ``keymap``."""
    keys = keymap.get(b.id or "", b.key)
    return [k.strip() for k in keys.split(",") if k.strip()]


def check_keymap(keymap: dict[str, str], path: Path | str) -> None:
    """Refuse an unknown binding id or a key two bindings of one screen would share."""
    if not keymap:
        return
    by_screen = screens()
    known = {b.id for classes in by_screen.values() for b in bindings(classes)}
    for bid in keymap:
        if bid not in known:
            near = sorted(k for k in known if k and k.split(".")[-1] == bid.split(".")[-1])
            hint = f" (did you mean {near[0]}?)" if near else "; `?` in the app lists every id"
            raise UserError(f"{path}: keymap: unknown binding id {bid!r}{hint}")
    for name, classes in by_screen.items():
        owner: dict[str, str] = {}
        for b in bindings(classes):
            for key in keys_of(b, keymap):
                other = owner.setdefault(key, b.id or "")
                if other != b.id and (b.id in keymap or other in keymap):
                    raise UserError(f"{path}: keymap: {key!r} would be both {other} and {b.id} on the "
                                    f"{name} screen; give one of them another key")


__all__ = ["check_keymap", "keys_of", "screens"]
