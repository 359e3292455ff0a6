"""A conversation as a chat: one block per message with its role, turns numbered, and the
message under review marked. Every message is hostile text: rendered as markdown (or, raw, as
written) through :mod:`reviewer.tui.widgets.markdown`, never read as markup.

For a turn-level dimension the judge's score on each turn stands beside the message that opens
that turn (a turn is a run of messages of the dimension's role, as the judge scored it); a
dimension whose judge side is hidden (blind, not scored yet) shows none."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from reviewer.domain.marks import under_review
from reviewer.domain.wording import score_text
from reviewer.safetext import safe, safe_line
from reviewer.tui import palette
from reviewer.tui.viewmodel import DimState
from reviewer.tui.widgets.markdown import shown
from rubrics.methods.base import role_spans

ROLE_STYLES = {"user": "bold cyan", "assistant": "bold green", "system": "bold magenta", "tool": "bold yellow"}


def turn_badges(conversation: list[dict[str, Any]], dims: list[DimState]) -> dict[int, Text]:
    """Per message that opens a scored turn, the judge's score on that turn of each turn-level
    dimension whose judge side may be shown (``dimension score``, or why there is none)."""
    out: dict[int, Text] = {}
    for d in dims:
        if not d.turns or not d.judge_visible:
            continue
        spans = role_spans(conversation, d.dim.role or "assistant")
        for t in d.turns:
            if t.turn >= len(spans):
                continue
            badge = out.setdefault(spans[t.turn][0], Text())
            badge.append("  ")
            badge.append(safe_line(d.dim.id), style="dim")
            if t.score is not None:
                badge.append(f" {score_text(t.score)}", style="bold reverse")
            elif t.error is not None:
                badge.append(" error", style=palette.alarm())
            else:
                badge.append(" n/a", style="dim")
    return out


def chat_text(conversation: list[dict[str, Any]], marked: int | None = None, raw: bool = False,
              badges: dict[int, Text] | None = None) -> Text:
    """The messages before the one under review (``marked``: shown in the output panel), or
    all of them when nothing is marked; ``badges`` (:func:`turn_badges`) beside their turns."""
    out = Text()
    turn = 0
    badges = badges or {}
    for i, message in enumerate(conversation):
        if marked is not None and i >= marked:
            break
        role = safe(message.get("role", "?"), newlines=False)
        if role == "user":
            turn += 1
        if out:
            out.append("\n\n")
        out.append(f"{role}", style=ROLE_STYLES.get(role, "bold"))
        out.append(f"  turn {max(turn, 1)}", style="dim")
        if i in badges:
            out.append(badges[i])
        out.append("\n")
        out.append(shown(str(message.get("content", "")), raw))
    return out


def output_of(output: str, conversation: list[dict[str, Any]],
              badges: dict[int, Text] | None = None) -> tuple[str, Text | None]:
    """The text under review and, for a conversation, its heading (role, turn, the mark, the
    judge's turn scores)."""
    if output or not conversation:
        return output, None
    i = under_review(conversation)
    if i is None:
        return "", None
    turn = sum(1 for m in conversation[: i + 1] if m.get("role") == "user")
    head = Text.assemble(("▶ under review: ", "bold yellow"), ("assistant", ROLE_STYLES["assistant"]),
                         (f"  turn {max(turn, 1)}", "dim"))
    if badges:
        # the turn the message under review belongs to opens at the first message of its run
        opening = next((a for a, b in role_spans(conversation, "any") if a <= i < b), i)
        if opening in badges:
            head.append(badges[opening])
    head.append("\n")
    return str(conversation[i].get("content", "")), head
