"""How a report is written as JSON — one rule for the command line's ``--format json`` and the
Python API (:mod:`rubricate.api`), which reads its calibration report back through it.

JSON goes out ASCII-only: every character of stored or file text beyond ASCII (and every control
character) is a ``\\u`` escape, so text under review never reaches the terminal raw, and a
script reading the JSON gets the text exactly as stored. A report is a ``TypedDict`` (a plain
dict) or a dataclass (written as the object of its fields); :func:`report_json` is the one writer.
This module imports nothing of the command line (typer): the notebook API loads it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import SupportsFloat, cast


def report_json(data: object, indent: int | None = 1, other: Callable[[object], object] = str) -> str:
    """``data`` as ASCII JSON: a dataclass as the object of its fields, any other value JSON has
    no form for through ``other`` (``str``; the calibration reports, whose only such values are
    numpy numbers, ``float``)."""

    def fallback(value: object) -> object:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return dataclasses.asdict(value)
        return other(value)

    return json.dumps(data, indent=indent, ensure_ascii=True, default=fallback)


def calibration_number(value: object) -> float:
    """What a calibration report's JSON writes for a value JSON has no form for (its only such
    values are numpy numbers): a float. ``rubricate calibrate --format json`` and the Python API's
    ``Store.calibrate`` both write through it."""
    return float(cast(SupportsFloat, value))
