"""Starting the review app: :func:`run_app` (what ``rubricate review`` and ``demo`` run), and the
served session's own entry point (``python -m reviewer.tui.run``), which ``rubricate serve``
starts for each visitor without loading the command line (typer and every command module: a
few hundred milliseconds of each visitor's first frame).

``--spare``: the server keeps one session started ahead, its modules loaded, holding no link and
reading nothing until its visitor's line arrives on standard input (:func:`spare`): a visitor's
first frame then waits for the app alone, not for Python to load it."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reviewer.tui.host import ReviewOf


def need_terminal(command: str, instead: str) -> None:
    """Refuse in one line, before anything is opened, to start the app from ``command`` when it
    has no terminal to run in: the app reads keys from standard input and draws on standard error
    (Textual's terminal; standard output may be redirected), so both must be terminals — in CI,
    a pipe or a redirected ``2>``, the app would wait for keys that never come. ``instead``: what
    to run without a terminal. A served session (:func:`session`) draws through the browser, and
    never asks."""
    from reviewer.errors import UserError

    for name, stream in (("standard input", sys.__stdin__), ("standard error", sys.__stderr__)):
        if stream is None or not stream.isatty():
            raise UserError(f"{command} needs a terminal, and its {name} is not one (the app reads keys from "
                            f"standard input and draws on standard error): run it in a terminal, or {instead}")


def run_app(db: str | None, reviewer: str, queue: str, rubric: str | None, dataset: str | None,
            blind: bool, review_of: ReviewOf | None = None, command: tuple[str, str] | None = None) -> int:
    """Open the store and run the app until the reviewer quits; its exit code (``review_of``: open
    on a lead's walk of that person's scores; ``command``: (name, what to run instead) of the
    command that starts it from a shell, refused without a terminal by :func:`need_terminal`
    once the database is known to be there)."""
    from reviewer.errors import NoDatabase
    from reviewer.locations import default_db
    from reviewer.store.lite import missing_database
    from reviewer.tui import firstpage
    from reviewer.tui.config import load_settings

    settings = load_settings()
    db = db or default_db()
    if missing_database(db):  # a reading command: before the TUI loads (the app checks the rest)
        raise NoDatabase(db)
    if command is not None:
        need_terminal(*command)
    # The first page is read while Textual loads; the app opens the store in a worker (and
    # applies a blind queue setting then), so the queue shows before SQLAlchemy has loaded.
    first = firstpage.start(db, queue, rubric, dataset, settings.page_size)
    from reviewer.tui.app import make_app

    app = make_app(None, reviewer, queue, rubric, dataset, blind, settings, db=db, first_page=first, review_of=review_of)
    app.run()
    return int(app.return_code or 0)


def session(argv: list[str]) -> int:
    """A served visitor's session: ``--db DB --reviewer NAME``, the link's token in
    ``$RUBRICATE_LINK_TOKEN`` (the store is opened through the link, which refuses a token that
    no longer opens a live link). Every fault is one line on standard error."""
    import argparse
    import os

    from reviewer import faults
    from reviewer.locations import LINK_TOKEN_ENV

    parser = argparse.ArgumentParser(prog="rubricate serve (session)")
    parser.add_argument("--db", required=True)
    parser.add_argument("--reviewer", required=True)
    args = parser.parse_args(argv)
    if not os.environ.get(LINK_TOKEN_ENV):
        faults.say(f"error: a served session runs only through a link (${LINK_TOKEN_ENV} is not set)")
        return 2
    try:
        return run_app(args.db, args.reviewer, "triage", None, None, False)
    except Exception as exc:
        return faults.report(exc)


def spare(argv: list[str]) -> int:
    """A session started ahead: load the app's modules, then wait for one JSON line on standard
    input — ``{"token", "reviewer", "width", "height"}`` — and run :func:`session` with it. The
    line is read a byte at a time: what follows it (the app's own input) stays in the pipe."""
    import json
    import os

    from textual.drivers import web_driver  # noqa: F401  (loaded now: the point of a spare)

    from reviewer.locations import LINK_TOKEN_ENV
    from reviewer.tui import app, firstpage  # noqa: F401

    line = b""
    while not line.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            return 0  # the server ended without needing this session
        line += byte
    visitor = json.loads(line)
    os.environ[LINK_TOKEN_ENV] = str(visitor["token"])
    os.environ["COLUMNS"], os.environ["ROWS"] = str(int(visitor["width"])), str(int(visitor["height"]))
    return session([*argv, "--reviewer", str(visitor["reviewer"])])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--spare"]:
        sys.exit(spare(sys.argv[2:]))
    sys.exit(session(sys.argv[1:]))
