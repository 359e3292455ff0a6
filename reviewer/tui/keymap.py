"""The keymap a reviewer's config file sets, checked before the app starts.

An unknown binding id, a key name no key press arrives as (:func:`reviewer.tui.config.key_problem`),
or a key that two bindings of one screen would then share (remapping agree
onto ``n`` would silently remove "next"), is refused with one line naming the file. This module
knows every screen, so it sits above them (the app hands in its class); the screens use :mod:`reviewer.tui.keys`.
"""

from __future__ import annotations

from pathlib import Path

from reviewer.errors import UserError
from reviewer.tui.config import key_problem
from reviewer.tui.keys import bindings, keys_of


def screens(app: type) -> dict[str, list[type]]:
    """Each screen's name and the classes whose bindings are in force on it (``app``'s too: the
    app class is handed in, so this module does not import the app module)."""
    from reviewer.tui.screens.calibration import CalibrationScreen, DimensionDetailScreen
    from reviewer.tui.screens.comment import CommentDialog
    from reviewer.tui.screens.confirm import AdjudicationDialog
    from reviewer.tui.screens.correction import CorrectionEditor
    from reviewer.tui.screens.filter import FilterDialog
    from reviewer.tui.screens.help import HelpScreen
    from reviewer.tui.screens.history import HistoryScreen
    from reviewer.tui.screens.item import ItemScreen
    from reviewer.tui.screens.jump import ItemChoiceDialog, JumpDialog
    from reviewer.tui.screens.pair import PairScreen
    from reviewer.tui.screens.queue import QueueScreen
    from reviewer.tui.screens.reason import ReasonDialog, TagRow
    from reviewer.tui.screens.review_of import RejectDialog, ReviewOfScreen
    from reviewer.tui.screens.safety import DecisionDialog, SafetyScreen
    from reviewer.tui.screens.sort import SortDialog
    from reviewer.tui.screens.team import TeamScreen

    return {
        "queue": [QueueScreen, app], "item": [ItemScreen, app], "pair": [PairScreen, app],
        "safety": [SafetyScreen, app], "calibration": [CalibrationScreen, app],
        "calibration detail": [DimensionDetailScreen, app], "help": [HelpScreen, app], "team": [TeamScreen, app],
        "reason": [ReasonDialog, app], "reason tags": [TagRow, ReasonDialog, app],
        "decision": [DecisionDialog, app], "adjudication": [AdjudicationDialog, app], "comment": [CommentDialog, app],
        "filter": [FilterDialog, app], "jump": [JumpDialog, app], "jump choice": [ItemChoiceDialog, app],
        "review of": [ReviewOfScreen, app], "reject": [RejectDialog, app],
        "correction": [CorrectionEditor, app],
        "sort": [SortDialog, app], "history": [HistoryScreen, app],
    }


def check_keymap(keymap: dict[str, str], path: Path | str, app: type) -> None:
    """Refuse an unknown binding id, a key name no key press arrives as, or a key two bindings of one screen would share (``app``:
    the app class, whose bindings are in force on every screen)."""
    if not keymap:
        return
    by_screen = screens(app)
    known = {b.id for classes in by_screen.values() for b in bindings(classes)}
    for bid in keymap:
        if bid not in known:
            near = sorted(k for k in known if k and k.split(".")[-1] == bid.split(".")[-1])
            hint = f" (did you mean {near[0]}?)" if near else "; `?` in the app lists every id"
            raise UserError(f"{path}: keymap: unknown binding id {bid!r}{hint}")
        problem = key_problem(keymap[bid])  # (the settings file's own check says the line)
        if problem is not None:
            raise UserError(f"{path}: keymap.{bid}: {problem}")
    for name, classes in by_screen.items():
        owner: dict[str, str] = {}
        for b in bindings(classes):
            for key in keys_of(b, keymap):
                other = owner.setdefault(key, b.id or "")
                if other != b.id and (b.id in keymap or other in keymap):
                    raise UserError(f"{path}: keymap: {key!r} would be both {other} and {b.id} on the "
                                    f"{name} screen; give one of them another key")


__all__ = ["check_keymap", "screens"]
