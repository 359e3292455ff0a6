"""Limits on what one row of an item file may hold, beyond the shape :mod:`reviewer.io.itemfile` checks.

Every message says what is wrong and what to do, for ``FILE:LINE: item ID: ...`` lines. The checks
are cheap on ordinary rows: the depth and surrogate walks only run when the raw line could hold
either (more brackets than the depth limit; a ``\\ud8..``-``\\udf..`` escape).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

#: How deeply JSON values may nest in one row (metadata, judge evidence, ...).
MAX_DEPTH = 32
MAX_ID_CHARS = 512
MAX_NAME_CHARS = 200
MAX_TAGS = 50
MAX_TAG_CHARS = 100
#: A comment on an item: a few paragraphs at most.
MAX_COMMENT_CHARS = 4000
#: Control and invisible formatting characters: never in an id, a name or a tag.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def structure_problem(raw: bytes | str, obj: Any) -> str | None:
    """Too deep, or a lone surrogate anywhere in the row (UTF-8 cannot store one)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    deep = data.count(b"{") + data.count(b"[") > MAX_DEPTH
    odd = (b"\\u" in data and _SURROGATE_ESCAPE.search(data) is not None) or (
        isinstance(raw, str) and _SURROGATE.search(raw) is not None)
    if not (deep or odd):
        return None
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            if depth > MAX_DEPTH:
                return f"values nest more than {MAX_DEPTH} levels deep; flatten the row"
            for k, v in value.items():
                stack.append((k, depth))
                stack.append((v, depth + 1))
        elif isinstance(value, list):
            if depth > MAX_DEPTH:
                return f"values nest more than {MAX_DEPTH} levels deep; flatten the row"
            stack.extend((v, depth + 1) for v in value)
        elif isinstance(value, str) and odd and _SURROGATE.search(value):
            return "text holds a lone surrogate (an escape like \\ud800 with no pair); fix the text's encoding"
    return None


def name_problem(value: Any, what: str, limit: int = MAX_NAME_CHARS) -> str | None:
    """An id, reviewer name or tag: non-empty text without control characters or edge spaces."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return f"{what} must be text, not {_kind(value)}"
    text = str(value)
    if not text:
        return f"{what} is empty"
    if _CONTROL.search(text):
        return f"{what} {text[:40]!r} holds a control or invisible character; remove it"
    if text != text.strip():
        return f"{what} {text[:40]!r} starts or ends with a space or newline; remove it"
    if len(text) > limit:
        return f"{what} is {len(text)} characters; at most {limit}"
    return None


def tags_problem(value: Any) -> str | None:
    """Quick tags: a list of short names (``"abc"`` is one string, not three tags)."""
    if value is None:
        return None
    if not isinstance(value, list):
        return f"'tags' must be a list of text, e.g. [\"wrong-fact\"], not {_kind(value)}"
    if len(value) > MAX_TAGS:
        return f"'tags' has {len(value)} entries; at most {MAX_TAGS}"
    for tag in value:
        problem = name_problem(tag, "a tag", MAX_TAG_CHARS)
        if problem is not None or not isinstance(tag, str):
            return problem or "a tag must be text"
    return None


def comment_problem(value: Any) -> str | None:
    """A comment: non-empty text of at most :data:`MAX_COMMENT_CHARS` characters that UTF-8 can
    store (control characters are kept as written and shown as placeholders wherever it is shown)."""
    return text_problem(value, "comment", MAX_COMMENT_CHARS, "type what later reviewers should know")


def text_problem(value: Any, what: str, limit: int, hint: str) -> str | None:
    """A person's text on an item (a ``what``): non-empty text of at most ``limit`` characters
    that UTF-8 can store; else what is wrong, with ``hint`` saying what to write when it is empty."""
    if not isinstance(value, str):
        return f"a {what} must be text, not {_kind(value)}"
    if not value.strip():
        return f"the {what} is empty; {hint}"
    if len(value) > limit:
        return f"the {what} is {len(value)} characters; at most {limit}"
    if _SURROGATE.search(value):
        return f"the {what} holds a lone surrogate (broken text encoding); retype it"
    return None


def text_or_none(value: Any, what: str) -> str | None:
    """None when ``value`` is text or absent, else what is wrong."""
    if value is None or isinstance(value, str):
        return None
    return f"{what} must be text, not {_kind(value)}"


def conversation_problem(value: Any) -> str | None:
    """A conversation: a list of {role, content} objects with text in both."""
    if value is None:
        return None
    if not isinstance(value, list):
        return f"'conversation' must be a list of {{role, content}}, not {_kind(value)}"
    for turn in value:
        if (not isinstance(turn, dict) or not isinstance(turn.get("role"), str)
                or not isinstance(turn.get("content", ""), str)):
            return "each 'conversation' turn must be an object with 'role' and 'content' text"
    return None


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    return "null" if value is None else type(value).__name__


#: Why PostgreSQL refuses a row: its text columns cannot hold NUL, nor its JSON columns ``\u0000``.
NUL_PROBLEM = ("holds a NUL character (\\u0000), which a PostgreSQL database cannot store; remove it from "
               "the text (a SQLite database keeps it)")


def nul_field(fields: Mapping[str, Any]) -> str | None:
    """The first of ``fields`` (a row's, by name) holding a NUL character anywhere in its text,
    its keys or its nested values; None when none does."""
    for name, value in fields.items():
        stack: list[Any] = [value]
        while stack:
            v = stack.pop()
            if isinstance(v, str):
                if "\x00" in v:
                    return name
            elif isinstance(v, Mapping):
                stack.extend(v.keys())
                stack.extend(v.values())
            elif isinstance(v, Sequence):
                stack.extend(v)
            elif dataclasses.is_dataclass(v) and not isinstance(v, type):
                stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
    return None
