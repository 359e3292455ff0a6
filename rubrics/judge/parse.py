"""Reading a judge's reply: JSON only, never a guess.

Accepted shapes: the whole reply is a JSON object; exactly one fenced ```json block; or prose
ending in one JSON object (a prompt that says "end your response with a JSON block"). Anything else,
including two fenced blocks that could each be the answer, is a :class:`ReplyError`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from rubrics.schema import Scale

#: Longest JSON answer read (a judge answer is a few hundred characters).
MAX_REPLY_CHARS = 200_000
_FENCED = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


class ReplyError(ValueError):
    """A reply that cannot be used; the message is what the re-ask tells the model."""


def extract_json(text: str) -> dict[str, Any]:
    """The JSON object in a reply (see the module docstring for the accepted shapes)."""
    if not isinstance(text, str):
        raise ReplyError("the reply holds no text")
    if len(text) > MAX_REPLY_CHARS:
        raise ReplyError(f"the reply is {len(text)} characters; answer in at most {MAX_REPLY_CHARS}")
    stripped = text.strip()
    candidates: list[str] = []
    if stripped.startswith("{"):
        candidates.append(stripped)
    else:
        blocks = _FENCED.findall(stripped)
        if len(blocks) > 1:
            raise ReplyError("the reply holds more than one JSON block; give exactly one")
        if blocks:
            candidates.append(blocks[0].strip())
        else:
            tail = _trailing_object(stripped)
            if tail is not None:
                candidates.append(tail)
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError as exc:
            raise ReplyError(f"the reply is not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise ReplyError("the reply's JSON is nested too deeply") from None
        if not isinstance(value, dict):
            raise ReplyError("the reply must be a JSON object")
        return value
    raise ReplyError("the reply holds no JSON object")


def _trailing_object(text: str) -> str | None:
    """The JSON object the text ends with, if any."""
    if not text.endswith("}"):
        return None
    decoder = json.JSONDecoder()
    start = text.find("{")
    tries = 0
    while start != -1 and tries < 1000:  # a reply of ten thousand braces is not an answer
        tries += 1
        try:
            _, end = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            end = -1
        if end == len(text):
            return text[start:]
        start = text.find("{", start + 1)
    return None


_WRAPPING = " \t\"'`*_"


def last_line_choice(choices: Mapping[str, float]) -> Callable[[str], dict[str, Any]]:
    """FlexEval's reply: reasoning, then the choice alone on the last non-empty line.

    Strict: the last line, with surrounding quotes, asterisks, backticks and a final full stop
    taken off, must equal one of the choices (case-insensitively). A choice found elsewhere in
    the reply, or a last line that only contains a choice among other words, is refused
    (FlexEval itself scans every line from the end for one that starts or ends with a choice,
    which turns "NO, it is not YES" into an answer; rubricate never guesses)."""
    names = {name.lower(): name for name in choices}

    def parse(text: str) -> dict[str, Any]:
        lines = [ln for ln in text.strip().splitlines() if ln.strip()]
        if not lines:
            raise ReplyError("the reply is empty; end with one of " + ", ".join(choices))
        last = lines[-1].strip().strip(_WRAPPING).rstrip(".").strip(_WRAPPING)
        name = names.get(last.lower())
        if name is None:
            raise ReplyError(f"the last line {lines[-1].strip()[:80]!r} is not one of "
                             + ", ".join(choices))
        return {"choice": name, "rationale": "\n".join(lines[:-1]).strip()}

    return parse


def number_on_scale(value: Any, scale: Scale, what: str = "score") -> float:
    """``value`` as a float on ``scale`` (a declared level when the scale has levels)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ReplyError(f"{what} must be a number")
    try:
        number = float(value)
    except ValueError:
        raise ReplyError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(number) or not scale.contains(number):
        raise ReplyError(f"{what} {value} is off the scale {scale.min:g}–{scale.max:g}")
    if scale.levels is not None and all(abs(number - lv) > 1e-9 for lv in scale.levels):
        levels = ", ".join(f"{lv:g}" for lv in scale.levels)
        raise ReplyError(f"{what} {value} is not one of the levels {levels}")
    return number


def choice_score(value: Any, choices: Mapping[str, float]) -> tuple[str, float]:
    """The choice (matched case-insensitively) and its score."""
    if not isinstance(value, str):
        raise ReplyError("choice must be a string")
    wanted = value.strip().strip(".").lower()
    for name, score in choices.items():
        if name.lower() == wanted:
            return name, float(score)
    raise ReplyError(f"choice {value!r} is not one of {', '.join(choices)}")


def confidence_of(value: Any) -> float | None:
    """The judge's stated confidence clipped into [0, 1]; percentages are divided by 100."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    if not math.isfinite(number) or number < 0:
        return None
    if number > 1:
        number = number / 100 if number <= 100 else 1.0
    return number


def evidence_of(value: Any) -> list[Any]:
    """The evidence list (a single string becomes a list of one)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return list(value) if isinstance(value, list) else [value]
