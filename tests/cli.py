"""Run the real console entry point in-process, as a shell would, and keep what it printed."""

from __future__ import annotations

import sys

import pytest

from reviewer.cli import main


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``rubricate ARGV...``: (exit code, stdout, stderr)."""
    old, sys.argv = sys.argv, ["rubricate", *argv]
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        sys.argv = old
    out = capsys.readouterr()
    return code, out.out, out.err
