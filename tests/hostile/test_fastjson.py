"""orjson reads and hashes an import's rows only where it gives exactly what ``json`` gives
(reviewer/io/fastjson.py): the stored content hashes are compared on every re-import, so one
changed byte of canonical text would make every item "changed"."""

from __future__ import annotations

import json
import math
import random
import struct
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.io.fastjson import canonical_bytes, loads_line

_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def old_canonical(value: Any) -> bytes:
    """What the content hash was taken over before orjson (and still is where orjson declines)."""
    return _JSON.encode(value).encode()


def test_floats_are_written_as_json_writes_them() -> None:
    rng = random.Random(5)
    values = [1e16, 1e-5, 1e-4, 9.99e-5, 5e-324, 1.7976931348623157e308, -0.0, 0.1, 1e15, 9999999999999998.0]
    for _ in range(20_000):
        values.append(struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0])
        values.append(rng.uniform(-10, 10) * 10.0 ** rng.randint(-30, 30))
    for v in values:
        if math.isfinite(v):
            assert canonical_bytes({"score": v}) == old_canonical({"score": v}), v
    # without the exponent test orjson's text would differ (how it failed): 1e-05 / 0.00001
    assert orjson.dumps(1e-5) != old_canonical(1e-5) and orjson.dumps(1e16) != old_canonical(1e16)


def test_text_and_key_order_are_written_as_json_writes_them() -> None:
    text = "".join(chr(c) for c in [*range(0, 0xD800), *range(0xE000, 0x110000, 7)])
    keys = ["\uffff", "\U00010000", "a", "B", "é", "", "aa", "a\x00", "\u2028"]
    value = {"output": text, "metadata": {k: [1, True, None, "x\"\\"] for k in keys}}
    assert canonical_bytes(value) == old_canonical(value)


def test_what_orjson_cannot_write_goes_through_json() -> None:
    for value in ({"n": 2**64}, {"n": -(2**63) - 1}, {"t": "\ud800"}):
        if isinstance(value.get("t"), str):  # a lone surrogate: neither encodes it as UTF-8
            try:
                old_canonical(value)
            except UnicodeEncodeError:
                continue
        assert canonical_bytes(value) == old_canonical(value)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=6), json_values, max_size=6))
def test_any_row_reads_and_hashes_as_with_json(row: dict[str, Any]) -> None:
    try:
        raw = json.dumps(row, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return  # a lone surrogate: json itself cannot write the line
    fast = loads_line(raw)
    if fast is not None:  # read by orjson: the very object json reads
        assert fast == json.loads(raw) and _types(fast) == _types(json.loads(raw))
    assert canonical_bytes(row) == old_canonical(row)


def _types(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__


def test_lines_orjson_would_read_otherwise_are_left_to_json() -> None:
    big = b'{"id": "a", "metadata": {"n": 123456789012345678901}}'
    # orjson alone turns the integer into a float (json keeps it): the line is left to json
    assert isinstance(orjson.loads(big)["metadata"]["n"], float)
    assert loads_line(big) is None
    deep = b'{"id": "a", "metadata": ' + b"[" * 40 + b"]" * 40 + b"}"
    assert loads_line(deep) is None  # the depth message is json's path's
    for raw in (b'{"a": "\\ud800"}', b'{"a": NaN}', b'{"a": 1e400}', b'{"a": "\xff"}', b"", b"\n", b"[1]",
                b'{"a": 1} x', b'{"a": 1'):
        assert loads_line(raw) is None, raw
    assert loads_line(b'{"id": "a", "n": 1234567890123456789, "x": 0.5}\n') is None  # 19 digits: json reads it
    assert loads_line(b'{"id": "a", "n": 123456789012345678, "x": 0.5}\n') == {"id": "a", "n": 123456789012345678,
                                                                               "x": 0.5}
