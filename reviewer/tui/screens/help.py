"""Help: every key in force on the screen underneath (the keymap applied), with its description
and stable binding id, and where the keymap file lives. It scrolls: ``j``/``k``, arrows, pages.

The ids are what a keymap in the config file remaps (see :mod:`reviewer.tui.config`).
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from reviewer.safetext import safe_text
from reviewer.tui.config import config_path
from reviewer.tui.keys import keys_of


class HelpScroll(VerticalScroll, can_focus=True):
    """The help text, scrolled from the keyboard."""

    BINDINGS = [
        Binding("j", "scroll_down", "down", show=False, id="help.down"),
        Binding("k", "scroll_up", "up", show=False, id="help.up"),
    ]


class HelpScreen(ModalScreen[None]):
    """Lists the bindings of ``target`` and the app's."""

    AUTO_FOCUS = "#help-box"
    BINDINGS = [Binding("escape,question_mark,f1,q", "close", "close", id="help.close")]

    def __init__(self, target: Screen[object]) -> None:
        super().__init__()
        self.target = target
        #: what the table lists: keys in force, what they do, binding id
        self.rows: list[tuple[str, str, str]] = []

    def compose(self) -> ComposeResult:
        keymap = getattr(self.app, "settings", None)
        keymap = keymap.keymap if keymap is not None else {}
        table = Table(expand=True, box=None, pad_edge=False)
        table.add_column("key", no_wrap=True)
        table.add_column("does")
        table.add_column("id", style="dim", no_wrap=True)
        seen: set[str] = set()
        for source in (self.target, self.app):
            runs: dict[str, list[tuple[str, str]]] = {}  # digit bindings (score_0…) on one row
            for b in getattr(source, "BINDINGS", []):
                if not isinstance(b, Binding) or (b.id or b.key) in seen:
                    continue
                seen.add(b.id or b.key)
                keys = ",".join(keys_of(b, keymap))
                base, _, n = (b.id or "").rpartition("_")
                if n.isdigit() and base:
                    runs.setdefault(base, []).append((keys, b.id or ""))
                    if len(runs[base]) > 1:
                        continue
                self.rows.append((keys, b.description, b.id or ""))
            for base, run in runs.items():
                if len(run) > 1:
                    i = next(i for i, r in enumerate(self.rows) if r[2] == run[0][1])
                    self.rows[i] = (" ".join(k for k, _ in run), self.rows[i][1].rstrip("0123456789") + "N",
                                    f"{base}_N")
        for row in self.rows:
            table.add_row(*(safe_text(cell, newlines=False) for cell in row))
        head = Text.assemble(("keys in force", "bold"), "  (j/k or arrows scroll, escape closes)\n",
                             ("remap by id under keymap: in ", "dim"), (str(config_path()), "cyan"),
                             ("\n  e.g.  keymap: {item.agree: 'enter,a'}\n", "dim"))
        with HelpScroll(id="help-box"):
            yield Static(head)
            yield Static(table)

    def action_close(self) -> None:
        """Back to the screen."""
        self.dismiss(None)
