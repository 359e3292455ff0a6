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
import pytest
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


# A key written twice in one object: orjson (and plain json) keep the last one silently; an
# import refuses the line instead (issue 23). Objects are written here from their pairs, so a
# key may repeat, with a colon inside text sometimes spelled as the escape \u003a.
class _Obj:
    """A JSON object as written pairs (a key may repeat)."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self.pairs = pairs


_keys = st.sampled_from(["a", "b", "a:b", ":", "id", "é"])
_leaf = st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["x", "x:y", "::", "é:"])
_pairs_values = st.recursive(
    _leaf,
    lambda inner: st.lists(inner, max_size=3) | st.builds(_Obj, st.lists(st.tuples(_keys, inner), max_size=4)),
    max_leaves=12)


def _write(value: Any, escape: bool, space: str) -> str:
    if isinstance(value, _Obj):
        return "{" + f",{space}".join(f"{_write(k, escape, space)}:{space}{_write(v, escape, space)}"
                                      for k, v in value.pairs) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_write(v, escape, space) for v in value) + "]"
    text = json.dumps(value, ensure_ascii=False)
    return text.replace(":", "\\u003a") if escape and isinstance(value, str) else text


def _repeats(value: Any) -> bool:
    if isinstance(value, _Obj):
        keys = [k for k, _ in value.pairs]
        return len(set(keys)) < len(keys) or any(_repeats(v) for _, v in value.pairs)
    return isinstance(value, list) and any(_repeats(v) for v in value)


@settings(max_examples=400, deadline=None)
@given(st.builds(_Obj, st.lists(st.tuples(_keys, _pairs_values), max_size=5)), st.booleans(),
       st.sampled_from(["", " ", "\t "]))
def test_a_repeated_key_is_never_read_by_orjson_and_json_refuses_it(row: _Obj, escape: bool, space: str) -> None:
    from reviewer.io.fastjson import DuplicateKey, unique_pairs

    raw = _write(row, escape, space).encode()
    fast = loads_line(raw)
    reader = json.JSONDecoder(object_pairs_hook=unique_pairs)
    if _repeats(row):
        assert fast is None, raw  # left to json, which words the refusal
        with pytest.raises(DuplicateKey):
            reader.decode(raw.decode())
    else:
        assert reader.decode(raw.decode()) == json.loads(raw)
        if fast is not None:
            assert fast == json.loads(raw)


def test_an_escaped_colon_cannot_hide_a_repeated_key() -> None:
    # three colons in the line, three in orjson's text of {"id": "a", "output": ":"}: the counts
    # alone agree; the escape sends the line to json
    raw = b'{"id": "a", "output": "\\u003a", "output": "\\u003a"}'
    assert orjson.loads(raw) == {"id": "a", "output": ":"}
    assert loads_line(raw) is None
    assert loads_line(b'{"id": "a", "output": "x", "output": "y"}') is None
    assert loads_line(b'{"id": "a", "judge": {"scores": {"accuracy": 3, "accuracy": 9}}}') is None
    assert loads_line(b'{"id": "a:b", "output": "time: 10:30"}') == {"id": "a:b", "output": "time: 10:30"}
