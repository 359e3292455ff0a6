"""The item a method scores, and the helpers every method uses to build its result.

Methods never see a store row: the runner turns whatever the store hands out into a
:class:`JudgeItem`, a small frozen value with the fields of the import format.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rubrics.results import ScoreResult
from rubrics.schema import Dimension, Scale


@dataclass(frozen=True)
class JudgeItem:
    """One output under evaluation, with what it is judged against."""

    id: str
    output: str
    input: str = ""
    context: str = ""
    reference: str = ""
    #: Chat messages, each ``{"role": ..., "content": ...}``.
    conversation: tuple[Mapping[str, Any], ...] = ()
    group: str | None = None
    variant: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    #: Assistant turn index when this view is one turn of a conversation.
    turn: int | None = None
    #: The store's key of the item (the same ``id`` may name items in several datasets), carried
    #: onto every result so they are written to this item and no other; None outside a store.
    key: int | None = None
    #: The dataset the item belongs to: groups (pairs) are formed within one dataset.
    dataset: str = ""
    #: Where this view's own messages start in ``conversation`` (0: the whole conversation).
    span_start: int = 0
    #: A tool-call view: which call of the message at ``span_start`` it is (None: not one).
    call: int | None = None

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> JudgeItem:
        """Build from a dict in the import format; ``output`` defaults to the last assistant
        message of ``conversation``."""
        conversation = tuple(dict(m) for m in (data.get("conversation") or ()))
        output = data.get("output")
        if output is None or (output == "" and conversation):
            # A conversation item is judged on its conversation: its output is the last
            # assistant turn (never an empty string).
            spans = role_spans(conversation, "assistant")
            output = span_text(conversation, *spans[-1]) if spans else ""
        return cls(
            id=str(data["id"]),
            output=str(output),
            input=str(data.get("input") or ""),
            context=str(data.get("context") or ""),
            reference=str(data.get("reference") or ""),
            conversation=conversation,
            group=None if data.get("group") is None else str(data["group"]),
            variant=None if data.get("variant") is None else str(data["variant"]),
            metadata=dict(data.get("metadata") or {}),
            key=None if data.get("pk") is None else int(data["pk"]),
            dataset=str(data.get("dataset") or ""),
        )

    def turn_spans(self, role: str = "assistant") -> list[tuple[int, int]]:
        """FlexEval's turns: runs of consecutive messages of one role, as ``(start, end)`` index
        spans into ``conversation``; only the runs of ``role`` (``any``: every run)."""
        return role_spans(self.conversation, role)

    def for_span(self, start: int, end: int, ordinal: int) -> JudgeItem:
        """The view of one turn: its messages are the output (``{turn}``, ``{content}``), the
        messages before it the context (``{context}``), the conversation up to its end
        ``{conversation}``; ``turn`` is its ordinal among the turns scored."""
        return replace(
            self,
            output=span_text(self.conversation, start, end),
            context=format_conversation(self.conversation[:start]),
            conversation=self.conversation[:end],
            turn=ordinal,
            span_start=start,
        )

    def tool_call_names(self) -> list[str]:
        """The names of the tool calls in this view's own messages (a turn's, or the whole
        conversation's; a tool-call view's own call), in order."""
        if self.call is not None:
            return [call_name(message_tool_calls(self.conversation[self.span_start])[self.call])]
        return [call_name(c) for m in self.conversation[self.span_start:] for c in message_tool_calls(m)]

    def own_texts(self) -> list[str]:
        """The texts of this view's own messages (a turn's, or the whole conversation's); the
        output for a tool-call view or an item without a conversation."""
        if self.call is not None or not self.conversation:
            return [self.output]
        return [str(m.get("content", "")) for m in self.conversation[self.span_start:]]

    def tool_call_views(self, role: str | None = None) -> list[JudgeItem]:
        """FlexEval's ``ToolCall`` level: one view per tool call in the conversation (made by a
        message of ``role``, when one other than ``any`` is named), in order.
        The call — ``{"name", "arguments"}`` as JSON — is the output (``{turn}``, ``{content}``),
        the conversation up to and including the message that made it the context; ``turn`` is
        the call's ordinal among the conversation's calls."""
        views: list[JudgeItem] = []
        for i, message in enumerate(self.conversation):
            if role not in (None, "any") and message.get("role") != role:
                continue
            for j, c in enumerate(message_tool_calls(message)):
                shown = json.dumps({"name": call_name(c), "arguments": call_arguments(c)}, ensure_ascii=False)
                views.append(replace(self, output=shown, context=format_conversation(self.conversation[:i + 1]),
                                     conversation=self.conversation[:i + 1], turn=len(views),
                                     span_start=i, call=j))
        return views

    def last_role(self) -> str | None:
        """The role of the conversation's last message (None without a conversation)."""
        return str(self.conversation[-1].get("role")) if self.conversation else None

    def assistant_turns(self) -> list[int]:
        """Indices (into ``conversation``) of the assistant messages."""
        return [i for i, m in enumerate(self.conversation) if m.get("role") == "assistant"]

    def for_turn(self, index: int) -> JudgeItem:
        """The view of one assistant turn: the turn is the output, earlier messages the context.

        ``turn`` is set to the assistant turn's ordinal (0 for the first assistant message).
        """
        ordinal = self.assistant_turns().index(index)
        earlier = self.conversation[:index]
        return replace(
            self,
            output=str(self.conversation[index].get("content", "")),
            context=format_conversation(earlier),
            conversation=self.conversation[: index + 1],
            turn=ordinal,
            span_start=index,
        )


