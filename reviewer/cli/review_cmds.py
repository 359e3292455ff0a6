"""``rubricate review`` and ``rubricate demo``: open the review TUI on a store."""

from __future__ import annotations

import getpass
import os
from typing import Annotated

import typer

from reviewer.cli import app

DbOption = Annotated[
    str | None,
    typer.Option("--db", help="SQLAlchemy URL or SQLite path (default: $RUBRICATE_DB, else the user data dir)."),
]


@app.command()
def review(
    db: DbOption = None,
    reviewer: Annotated[str | None, typer.Option(help="Your reviewer name (default: the OS user).")] = None,
    queue: Annotated[str, typer.Option(help="triage, audit or safety.")] = "triage",
    rubric: Annotated[str | None, typer.Option(help="Only items of this rubric, ID@VERSION.")] = None,
    dataset: Annotated[str | None, typer.Option(help="Only items of this dataset.")] = None,
    blind: Annotated[bool, typer.Option("--blind", help="Hide the judge until you have scored (always, in a queue set blind).")] = False,
) -> None:
    """Open the review TUI on a queue.

    Example: rubricate review --queue audit --blind --reviewer ana
    """
    if queue not in ("triage", "audit", "safety"):
        raise typer.BadParameter(f"unknown queue {queue!r}; use triage, audit or safety", param_hint="--queue")
    run_tui(db, reviewer or getpass.getuser(), queue, rubric, dataset, blind)


@app.command()
def demo(
    db: DbOption = None,
    reviewer: Annotated[str | None, typer.Option(help="Your reviewer name (default: the OS user).")] = None,
    build_only: Annotated[bool, typer.Option("--build-only", help="Build the demo database and exit.")] = False,
) -> None:
    """Build a demo database from the bundled demonstration data and open the review TUI on it.

    Example: rubricate demo            (or: make demo)
    """
    from reviewer.demo.build import build_demo, default_demo_path

    target = db or str(default_demo_path())
    name = reviewer or getpass.getuser()
    summary = build_demo(target, name)
    typer.echo(f"demo database: {target} ({summary})", err=True)
    if not build_only:
        run_tui(target, name, "triage", None, None, False)


def run_tui(db: str | None, reviewer: str, queue: str, rubric: str | None, dataset: str | None,
            blind: bool) -> None:
    """Open the store and run the app until the reviewer quits."""
    from reviewer.store import open_store
    from reviewer.tui.app import make_app
    from reviewer.tui.config import load_settings

    settings = load_settings()
    store = open_store(db or os.environ.get("RUBRICATE_DB"))
    # a blind queue (`rubricate queue set --blind`) is blind for everyone who works in it
    blind = blind or store.queue_settings(queue, rubric).blind
    make_app(store, reviewer, queue, rubric, dataset, blind, settings).run()
