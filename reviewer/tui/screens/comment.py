"""The comment dialog: a note on the item for later reviewers (a typed ``ModalScreen`` that
dismisses with the text; escape gives None: nothing written). Comments are append-only: a
correction is a new comment."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from reviewer.domain.itemlimits import MAX_COMMENT_CHARS, comment_problem
from reviewer.safetext import safe_line, safe_text


class CommentDialog(ModalScreen[str | None]):
    """Ask for a comment on ``item_id``; enter saves, escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "cancel", id="comment.cancel")]

    def __init__(self, item_id: str) -> None:
        super().__init__()
        self.item_id = item_id

    def compose(self) -> ComposeResult:
        with Vertical(id="reason-box"):
            yield Label(Text.assemble("Comment on ", safe_text(self.item_id, "bold", newlines=False),
                                      " for later reviewers:"))
            yield Input(placeholder="comment (enter saves, escape cancels; it cannot be edited later)",
                        max_length=MAX_COMMENT_CHARS, id="comment-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        problem = comment_problem(event.value)
        if problem is not None:
            self.notify(safe_line(problem), severity="warning", markup=False)
            return
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        """Close without writing anything."""
        self.dismiss(None)
