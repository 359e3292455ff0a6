"""Pair items and verdicts written as an items file (test modules import these, never one another)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REF = "reval-issue-framing@1.0.0"


def items(*ids: str, group: str = "g1") -> list[dict[str, Any]]:
    """Items of one group, variants a, b, ... in the order given."""
    return [{"id": i, "output": f"answer {i}", "group": group, "variant": "abcdefgh"[k]} for k, i in enumerate(ids)]


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def pair(a: str, b: str, human: Sequence[tuple[str, str, str | None]] = (), judge: tuple[str, str, str] | None = None,
         ) -> dict[str, Any]:
    """A pair line: human verdicts as (reviewer, winner, reason), a judge's as (model, winner, rationale)."""
    row: dict[str, Any] = {"pair": {"a": a, "b": b}}
    if human:
        row["human"] = [{"reviewer": r, "winner": w, **({"reason": why} if why else {})} for r, w, why in human]
    if judge:
        row["judge"] = {"model": judge[0], "winner": judge[1], "rationale": judge[2]}
    return row
