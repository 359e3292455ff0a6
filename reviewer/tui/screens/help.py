"""Help: every key of the screen underneath, with its description and stable binding id.

The ids are what a keymap in the config file remaps (see :mod:`reviewer.tui.config`).
"""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from reviewer.safetext import safe_text


class HelpScreen(ModalScreen[None]):
    """Lists the bindings of ``target`` and the app's."""

    BINDINGS = [Binding("escape,question_mark,f1,q", "close", "close", id="help.close")]

    def __init__(self, target: Screen[object]) -> None:
        super().__init__()
        self.target = target

    def compose(self) -> ComposeResult:
        table = Table(title="keys", expand=True)
        table.add_column("key")
        table.add_column("does")
        table.add_column("id (remap in config.yaml keymap)", style="dim")
        seen: set[str] = set()
        for source in (self.target, self.app):
            for b in getattr(source, "BINDINGS", []):
                if not isinstance(b, Binding) or b.id in seen:
                    continue
                seen.add(b.id or b.key)
                table.add_row(*[safe_text(v, newlines=False) for v in (b.key_display or b.key, b.description, b.id or "")])
        with VerticalScroll(id="help-box"):
            yield Static(table)

    def action_close(self) -> None:
        """Back to the screen."""
        self.dismiss(None)