def message_tool_calls(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The tool calls a conversation message makes: its ``tool_calls`` list, each in OpenAI's
    shape ``{"id", "type": "function", "function": {"name", "arguments"}}`` or plain
    ``{"name", "arguments"}``; anything that is not such an object is not a call."""
    calls = message.get("tool_calls")
    return [c for c in calls if isinstance(c, Mapping)] if isinstance(calls, list) else []


def call_name(call: Mapping[str, Any]) -> str:
    """A tool call's function name (``function.name``, else ``name``; ``""`` when it has none)."""
    fn = call.get("function")
    name = fn.get("name") if isinstance(fn, Mapping) else call.get("name")
    return name if isinstance(name, str) else ""


def call_arguments(call: Mapping[str, Any]) -> str:
    """A tool call's arguments as text (OpenAI sends them as a JSON string)."""
    fn = call.get("function")
    args = fn.get("arguments") if isinstance(fn, Mapping) else call.get("arguments")
    if args is None:
        return ""
    return args if isinstance(args, str) else json.dumps(args, sort_keys=True, ensure_ascii=False)


def role_spans(messages: Sequence[Mapping[str, Any]], role: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each run of consecutive same-role messages whose role is ``role``
    (``any``: every run)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(messages) + 1):
        if i == len(messages) or messages[i].get("role") != messages[start].get("role"):
            if role == "any" or messages[start].get("role") == role:
                spans.append((start, i))
            start = i
    return spans


def span_text(messages: Sequence[Mapping[str, Any]], start: int, end: int) -> str:
    """The contents of ``messages[start:end]``, one per line."""
    return "\n".join(str(m.get("content", "")) for m in messages[start:end])


def turn_views(item: JudgeItem, dim: Dimension) -> list[JudgeItem]:
    """What one dimension scores on one item: each turn of the dimension's role (turn level, on
    an item with a conversation), else the item itself."""
    if dim.metric_level == "tool_call" and item.conversation:
        return item.tool_call_views(dim.role)
    if dim.metric_level == "turn" and item.conversation:
        spans = item.turn_spans(dim.role or "assistant")
        return [item.for_span(a, b, n) for n, (a, b) in enumerate(spans)]
    return [item]


def format_conversation(messages: Sequence[Mapping[str, Any]]) -> str:
    """Render chat messages as ``role: content`` lines."""
    return "\n".join(f"{m.get('role', '?')}: {m.get('content', '')}" for m in messages)


def effective_scale(dim: Dimension) -> Scale:
    """The scale the method's scores live on: the judge's own where declared."""
    return dim.judge_scale or dim.scale


def scored(
    item: JudgeItem, dim: Dimension, raw: float, model: str | None = None, **fields: Any
) -> ScoreResult:
    """A successful result: raw score on the dimension's scale plus its normalised value."""
    scale = effective_scale(dim)
    return ScoreResult(
        item_id=item.id,
        dimension=dim.id,
        method=dim.method,
        model=model,
        score=raw,
        normalised=scale.normalise(raw),
        samples=fields.pop("samples", [raw]),
        turn=item.turn,
        **fields,
    )


def failed(
    item: JudgeItem, dim: Dimension, error: str, model: str | None = None, **fields: Any
) -> ScoreResult:
    """A result with no score: ``error`` says why (it goes to people, never guessed)."""
    return ScoreResult(
        item_id=item.id,
        dimension=dim.id,
        method=dim.method,
        model=model,
        error=error,
        turn=item.turn,
        **fields,
    )


def from_unit(dim: Dimension, value: float) -> float:
    """Map a [0, 1] value (clipped) onto the dimension's scale."""
    return effective_scale(dim).denormalise(min(1.0, max(0.0, value)))


def through_range(value: float, lo: float, hi: float) -> float:
    """Map ``value`` from ``[lo, hi]`` onto [0, 1], clipping outside."""
    if hi <= lo:
        return 1.0 if value >= hi else 0.0
    return min(1.0, max(0.0, (value - lo) / (hi - lo)))
