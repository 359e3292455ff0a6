"""FlexEval's function-metric conditions, computed from the part of the conversation a
dimension scores: tool-call counts (``count_tool_calls``, ``count_tool_calls_by_name``) and
counts of a pattern's matches in the messages (``count_of_parts_matching_regex``).

A view is what one judge call scores (a turn, one tool call, or the whole item); its own
messages are counted, never the conversation before it. A pattern runs under the same time
limit as the deterministic method's patterns: one that runs out of time is that view's error,
never a hang and never a guess that the condition held.
"""

from __future__ import annotations

import regex

from rubrics.methods.base import JudgeItem
from rubrics.methods.deterministic import REGEX_SECONDS
from rubrics.schema import Dimension


def outside(view: JudgeItem, dim: Dimension) -> str | None:
    """Why ``dim`` does not apply to ``view`` (a condition that does not hold), or None.

    Raises :class:`ValueError` when a pattern runs past its time limit."""
    where = f"turn {view.turn}" if view.turn is not None else "the conversation"
    if dim.metric_level == "tool_call" and view.turn is not None:
        where = f"tool call {view.turn}"
    for tools in dim.tool_calls:
        count = sum(1 for n in view.tool_call_names() if tools.name is None or n == tools.name)
        if not tools.holds(count):
            return f"{where} made {tools.shown(count)}"
    for match in dim.matches:
        found = 0
        for text in view.own_texts():
            try:
                found += len(regex.findall(match.expression, text, regex.MULTILINE, timeout=REGEX_SECONDS))
            except TimeoutError:
                raise ValueError(f"/{match.expression[:60]}/ ran past {REGEX_SECONDS:g} s on {where}") from None
        if not match.holds(found):
            return f"{where} holds {match.shown(found)}"
    return None
