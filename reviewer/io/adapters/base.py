"""What every adapter shares: the converted records, the drafted dimensions, the one-line error
naming a place in the source, and small readers.

An adapter is a pure converter: it reads one source format and gives rubricate's own import
records (the objects a line of an item file holds, ``docs/formats.md``) with where each came from,
plus a note for each kind of thing the source holds that has no home in rubricate. It never
writes and never guesses: a value it cannot read is an :class:`AdapterError` naming the file and
the place (``FILE:LINE`` or ``FILE:PATH.IN.JSON``).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import orjson

from rubrics.draft import DraftDimension


class AdapterError(ValueError):
    """A source file that cannot be read as its format: the message is one line, ``FILE:WHERE: what``."""


@dataclass
class Converted:
    """One source file converted: records in order, each with the place it came from."""

    #: the format's name (``promptfoo``, ``inspect``, …)
    format: str
    #: (place in the source, an import record) in the source's order
    records: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: dimension id → what the source says about it (for ``rubric init``)
    dimensions: dict[str, DraftDimension] = field(default_factory=dict)
    #: what has no home in rubricate: each kind once, with how many times it was met
    no_home: Counter[str] = field(default_factory=Counter)
    #: a name for the rubric a draft would hold (the source's task or eval name), if it has one
    title: str | None = None

    def notes(self) -> list[str]:
        """One line per kind of thing left out, with its count."""
        return [f"{what} ({n}×)" if n > 1 else what for what, n in self.no_home.items()]


def person_score(record: dict[str, Any], who: str, dim: str, value: float, reason: str | None) -> None:
    """Put a person's score (and reason) on ``dim`` into an import record's ``human`` list, in
    that person's entry (a later score of theirs on ``dim`` replaces an earlier one)."""
    people = record.setdefault("human", [])
    entry = next((h for h in people if h["reviewer"] == who), None)
    if entry is None:
        entry = {"reviewer": who, "scores": {}}
        people.append(entry)
    entry["scores"][dim] = {"score": value, **({"reason": reason} if reason else {})}


def judge_score(record: dict[str, Any], model: str, dim: str, value: float, rationale: str | None) -> None:
    """Put the judge's score (and rationale) on ``dim`` into an import record."""
    judge = record.setdefault("judge", {"model": model, "scores": {}})
    judge["scores"][dim] = {"score": value, **({"rationale": rationale} if rationale else {})}


def slug(name: str, fallback: str = "score") -> str:
    """A dimension or rubric id from a source's name: lower-case ASCII, ``_`` between words, at
    most 64 characters (the rubric format's rule for ids)."""
    out = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:64].strip("_")
    return out or fallback


def text(value: Any) -> str:
    """A source value as text: text as it is, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def number(value: Any) -> float | None:
    """A finite number (not a boolean), or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def obj(value: Any) -> dict[str, Any]:
    """``value`` if it is an object, else an empty one (for optional parts of a source)."""
    return value if isinstance(value, dict) else {}


def seq(value: Any) -> list[Any]:
    """``value`` if it is a list, else an empty one (for optional parts of a source)."""
    return value if isinstance(value, list) else []


def load_json(data: bytes, src: str) -> Any:
    """A whole-file JSON document, or an :class:`AdapterError` naming the line it breaks on."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        line = data[: exc.pos].count(b"\n") + 1 if exc.pos is not None else 1
        raise AdapterError(f"{src}:{line}: not valid JSON ({exc.msg}); export the file again") from None


def json_lines(data: bytes, src: str) -> list[tuple[int, Any]]:
    """Each non-blank line of a JSON Lines file, parsed, with its line number."""
    out: list[tuple[int, Any]] = []
    for n, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            out.append((n, orjson.loads(raw)))
        except orjson.JSONDecodeError as exc:
            raise AdapterError(f"{src}:{n}: not valid JSON ({exc.msg}); one JSON object per line") from None
    return out


def need(obj: Any, key: str, kind: type | tuple[type, ...], src: str, where: str) -> Any:
    """``obj[key]`` of the type the format gives it, or an :class:`AdapterError` naming the path."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(value, kind) or isinstance(value, bool) and bool not in _kinds(kind):
        names = " or ".join(k.__name__ for k in _kinds(kind))
        got = "missing" if value is None else type(value).__name__
        raise AdapterError(f"{src}:{where}.{key}: {got}, expected {names}")
    return value


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


__all__ = ["AdapterError", "Converted", "json_lines", "judge_score", "load_json", "need", "number", "obj", "person_score",
           "seq", "slug", "text"]
