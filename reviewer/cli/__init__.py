"""The ``rubricate`` command line: a thin typer layer over the library.

Each command group lives in its own module and registers itself on :data:`app` when imported.
No module here imports litellm, torch or sentence-transformers at import time, so
``rubricate --help`` stays fast; the commands that need them import them inside.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

app = typer.Typer(
    name="rubricate",
    help=(
        "Review LLM-judge scores in a terminal, measure judge–human agreement, "
        "and route what the judge cannot be trusted on to people.\n\n"
        "Example: rubricate rubric validate rubrics/library/*.yaml"
    ),
    no_args_is_help=True,
    # --install-completion / --show-completion for bash, zsh, fish and PowerShell
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    # every command and group inherits -h beside --help
    context_settings={"help_option_names": ["-h", "--help"]},
)
rubric_app = typer.Typer(
    help="Validate, show, compare, register and import rubrics.\n\n"
    "Example: rubricate rubric show general-quality",
    no_args_is_help=True,
)
app.add_typer(rubric_app, name="rubric")
#: The ``--db`` option every command that opens the database takes.
DbOption = Annotated[
    str | None,
    typer.Option("--db", help="SQLAlchemy URL or SQLite path (default: $RUBRICATE_DB, else the user data dir)."),
]


def _version(value: bool) -> None:
    """``--version``: the installed distribution's version, then exit."""
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"rubricate {version('rubricate')}")
        except PackageNotFoundError:  # run from a checkout that was never installed
            typer.echo("rubricate (not installed: no version recorded)")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_version, help="Print the version and exit.")] = False,
) -> None:
    """The options every command shares (the program's help is the :data:`app`'s own)."""


def _register() -> None:
    """Import every command module so its commands attach to :data:`app`."""
    from reviewer.cli import rubric_cmds  # noqa: F401

    for name in ("data_cmds", "adapter_cmds", "queue_show", "queue_progress", "team_cmds", "judge_cmds", "calibrate_cmds",
                 "review_cmds", "serve_cmds", "align_cmds"):
        try:
            __import__(f"reviewer.cli.{name}")
        except ModuleNotFoundError as exc:  # a group not built yet
            if exc.name != f"reviewer.cli.{name}":
                raise


def main() -> None:
    """Entry point: run the app; every fault is one line on standard error with its exit code
    (:mod:`reviewer.cli.faults`: 1 bad input, 2 usage, 3 database unavailable)."""
    from reviewer import faults

    try:
        _register()
        # click returns an Exit's code here rather than raising; the name is the program's, also
        # under `python -m reviewer`, so help and shell completion (_RUBRICATE_COMPLETE) say rubricate
        code = app(standalone_mode=False, prog_name="rubricate")
    except SystemExit:
        raise
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        faults.say("interrupted")
        sys.exit(faults.INTERRUPTED)
    except BrokenPipeError:
        faults.quiet_broken_pipe()
        sys.exit(0)
    except Exception as exc:
        from typer._click.exceptions import NoArgsIsHelpError

        if isinstance(exc, NoArgsIsHelpError):  # `rubricate` or `rubricate rubric` alone: the help
            print(exc.format_message())
            sys.exit(0)
        if faults.debug():
            raise
        sys.exit(faults.report(exc))
    if isinstance(code, int) and code:
        sys.exit(code)


def run() -> None:
    """The ``rubricate`` program (and ``python -m reviewer``): :func:`main`, in a process that
    ends with it. What the command left behind is frozen out of the garbage collector first: the
    collection passes at interpreter exit would only walk objects about to be freed anyway
    (~0.2 s with SQLAlchemy loaded, a tenth of a short ``calibrate``). Tests call :func:`main`."""
    import gc

    try:
        main()
    finally:
        gc.freeze()
