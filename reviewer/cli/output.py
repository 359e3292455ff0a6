"""``--format table|json`` for the listing and report commands: one option, one check, one way
JSON is written.

JSON goes out ASCII-only: every character of stored or file text beyond ASCII (and every control
character) is a ``\\u`` escape, so text under review never reaches the terminal raw, and a
script reading the JSON gets the text exactly as stored.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

#: The ``--format`` option of a command that prints a table or JSON.
FormatOption = Annotated[str, typer.Option("--format", help="table or json.")]


def check_format(fmt: str, allowed: tuple[str, ...] = ("table", "json")) -> None:
    """Refuse an unknown ``--format`` in one line, before anything is read or printed."""
    from reviewer.errors import UserError

    if fmt not in allowed:
        raise UserError(f"--format {fmt!r}: use {' or '.join(allowed)}")


def emit_json(data: Any) -> None:
    """Print ``data`` as indented JSON on standard output."""
    typer.echo(json.dumps(data, indent=1, ensure_ascii=True, default=str))
