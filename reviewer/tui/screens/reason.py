"""The reason dialog: a typed ``ModalScreen`` that dismisses with the reason and quick tags.

Escape gives the neutral answer (None: nothing recorded). Tags group disagreements later, in the
calibration report's disagreement packs.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from reviewer.safetext import safe_text

#: Quick tags: key, stored tag, what the key says.
TAGS: tuple[tuple[str, str, str], ...] = (
    ("f2", "judge_missed_error", "judge missed an error"),
    ("f3", "judge_too_harsh", "judge too harsh"),
    ("f4", "judge_too_lenient", "judge too lenient"),
    ("f5", "rubric_ambiguous", "rubric ambiguous"),
    ("f6", "output_off_topic", "output off-topic"),
)


@dataclass(frozen=True)
class ReasonResult:
    """What the reviewer entered."""

    reason: str
    tags: tuple[str, ...]


class ReasonDialog(ModalScreen[ReasonResult | None]):
    """Ask why; enter saves, escape cancels."""

    BINDINGS = [
        Binding("escape", "cancel", "cancel", id="reason.cancel"),
        *[Binding(key, f"toggle_tag('{tag}')", label, id=f"reason.tag_{tag}") for key, tag, label in TAGS],
    ]

    def __init__(self, dimension: str) -> None:
        super().__init__()
        self.dimension = dimension
        self.tags: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="reason-box"):
            yield Label(Text.assemble("Why this score for ", safe_text(self.dimension, "bold", newlines=False), "?"))
            yield Input(placeholder="reason (enter saves, escape cancels)", id="reason-input")
            yield Static(id="reason-tags")

    def on_mount(self) -> None:
        self._show_tags()

    def _show_tags(self) -> None:
        parts = [
            f"[{'reverse' if tag in self.tags else 'dim'}]{key.upper()} {label}[/]"
            for key, tag, label in TAGS
        ]
        self.query_one("#reason-tags", Static).update("  ".join(parts))

    def action_toggle_tag(self, tag: str) -> None:
        """Add or remove a quick tag."""
        if tag in self.tags:
            self.tags.remove(tag)
        else:
            self.tags.append(tag)
        self._show_tags()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        reason = event.value.strip()
        if not reason and not self.tags:
            self.notify("type a reason or pick a tag (escape cancels)", severity="warning")
            return
        self.dismiss(ReasonResult(reason or ", ".join(self.tags), tuple(self.tags)))

    def action_cancel(self) -> None:
        """Close without recording anything."""
        self.dismiss(None)
