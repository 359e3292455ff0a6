"""Helpers the detectors share: building a hit with context, and sentence windows."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rubrics.results import SafetyHit

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def make_hit(
    item: Mapping[str, Any], gate: str, detector: str, text: str, start: int, end: int
) -> SafetyHit:
    """A hit on ``text[start:end]`` with about 40 characters either side for the reviewer."""
    lo, hi = max(0, start - 40), min(len(text), end + 40)
    context = ("…" if lo else "") + text[lo:hi] + ("…" if hi < len(text) else "")
    return SafetyHit(
        item_id=str(item.get("id", "")),
        gate=gate,
        detector=detector,
        start=start,
        end=end,
        matched=text[start:end],
        context=context.replace("\n", " "),
    )


def sentence_window(text: str, start: int, end: int) -> str:
    """The sentence holding ``text[start:end]`` plus the sentence before it.

    Context-aware gates look here for a refusal or a defensive framing: close enough to belong
    to the match, not so wide that one disclaimer excuses a whole answer.
    """
    bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    starts = [b for b in bounds if b <= start]
    sentence_start = starts[-1] if starts else 0
    previous = [b for b in bounds if b < sentence_start]
    window_start = previous[-1] if previous else sentence_start
    after = [b for b in bounds if b >= end]
    window_end = after[0] if after else len(text)
    return text[window_start:window_end]
