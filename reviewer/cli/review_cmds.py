"""``rubricate review`` and ``rubricate demo``: open the review TUI on a store."""

from __future__ import annotations

from typing import Annotated

import typer

from reviewer.cli import DbOption, app
from reviewer.locations import os_login


@app.command()
def review(
    db: DbOption = None,
    reviewer: Annotated[str | None, typer.Option(help="Your reviewer name (default: the OS user); another "
                                                  "person's name only for a lead (SQLite).")] = None,
    queue: Annotated[str, typer.Option(help="triage, audit or safety.")] = "triage",
    rubric: Annotated[str | None, typer.Option(help="Only items of this rubric, ID@VERSION.")] = None,
    dataset: Annotated[str | None, typer.Option(help="Only items of this dataset.")] = None,
    blind: Annotated[bool, typer.Option("--blind", help="Hide the judge until you have scored (always, in a queue set blind).")] = False,
) -> None:
    """Open the review TUI on a queue.

    Settings, keymap included, are read from the config file: $RUBRICATE_CONFIG, else config.yaml
    in the user config directory (~/.config/rubricate/config.yaml on Linux). Example file:
    "lease_minutes: 15" and "keymap: {item.agree: 'enter,a'}"; `?` in the app lists each binding id.

    Example: rubricate review --queue audit --blind --reviewer ana
    """
    if queue not in ("triage", "audit", "safety"):
        raise typer.BadParameter(f"unknown queue {queue!r}; use triage, audit or safety", param_hint="--queue")
    if reviewer is not None:  # signing as a name bound to someone else is a lead's act: say so now
        from reviewer.store import open_store

        store = open_store(db, existing=True)
        try:
            store.roles.check_signer(reviewer)
        finally:
            store.close()
    run_tui(db, reviewer or os_login(), queue, rubric, dataset, blind)


@app.command()
def demo(
    db: Annotated[str | None, typer.Option(
        "--db", help="SQLAlchemy URL or SQLite path (default: $RUBRICATE_DB, else demo.db in the user data dir).")] = None,
    reviewer: Annotated[str | None, typer.Option(help="Your reviewer name (default: the OS user).")] = None,
    build_only: Annotated[bool, typer.Option("--build-only", help="Build the demo database and exit.")] = False,
) -> None:
    """Build a demo database from the bundled demonstration data and open the review TUI on it.

    Example: rubricate demo            (or: make demo)
    """
    from reviewer.demo.build import build_demo
    from reviewer.locations import default_db

    target = db or default_db("demo.db")
    name = reviewer or os_login()
    summary = build_demo(target, name)
    from reviewer.safetext import safe_line

    typer.echo(safe_line(f"demo database: {target} ({summary})"), err=True)
    if not build_only:
        run_tui(target, name, "triage", None, None, False)


def run_tui(db: str | None, reviewer: str, queue: str, rubric: str | None, dataset: str | None,
            blind: bool) -> None:
    """Open the store and run the app until the reviewer quits (:func:`reviewer.tui.run.run_app`)."""
    from reviewer.tui.run import run_app

    code = run_app(db, reviewer, queue, rubric, dataset, blind)
    if code:
        raise typer.Exit(code)
