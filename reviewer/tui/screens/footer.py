"""The footer's order: the app's keys (help, quit) first, then the screen's in the order each
screen lists them, most used first, so an 80-column terminal still shows what matters."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


class AppKeysFirst(Screen[Any]):
    """A screen whose footer starts with help and quit."""

    @property
    def active_bindings(self) -> dict[str, Any]:
        """The bindings in force, the app's first."""
        found = super().active_bindings
        first = {k: v for k, v in found.items() if v.node is self.app}
        return first | {k: v for k, v in found.items() if k not in first}


def footer() -> Footer:
    """The footer every screen uses: compact, without the command palette's entry."""
    return Footer(compact=True, show_command_palette=False)
