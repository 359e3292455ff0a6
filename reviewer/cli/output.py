"""``--format table|json`` for the listing and report commands: one option, one check, one way
JSON is written (:mod:`reviewer.services.report_json`, which the Python API reads too: its
``report_json`` and ``calibration_number`` are this module's as well)."""

from __future__ import annotations

from typing import Annotated

import typer

from reviewer.services.report_json import calibration_number, report_json

#: The ``--format`` option of a command that prints a table or JSON.
FormatOption = Annotated[str, typer.Option("--format", help="table or json.")]


def check_format(fmt: str, allowed: tuple[str, ...] = ("table", "json")) -> None:
    """Refuse an unknown ``--format`` in one line, before anything is read or printed."""
    from reviewer.errors import UserError

    if fmt not in allowed:
        raise UserError(f"--format {fmt!r}: use {' or '.join(allowed)}")


def emit_json(data: object) -> None:
    """Print ``data`` as indented JSON on standard output (see :func:`report_json`)."""
    typer.echo(report_json(data))


__all__ = ["FormatOption", "calibration_number", "check_format", "emit_json", "report_json"]
