"""``rubricate rubric add``, ``import``, ``export``, ``reviewer add|accuracy``, ``queue audit-sample|set``."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from reviewer.cli import DbOption, app, rubric_app
from reviewer.faults import regular_file
from reviewer.safetext import csv_cell, json_text, safe_line, safe_text

if TYPE_CHECKING:  # (the store's class, for its type alone: importing it loads SQLAlchemy)
    from reviewer.store import Store

reviewer_app = typer.Typer(help="Manage reviewers and their roles.\n\nExample: rubricate reviewer add ana --role safety",
                           no_args_is_help=True)
queue_app = typer.Typer(help="Manage review queues.\n\nExample: rubricate queue audit-sample --rubric general-quality --n 100",
                        no_args_is_help=True)
app.add_typer(reviewer_app, name="reviewer")
app.add_typer(queue_app, name="queue")


def _store(db: str | None, existing: bool = False) -> Store:
    """The store at ``db``; ``existing`` for a reading command, which refuses a path with no
    database rather than create one."""
    from reviewer.store import open_store

    return open_store(db, existing=existing)


@rubric_app.command("add")
def rubric_add(file: Annotated[Path, typer.Argument(help="Rubric YAML file.")], db: DbOption = None) -> None:
    """Register a rubric version in the store (refused if the version is used or understated).

    Example: rubricate rubric add my-rubric.yaml --db team.db
    """
    from rubrics.loader import read_rubric_file

    regular_file(file)
    rubric, text = read_rubric_file(file)  # read once: what was validated is what is stored
    added = _store(db).rubrics.add_rubric(rubric, text, require_newer=True)
    typer.echo(safe_line(f"{'added' if added else 'already registered'} {rubric.ref} ({rubric.content_hash[:12]})"))


@app.command("import")
def import_cmd(
    file: Annotated[Path, typer.Argument(
        help="Items: JSON Lines, CSV or Parquet, another tool's results (--from), or - for standard input.")],
    rubric: Annotated[str, typer.Option(help="The rubric the scores are on, ID@VERSION.")],
    from_format: Annotated[str | None, typer.Option(
        "--from", help="The file's format: rubricate (default), promptfoo, inspect, judge-bench, langfuse, langsmith or openai-evals. Without it a "
                       "recognised shape is read as its format, and the command says so.")] = None,
    traces: Annotated[Path | None, typer.Option(
        help="With --from langfuse: the traces export holding the texts the scores are on.")] = None,
    dataset: Annotated[str | None, typer.Option(help="Dataset name for these items.")] = None,
    update: Annotated[bool, typer.Option("--update", help="Record changed items as new revisions.")] = False,
    db: DbOption = None,
) -> None:
    """Import items, with judge and human scores made elsewhere; a bad line refuses the whole file.

    Example: rubricate import items.jsonl --rubric general-quality@1.0.0 --dataset march

    Example: rubricate import results.json --from promptfoo --rubric results@1.0.0
    """
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from reviewer.cli.adapter_cmds import input_file
    from reviewer.faults import say
    from reviewer.services.importing import import_opened, open_source

    if traces is not None:
        regular_file(traces)
    with input_file(file) as (path, name):
        opened = open_source(path, from_format, name, traces)
        if opened.detected:
            say(safe_line(f"read {name or file} as {opened.format} (recognised by its shape; name it with --from)"))
        store = _store(db)
        with Progress(TextColumn("importing"), BarColumn(), TextColumn("{task.completed}/{task.total} rows"),
                      TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), transient=True,
                      disable=not sys.stderr.isatty()) as bar:
            task = bar.add_task("import", total=None, rate="")

            def progress(done: int, total: int) -> None:
                elapsed = bar.tasks[0].elapsed or 1e-9
                bar.update(task, completed=done, total=total, rate=f"{done / elapsed:,.0f} rows/s")

            summary = import_opened(store, opened, rubric, dataset, update_existing=update, progress=progress)
    for note in opened.notes:
        say(safe_line(f"{name or file}: {note}"))
    typer.echo(safe_line(f"imported {file}: {summary}"))


@app.command("export")
def export_cmd(
    fmt: Annotated[str | None, typer.Option(
        "--format", help="jsonl (default), csv, or parquet (a tidy table: one row per item, dimension and "
                         "scorer; needs --out).")] = None,
    to: Annotated[str | None, typer.Option(
        "--to", help="langfuse: people's scores as Langfuse score objects, one per line.")] = None,
    out: Annotated[Path | None, typer.Option(help="Write here instead of standard output.")] = None,
    rubric: Annotated[str | None, typer.Option(help="Only this rubric, ID@VERSION.")] = None,
    dataset: Annotated[str | None, typer.Option(help="Only this dataset.")] = None,
    labels: Annotated[bool, typer.Option(
        "--labels", help="Also write each score's anchor label (e.g. Yes) beside the number.")] = False,
    db: DbOption = None,
) -> None:
    """Export effective scores (a lead's adjudication, else human consensus, else judge) with provenance.

    --format parquet: every score, one row per item, dimension and scorer. --to langfuse: people's
    scores as Langfuse score objects.

    Example: rubricate export --format csv --out scores.csv --rubric general-quality@1.0.0
    """
    if to is not None:
        if to != "langfuse":
            raise typer.BadParameter("use langfuse", param_hint="--to")
        if fmt is not None or labels:
            raise typer.BadParameter("--to langfuse writes Langfuse's own shape: leave out --format and --labels",
                                     param_hint="--to")
        _export_langfuse(_store(db, existing=True), out, rubric, dataset)
        return
    fmt = fmt or "jsonl"
    if fmt not in ("jsonl", "csv", "parquet"):
        raise typer.BadParameter("use jsonl, csv or parquet", param_hint="--format")
    if fmt == "parquet":
        if out is None or labels:
            raise typer.BadParameter("parquet writes a file and has no label columns: give --out FILE, "
                                     "without --labels", param_hint="--format")
        from reviewer.services.tidy import write_parquet

        n = write_parquet(_store(db, existing=True), out, rubric, dataset)
        typer.echo(safe_line(f"wrote {n} row(s) to {out}"), err=True)
        return
    store = _store(db, existing=True)
    rows = store.items.export_rows(rubric, dataset)
    if labels:
        from reviewer.io.labels import with_labels

        rows = (with_labels(row, store.rubrics.get_rubric(row["rubric"])) for row in rows)
    fh = out.open("w", encoding="utf-8", newline="") if out else sys.stdout
    try:
        if fmt == "jsonl":
            for row in rows:
                fh.write(json_text(row, default=str) + "\n")
        else:
            writer = csv.writer(fh)
            writer.writerow(["id", "dataset", "rubric", "dimension", "effective", "source", "judge",
                             "judge_error", "human", "overall", "band", "passed", "safety",
                             "state", "adjudication", "bias", "incomplete", "revision", "human_scores",
                             "comments", "corrections"]
                            + (["effective_label", "judge_label", "human_labels"] if labels else []))
            for row in rows:
                for dim, d in row["dimensions"].items():
                    # Cells a spreadsheet would run as a formula get a leading ' (README "Exports").
                    extra = ((d["effective_label"] or "", d["judge_label"] or "",
                              json.dumps(d["human_labels"], ensure_ascii=False)) if labels else ())
                    writer.writerow([csv_cell(v) for v in (
                        row["id"], row["dataset"], row["rubric"], dim, d["effective"], d["source"],
                        d["judge"], d["judge_error"] or "", json.dumps(d["human"]),
                        row["overall"], row["band"], row["passed"], row["safety"],
                        d["state"], d["adjudication"], d["bias"], row["incomplete"] or "",
                        row["revision"], json_text(d["human_scores"]), json_text(row["comments"]),
                        json_text(row["corrections"]), *extra)])
    finally:
        if out:
            fh.close()


def _export_langfuse(store: Store, out: Path | None, rubric: str | None, dataset: str | None) -> None:
    """``export --to langfuse``: the score objects as JSON Lines, then one line on standard error
    naming the items whose scores were not written for want of a trace id."""
    from reviewer.services.langfuse_scores import LangfuseExport, langfuse_scores

    report = LangfuseExport()
    fh = out.open("w", encoding="utf-8", newline="") if out else sys.stdout
    try:
        for obj in langfuse_scores(store, report, rubric, dataset):
            fh.write(json_text(obj) + "\n")
    finally:
        if out:
            fh.close()
    line = report.untraced_line()
    if line:
        typer.echo(safe_line(line), err=True)


@reviewer_app.command("add")
def reviewer_add(
    name: Annotated[str, typer.Argument(help="Reviewer name.")],
    role: Annotated[str, typer.Option(help="reviewer, safety or lead.")] = "reviewer",
    login: Annotated[str | None, typer.Option(help="The person's database login (PostgreSQL) or OS user "
                                               "(SQLite) the name is bound to (default: the name).")] = None,
    db: DbOption = None,
) -> None:
    """Give a reviewer a role (a person may hold several). The first role given in a store must
    be lead (bound to your login); after that only a lead grants roles.

    Example: rubricate reviewer add ana --role lead
    """
    roles = _store(db).roles.add_reviewer(name, role, login)
    typer.echo(safe_line(f"{name}: {', '.join(sorted(roles))}"))


@queue_app.command("audit-sample")
def audit_sample(
    rubric: Annotated[str, typer.Option(help="Rubric, ID@VERSION.")],
    n: Annotated[int, typer.Option(help="How many items to draw.")] = 100,
    seed: Annotated[int, typer.Option(help="Random seed (the draw is reproducible).")] = 0,
    db: DbOption = None,
) -> None:
    """Draw a seeded uniform random sample into the audit queue, for unbiased calibration.

    Example: rubricate queue audit-sample --rubric general-quality@1.0.0 --n 200 --seed 7
    """
    added = _store(db).queue.create_audit_sample(rubric, n, seed)
    typer.echo(f"audit sample: {added} items added")


@queue_app.command("set")
def queue_set(
    queue: Annotated[str, typer.Option(help="triage, audit or safety.")],
    rubric: Annotated[str | None, typer.Option(help="Only this rubric's items, ID@VERSION (default: every rubric).")] = None,
    reviewers: Annotated[int | None, typer.Option(help="Distinct reviewers each item needs.")] = None,
    gold_rate: Annotated[float | None, typer.Option(help="Share of claims that serve a known-answer item (0–0.5).")] = None,
    blind: Annotated[bool | None, typer.Option("--blind/--no-blind", help="Hide the judge until the reviewer has scored.")] = None,
    db: DbOption = None,
) -> None:
    """Set how a queue serves items: reviewers per item, gold rate, blind. Unnamed settings keep their value.

    Example: rubricate queue set --queue audit --rubric general-quality@1.0.0 --reviewers 3 --gold-rate 0.05 --blind
    """
    s = _store(db).queue.set_queue_settings(queue, rubric, reviewers, gold_rate, blind)
    typer.echo(safe_line(f"{s.queue} queue, rubric {s.rubric_ref}: {s.reviewers_per_item} reviewer(s) per item, "
                         f"gold rate {s.gold_rate:g}, {'blind' if s.blind else 'not blind'}"))


@reviewer_app.command("accuracy")
def reviewer_accuracy(
    rubric: Annotated[str | None, typer.Option(help="Only this rubric's gold items, ID@VERSION.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table or json.")] = "table",
    db: DbOption = None,
) -> None:
    """Each reviewer's accuracy on known-answer (gold) items, and its drift week by week.

    Example: rubricate reviewer accuracy --rubric general-quality@1.0.0 --format json
    """
    from reviewer.cli.output import check_format, emit_json

    check_format(fmt)
    from reviewer.services.gold import gold_accuracy

    rows = gold_accuracy(_store(db), rubric)
    if fmt == "json":
        emit_json(rows)
        return
    if not rows:
        typer.echo("no reviewer has scored a gold item yet (import items with a 'gold' field and set "
                   "`rubricate queue set --gold-rate`)")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("reviewer", "gold scores", "MAE", "exact", "within one", "drift (MAE, last − first week)")
    for r in rows:
        drift = "—" if r["drift"] is None else f"{r['drift']:+.2f}"
        table.add_row(safe_text(r["reviewer"], newlines=False), str(r["n"]), f"{r['mae']:.2f}", f"{r['exact']:.0%}", f"{r['within_one']:.0%}", drift)
    Console().print(table)
