"""The footer's order: the app's keys (help, quit) first, then the screen's in the order each
screen lists them, most used first, so an 80-column terminal still shows what matters."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

#: how the footer shows the digit keys, as one entry (``score_1`` carries it; the others hidden)
SCORE_KEYS = "0-9"


def score_bindings(screen: str) -> list[Binding]:
    """The digit keys that score the focused dimension (ids ``<screen>.score_0`` … ``_9``): one
    entry in the footer, ``0-9 score``, where ten would push the keys after them off 80 columns."""
    return [Binding(str(d), f"score({d})", "score" if d == 1 else f"score {d}", show=d == 1,
                    key_display=SCORE_KEYS if d == 1 else None, id=f"{screen}.score_{d}") for d in range(10)]


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
