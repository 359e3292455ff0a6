"""Pair records of a JSON Lines item file, read and checked before any write.

A pair line is ``{"pair": {"a": ID, "b": ID}, "human": [...], "judge": {...}}`` (docs/formats.md,
"Pair records"). :func:`reviewer.io.itemfile.iter_rows` leaves such lines to this module; the
store checks that the items named exist (in the same file or already stored) when it writes them.
"""

from __future__ import annotations

import json
import mmap
from pathlib import Path
from typing import Any

from reviewer.domain.itemlimits import MAX_ID_CHARS, name_problem, text_or_none
from reviewer.domain.pairs import WINNERS, PairRecord, PairVerdict
from reviewer.io.fastjson import loads_line

PAIR_FIELDS = frozenset({"pair", "human", "judge"})
_HUMAN_FIELDS = frozenset({"reviewer", "winner", "reason"})
_JUDGE_FIELDS = frozenset({"model", "winner", "rationale"})
#: A pair line's marker, looked for in the raw bytes before a line is parsed a second time.
_MARK = b'"pair"'


def is_pair(obj: dict[str, Any]) -> bool:
    """Whether a parsed line of an item file is a pair record."""
    return "pair" in obj


def check_pair(line: int, obj: dict[str, Any]) -> PairRecord | str:
    """The pair record of a parsed line, or what is wrong with it (one sentence, no location)."""
    unknown = set(obj) - PAIR_FIELDS
    if unknown:
        return f"pair record: unknown field {sorted(unknown)[0]!r}; a pair line has {', '.join(sorted(PAIR_FIELDS))}"
    pair = obj["pair"]
    if not isinstance(pair, dict) or set(pair) != {"a", "b"}:
        return "'pair' must be an object {\"a\": ID, \"b\": ID} naming the two items compared"
    ids = []
    for side in ("a", "b"):
        value = pair[side]
        if not isinstance(value, (str, int)) or isinstance(value, bool) or str(value) == "":
            return f"pair: {side!r} must be an item id (text or a whole number)"
        problem = name_problem(str(value), f"pair {side!r}", MAX_ID_CHARS)
        if problem is not None:
            return problem
        ids.append(str(value))
    if ids[0] == ids[1]:
        return f"pair: 'a' and 'b' are both {ids[0]!r}; a pair compares two different items"
    human = obj.get("human", [])
    if not isinstance(human, list):
        return "pair: 'human' must be a list of {\"reviewer\", \"winner\", \"reason\"} objects"
    verdicts = []
    for k, h in enumerate(human):
        got = _verdict(h, "reviewer", "reason", _HUMAN_FIELDS, f"human[{k}]")
        if isinstance(got, str):
            return got
        verdicts.append(got)
    judge = None
    if obj.get("judge") is not None:
        got = _verdict(obj["judge"], "model", "rationale", _JUDGE_FIELDS, "judge")
        if isinstance(got, str):
            return got
        judge = got
    if not verdicts and judge is None:
        return "pair: no verdict; give 'human' verdicts, a 'judge' verdict, or both"
    return PairRecord(line, ids[0], ids[1], tuple(verdicts), judge)


def _verdict(value: Any, who: str, why: str, fields: frozenset[str], at: str) -> PairVerdict | str:
    """One verdict object, or what is wrong with it."""
    if not isinstance(value, dict):
        return f"pair: {at} must be an object with {who!r} and 'winner'"
    unknown = set(value) - fields
    if unknown:
        return f"pair: {at}: unknown field {sorted(unknown)[0]!r}; known: {', '.join(sorted(fields))}"
    problem = name_problem(value.get(who), f"{at} {who!r}")
    if problem is not None:
        return f"pair: {problem}"
    winner = value.get("winner")
    if winner not in WINNERS:
        return f"pair: {at}: 'winner' is {winner!r}; give \"a\", \"b\" or \"tie\""
    problem = text_or_none(value.get(why), f"{at} {why!r}")
    if problem is not None:
        return f"pair: {problem}"
    return PairVerdict(str(value[who]), str(winner), value.get(why) or None)


def read_pairs(path: Path, errs: list[str], name: str | None = None) -> list[PairRecord]:
    """The pair records of a JSON Lines item file; each bad one appended to ``errs`` as
    ``FILE:LINE: what``. Only lines holding ``"pair"`` are parsed (the item rows are read by
    :func:`reviewer.io.itemfile.iter_rows`, which reports their problems); CSV files hold none.
    ``name`` is what messages call the file (``-`` for standard input spooled to ``path``)."""
    out: list[PairRecord] = []
    if path.suffix.lower() == ".csv" or not path.exists() or path.stat().st_size == 0:
        return out
    with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        # found by a search over the whole file (a file of items alone is not read line by line)
        line, counted = 1, 0
        at = data.find(_MARK)
        while at != -1:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            end = len(data) if end == -1 else end + 1
            line += data[counted:start].count(b"\n")
            counted = start
            got = _pair_line(line, data[start:end])
            if isinstance(got, str):
                errs.append(f"{name or path}:{line}: {got}")
            elif got is not None:
                out.append(got)
            at = data.find(_MARK, end)
    return out


def _pair_line(line: int, raw: bytes) -> PairRecord | str | None:
    """The pair record of one raw line, what is wrong with it, or None when it is not one."""
    obj = loads_line(raw)
    if obj is None:
        try:
            obj = json.loads(raw.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return None  # (iter_rows reports the line)
    if not isinstance(obj, dict) or not is_pair(obj):
        return None
    return check_pair(line, obj)

__all__ = ["PAIR_FIELDS", "check_pair", "is_pair", "read_pairs"]
