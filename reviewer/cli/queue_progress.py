"""``rubricate queue progress``: per person and queue, done, left, pace and last active (the
figures of :mod:`reviewer.services.team`, which the TUI's team view shows too)."""

from __future__ import annotations

from typing import Annotated

import typer

from reviewer.cli import DbOption
from reviewer.cli.data_cmds import _store, queue_app
from reviewer.cli.output import check_format, emit_json
from reviewer.safetext import safe_text


@queue_app.command("progress")
def queue_progress(
    rubric: Annotated[str | None, typer.Option(help="Only this rubric's items, ID@VERSION (default: every rubric).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table or json.")] = "table",
    db: DbOption = None,
) -> None:
    """Who has done how much: per person and queue, items done, items left for them, pace (items per
    hour over their last active stretch), when they were last active (UTC) and how many of their scores
a lead accepted of those a lead reviewed (rubricate review --review-of).

    Example: rubricate queue progress --rubric general-quality@1.0.0 --format json
    """
    check_format(fmt)
    from reviewer.services.team import team_progress

    rows = team_progress(_store(db, existing=True), rubric)
    if fmt == "json":
        emit_json(rows)
        return
    if not rows:
        typer.echo("nobody is registered and no queue holds items yet")
        return
    from rich.console import Console
    from rich.table import Table

    from reviewer.services.team import accepted_cell

    table = Table("reviewer", "queue", "done", "left", "pace (items/h)", "last active (UTC)", "accepted")
    for column in table.columns[5:]:  # a time or a rate is never broken across lines: headers wrap instead
        column.no_wrap = True
    for r in rows:
        table.add_row(safe_text(r["reviewer"], newlines=False), r["queue"], str(r["done"]), str(r["left"]),
                      "—" if r["pace_per_hour"] is None else f"{r['pace_per_hour']:.1f}",
                      "—" if r["last_active"] is None else r["last_active"].replace("T", " ").rstrip("Z"),
                      accepted_cell(r))
    Console().print(table)
