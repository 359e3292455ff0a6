"""Shared pieces of the hostile suite: hostile strings, a check for raw control characters, a
case record, and a builder for a store full of hostile data.

Every case in ``tests/hostile/`` is a :class:`Case`: a name, the sentence it proves, and the
payload. A test shows the failure without the guard first (the raw string carries ESC / is read
as markup / crashes) and then that the guarded path does not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

#: Strings written by the systems under evaluation, as an attacker would write them.
HOSTILE: dict[str, str] = {
    "clear_screen": "\x1b[2J\x1b[H",
    "set_title_bel": "\x1b]0;pwned\x07",
    "set_title_st": "\x1b]2;pwned\x1b\\",
    "red_text": "\x1b[31mred\x1b[0m",
    "osc8_hyperlink": "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\",
    "c1_csi": "\x9b2J",
    "bell": "ding\x07",
    "backspace_rewrite": "approved\x08\x08\x08\x08\x08\x08\x08\x08rejected",
    "carriage_return": "good answer\rbad",
    "nul": "a\x00b",
    "delete": "a\x7fb",
    "bidi_override": "invoice_\u202efdp.exe",
    "bidi_isolate": "\u2066hidden\u2069",
    "zero_width_space": "pass\u200bword",
    "bom_inside": "x\ufeffy",
    "tag_characters": "hello\U000e0069\U000e0067\U000e006e",
    "line_separator": "one\u2028two",
    "lone_surrogate": "bad \ud800 text",
}

#: Names Rich or Textual would read as markup: a crash (``[/]``) or a live hyperlink.
MARKUP: dict[str, str] = {
    "close_tag": "[/]",
    "link": "[link=http://evil.example]click me[/link]",
    "style": "[bold red]alarm[/]",
    "action": "[@click=app.quit]quit[/]",
    "unclosed": "[bold",
    "escaped_bracket": "\\[not a tag]",
}

_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b\ufeff\u2028\ud800-\udfff"
                  "\U000e0000-\U000e007f]")


def raw_controls(text: str) -> list[str]:
    """The control / harmful invisible characters in ``text`` (\\n and \\t allowed)."""
    return _RAW.findall(text)


def one_line(stderr: str) -> str:
    """The single line a fault printed (asserts there is exactly one and no traceback)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr, stderr
    assert len(lines) == 1, stderr
    return lines[0]


@dataclass(frozen=True)
class Case:
    """One hostile case: what it is, what it proves, and its data."""

    name: str
    proves: str
    args: tuple[Any, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.name


def ids(cases: list[Case]) -> list[str]:
    return [c.name for c in cases]


#: One string with everything at once: escapes, bidi, markup.
EVERYTHING = "".join(HOSTILE[k] for k in ("set_title_bel", "clear_screen", "red_text", "osc8_hyperlink",
                                         "bidi_override", "c1_csi")) + MARKUP["close_tag"] + MARKUP["link"]


def hostile_items_file(path: Path, n: int = 4, text: str = EVERYTHING) -> Path:
    """A JSON Lines file of items for general-quality@1.0.0 whose input, output, judge rationale
    and human reasons carry ``text``, with the model and reviewers named like markup (import
    refuses control characters in names; :func:`hostile_run` puts one in a database anyway)."""
    rows = []
    for i in range(n):
        rows.append({
            "id": f"h-{i}", "input": "input " + text, "output": "output " + text,
            "judge": {"model": "model" + MARKUP["link"],  # printable: import refuses controls in names
                      "scores": {"accuracy": {"score": 7, "rationale": "rationale " + text}}},
            "human": [{"reviewer": MARKUP["close_tag"] + "ana",
                       "scores": {"accuracy": {"score": 3 + i, "reason": "reason " + text}}},
                      {"reviewer": "[link=http://evil.example]bob", "scores": {"accuracy": 8}}],
        })
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def hostile_run(db: str, model: str = "model" + EVERYTHING) -> int:
    """Add a judge run whose model name carries escapes straight into a SQLite database — as a
    database written before import checked names, or by another tool, would hold — and return
    its id. (Tests may use SQL directly; the application keeps SQL in ``reviewer/store``.)"""
    import sqlite3

    with sqlite3.connect(db) as conn:
        cur = conn.execute(
            "INSERT INTO judge_run (rubric_ref, model, source, status, started_at) "
            "VALUES ('general-quality@1.0.0', ?, 'import', 'done', '2026-01-01 00:00:00')", (model,))
        return int(cur.lastrowid or 0)


def unguarded_raises(exc: type[BaseException], fn: Callable[[], Any]) -> Callable[[], None]:
    """A table case's "without the guard" check: the unguarded path raises ``exc``."""
    def check() -> None:
        with pytest.raises(exc):
            fn()
    return check


def unguarded_true(value: bool) -> Callable[[], None]:
    """A table case's "without the guard" check: ``value`` shows the unguarded path's failure."""
    def check() -> None:
        assert value
    return check
