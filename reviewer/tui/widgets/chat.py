"""A conversation as a chat: one block per message with its role, turns numbered, and the
message under review marked. Every message is hostile text: shown through ``safe_text``."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from reviewer.safetext import safe, safe_text

ROLE_STYLES = {"user": "bold cyan", "assistant": "bold green", "system": "bold magenta", "tool": "bold yellow"}


def under_review(conversation: list[dict[str, Any]]) -> int | None:
    """The index of the message an item-level judgement is about: the last assistant message."""
    return next((i for i in range(len(conversation) - 1, -1, -1)
                 if str(conversation[i].get("role", "")) == "assistant"), None)


def chat_text(conversation: list[dict[str, Any]], marked: int | None = None) -> Text:
    """The messages before the one under review (``marked``: shown in the output panel), or
    all of them when nothing is marked."""
    out = Text()
    turn = 0
    for i, message in enumerate(conversation):
        if marked is not None and i >= marked:
            break
        role = safe(message.get("role", "?"), newlines=False)
        if role == "user":
            turn += 1
        if out:
            out.append("\n")
        out.append(f"{role}", style=ROLE_STYLES.get(role, "bold"))
        out.append(f"  turn {max(turn, 1)}\n", style="dim")
        out.append(safe_text(message.get("content", "")))
    return out


def output_of(output: str, conversation: list[dict[str, Any]]) -> tuple[str, Text | None]:
    """The text under review and, for a conversation, its heading (role, turn, the mark)."""
    if output or not conversation:
        return output, None
    i = under_review(conversation)
    if i is None:
        return "", None
    turn = sum(1 for m in conversation[: i + 1] if m.get("role") == "user")
    head = Text.assemble(("▶ under review: ", "bold yellow"), ("assistant", ROLE_STYLES["assistant"]),
                         (f"  turn {max(turn, 1)}\n", "dim"))
    return str(conversation[i].get("content", "")), head
