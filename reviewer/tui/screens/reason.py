"""The reason dialog: a typed ``ModalScreen`` that dismisses with the reason and quick tags.

Escape gives the neutral answer (None: nothing recorded). Quick tags are toggled with digits
once ``tab`` has moved to the tag row (no function keys needed, which many terminals and macOS
keep for themselves); ``F2``… still work where they reach the app. Tags group disagreements
later, in the calibration report's disagreement packs.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from reviewer.safetext import safe_line, safe_text
from reviewer.tui.screens.deferred import deferred

#: Quick tags on a score: stored tag, what the key says.
TAGS: tuple[tuple[str, str], ...] = (
    ("judge_missed_error", "judge missed an error"),
    ("judge_too_harsh", "judge too harsh"),
    ("judge_too_lenient", "judge too lenient"),
    ("rubric_ambiguous", "rubric ambiguous"),
    ("output_off_topic", "output off-topic"),
)

#: Quick tags on a safety flag raised by a reviewer.
FLAG_TAGS: tuple[tuple[str, str], ...] = (
    ("personal_data", "personal data"),
    ("harmful_advice", "harmful advice"),
    ("hate_or_harassment", "hate or harassment"),
    ("self_harm", "self-harm"),
    ("other_safety", "other"),
)

#: Quick tags on a pair choice (why one answer is better, or why they tie).
PAIR_TAGS: tuple[tuple[str, str], ...] = (
    ("more_accurate", "more accurate"),
    ("more_balanced", "more balanced"),
    ("more_complete", "more complete"),
    ("clearer", "clearer"),
    ("no_real_difference", "no real difference"),
)


@dataclass(frozen=True)
class ReasonResult:
    """What the reviewer entered."""

    reason: str
    tags: tuple[str, ...]


class TagRow(Static, can_focus=True):
    """The quick tags; focused, digit ``N`` toggles the N-th."""

    BINDINGS = [Binding(str(n), f"screen.toggle_tag({n - 1})", f"tag {n}", show=False, id=f"reason.tag_{n}")
                for n in range(1, 10)]


class ReasonDialog(ModalScreen[ReasonResult | None]):
    """Ask why; enter saves, tab moves to the quick tags, escape cancels."""

    BINDINGS = [
        Binding("escape", "cancel", "cancel", id="reason.cancel"),
        Binding("tab", "tags", "tags", id="reason.tags", priority=True),
        *[Binding(f"f{n + 2}", f"toggle_tag({n})", f"tag {n + 1}", show=False, id=f"reason.tag_f{n + 2}")
          for n in range(5)],
    ]

    def __init__(self, dimension: str, *, prompt: Text | None = None,
                 tags: tuple[tuple[str, str], ...] = TAGS, required: bool = True) -> None:
        super().__init__()
        self.dimension = dimension
        self.prompt = prompt if prompt is not None else Text.assemble(
            "Why this score for ", safe_text(dimension, "bold", newlines=False), "?")
        self.choices = tags
        self.required = required
        self.tags: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="reason-box"):
            yield Label(self.prompt)
            yield Input(placeholder="reason (enter saves, tab: quick tags, escape cancels)", id="reason-input")
            yield TagRow(self._tags_text(on_row=False), id="reason-tags")

    def _tags_text(self, on_row: bool) -> Text:
        """The tag row: each tag with its digit, the chosen ones reversed (``on_row``: focused)."""
        row = Text()
        row.append("tags (tab, then digit): " if not on_row else "tags — digit toggles, tab back: ", style="dim")
        for n, (tag, label) in enumerate(self.choices, start=1):
            row.append(safe_line(f"{n} {label}"), style="reverse" if tag in self.tags else "")
            row.append("  ")
        return row

    @deferred
    def _show_tags(self) -> None:
        row = self.query_one(TagRow)
        row.update(self._tags_text(row.has_focus))

    def action_tags(self) -> None:
        """Move between the reason box and the tag row."""
        if self.query_one(TagRow).has_focus:
            self.query_one(Input).focus()
        else:
            self.query_one(TagRow).focus()
        self.call_after_refresh(self._show_tags)

    def action_toggle_tag(self, index: int) -> None:
        """Add or remove the ``index``-th quick tag."""
        if not 0 <= index < len(self.choices):
            return
        tag = self.choices[index][0]
        if tag in self.tags:
            self.tags.remove(tag)
        else:
            self.tags.append(tag)
        self._show_tags()

    def key_enter(self, event: events.Key) -> None:
        """Enter on the tag row saves as in the reason box. The key stops here: left to go on,
        it reached the screen below once this one was gone (and agreed there)."""
        if self.query_one(TagRow).has_focus:
            event.stop()
            event.prevent_default()
            self._submit(self.query_one(Input).value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._submit(event.value)

    def _submit(self, value: str) -> None:
        reason = value.strip()
        if not reason and not self.tags and self.required:
            self.notify("type a reason or pick a tag (escape cancels)", severity="warning")
            return
        self.dismiss(ReasonResult(reason or ", ".join(self.tags), tuple(self.tags)))

    def action_cancel(self) -> None:
        """Close without recording anything."""
        self.dismiss(None)
