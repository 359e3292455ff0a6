"""orjson where it gives exactly what the standard ``json`` module gives, and nothing otherwise.

An import reads and hashes every row: the standard module's decoder and its canonical encoder
(``sort_keys``, compact, ``ensure_ascii=False``) were a third of the reader's time. orjson does
both several times faster, but differs from ``json`` in a few corners. Where an input lies in one
of them, :func:`loads_line` answers None and the caller reads that row with ``json`` (the path that
also words every error), and :func:`canonical_bytes` writes it with ``json`` itself:

- reading: an integer beyond 64 bits becomes a float in orjson (``json`` keeps the int), so a
  line with a run of 19 or more digits is left to ``json``; a lone surrogate escape (``\\ud800``),
  ``NaN``/``Infinity``, a number beyond a double's range, invalid UTF-8, a blank line and every
  malformed line make orjson raise; a line nesting deeper than the row limit is left to ``json``
  (its depth message must not depend on which parser read it);
- writing: a float ``json`` writes with an exponent (``1e-05``, ``1e+16``) is written otherwise by
  orjson (``0.00001``, ``1e16``), so output holding a number token with an exponent or four
  leading zeros after the point is thrown away; integers beyond 64 bits and lone surrogates
  make orjson raise;
- a key written twice in one object: orjson keeps the last one, ``json`` (with
  :func:`unique_pairs`) refuses the line. orjson's own text of what it read has as many colons as
  the line only when no key was dropped (every key and every colon inside text is written again;
  a dropped key takes its colon with it), unless the line spells a colon as an escape
  (``\\u003a``): such a line, and any line whose counts differ, is left to ``json``.

Strings (every code point, escapes of control characters), key order (code point order),
``true``/``false``/``null`` and every other float are written byte for byte alike (checked by
``tests/hostile/test_fastjson.py`` against the standard module).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from reviewer.domain.itemlimits import MAX_DEPTH

#: Every digit as ``0``: a run of 19 of them may be an integer orjson would turn into a float.
_DIGITS = bytes.maketrans(b"123456789", b"000000000")
_LONG_RUN = b"0" * 19
#: Digits but ``0`` as ``1``: a float orjson writes otherwise than ``json`` shows as ``1e``/``0e``
#: (an exponent) or ``0.0000`` (below 1e-4, written out) — a test meant to err towards ``json``:
#: text that merely looks so ("10e", "0.00005 s") only takes the slower path.
_NONZERO = bytes.maketrans(b"23456789", b"11111111")

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def loads_line(raw: bytes) -> dict[str, Any] | None:
    """One line of a JSON Lines file as the object ``json`` would read, or None: the caller reads
    the line with ``json`` (it may be fine, and orjson only declined it, or wrong and worded there).
    An object given back passes :func:`reviewer.domain.itemlimits.structure_problem`: it nests no
    deeper than the limit (it has fewer brackets) and holds no lone surrogate (orjson refuses one)."""
    if raw.count(b"{") + raw.count(b"[") > MAX_DEPTH or _LONG_RUN in raw.translate(_DIGITS):
        return None
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if type(obj) is not dict or raw.count(b":") != orjson.dumps(obj).count(b":"):
        return None  # a key written twice (or a colon inside text written as an escape)
    if raw.find(b"\\") >= 0 and b"\\u003" in raw:  # (most lines hold no backslash: one fast scan)
        return None  # an escaped colon could stand in for a dropped key's: json reads it

    return obj


class DuplicateKey(ValueError):
    """A key appears twice in one JSON object (the message names it)."""


def unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for ``json``: the object, or :class:`DuplicateKey` when a key repeats
    (``json`` and orjson would both keep the last one silently)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(f"key {key[:40]!r} appears twice in one object; keep one")
            seen.add(key)
    return obj


def canonical_bytes(value: Any) -> bytes:
    """``value`` in canonical JSON (keys sorted, compact, UTF-8): the text a content hash is over."""
    try:
        out = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # an integer beyond 64 bits, a lone surrogate
        return _CANONICAL.encode(value).encode()
    shape = out.translate(_NONZERO)
    if b"1e" in shape or b"0e" in shape or b"0.0000" in shape:
        return _CANONICAL.encode(value).encode()
    return out


__all__ = ["DuplicateKey", "canonical_bytes", "loads_line", "unique_pairs"]
