"""``rubricate judge``: score items with a rubric's methods and a judge model, or report a run.

Nothing slow is imported here at module level: litellm and the embedding model load inside the
command, so ``rubricate --help`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:  # rich is imported by the commands that print with it, not by every command
    from rich.console import Console
    from rich.progress import TaskID
    from rich.table import Table

    from reviewer.services.judging import JudgeOptions, RunFailed
    from reviewer.store import Store
    from rubrics.judge.runner import Progress as JudgeProgress

from reviewer.cli import DbOption, app
from reviewer.cli.output import check_format, emit_json
from reviewer.errors import UserError
from reviewer.safetext import safe_line, safe_text

HELP = """Score every item of a rubric with each dimension's method and a judge model.

Stores one judge run per model (several --model values make a panel), opens safety flags, and shows progress with rate, ETA and cost so far. Ctrl-C stops cleanly keeping what was scored; run again with --only-missing to resume. --report RUN prints a stored run's totals.

Example: rubricate judge --rubric general-quality@1.1.0 --model openai/gpt-4o-mini --samples 3

Example: rubricate judge --rubric rag-answer@1.0.0 --model openai/judge-x --api-base http://127.0.0.1:8000/v1

Example: rubricate judge --report 12 --format json

--batch sends the calls as the provider's batch (at the batch price; --dry-run --batch shows it) and polls every --interval seconds until it is stored; --batch-status RUN goes on with a batch run from any process, and stores nothing twice.

Example: rubricate judge --rubric general-quality@1.1.0 --model openai/gpt-4o-mini --batch --no-wait

Example: rubricate judge --batch-status 12
"""


def _totals_table(title: str, totals: dict[str, Any]) -> Table:
    from rich.table import Table
    from rich.text import Text

    # (a Text, never read as markup, ending its line as a title must: safe_text's Text ends with none)
    table = Table(title=Text(safe_line(title)))
    for column in ("dimension", "scored", "errors", "n/a", "mean", "cost $"):
        table.add_column(column, justify="left" if column == "dimension" else "right")
    for name, d in (totals.get("dimensions") or {}).items():
        n = int(d.get("n", d.get("scores", 0)))
        errors, na = int(d.get("errors", 0)), int(d.get("not_applicable", 0))
        mean = d.get("mean")
        table.add_row(safe_text(name, newlines=False), str(n - errors - na), str(errors), str(na),
                      "–" if mean is None else f"{mean:.2f}", f"{float(d.get('cost_usd', 0)):.4f}")
    return table


def print_totals(console: Console, run_id: int, model: str | None, totals: dict[str, Any]) -> None:
    """A finished run's table per dimension and its line of totals."""
    console.print(_totals_table(f"run {run_id} · {model or 'no judge'} · {totals['status']}", totals))
    console.print(safe_text(f"{totals['items']} items, {totals['errors']} errors, {totals['safety_hits']} "
                            f"safety hits, {totals['cached']} results from the cache, "
                            f"${totals['cost_usd']:.4f}, {totals['tokens_in']} tokens in, "
                            f"{totals['tokens_out']} out, {totals['limit_wait_s']:.1f} s waited for rate "
                            f"limits ({totals['rate_limited']} 429 replies)"))


def _report(store: Store, run_id: int, console: Console) -> None:
    report = store.runs.judge_run_report(run_id)
    # The run's own totals when it finished; the store's per-dimension counts otherwise.
    totals: dict[str, Any] = report["totals"] or dict(report)
    console.print(safe_text(f"run {run_id}: {report['rubric']} model {report['model']} status {report['status']}"))
    console.print(_totals_table("per dimension", totals))
    for key in ("items", "results", "errors", "safety_hits", "cost_usd", "tokens_in", "tokens_out",
                "limit_wait_s", "rate_limited"):
        if key in totals:
            console.print(safe_text(f"{key}: {totals[key]}"))


@app.command("judge", help=HELP)
def judge(
    rubric: str = typer.Option(None, "--rubric", help="Rubric as ID@VERSION."),
    model: Annotated[list[str] | None, typer.Option(
        "--model", help="Judge model litellm knows; repeat for a panel.")] = None,
    api_base: str = typer.Option(None, "--api-base", help="Base URL of an OpenAI-compatible server."),
    api_key: str = typer.Option(None, "--api-key", envvar="RUBRICATE_JUDGE_API_KEY",
                                help="API key (else the provider's usual environment variable)."),
    dataset: str = typer.Option(None, "--dataset", help="Only items of this dataset."),
    samples: int = typer.Option(None, "--samples", min=1, help="Judge samples per dimension."),
    concurrency: int = typer.Option(8, "--concurrency", min=1, help="Calls in flight at once."),
    rpm: int = typer.Option(None, "--rpm", min=1, help="At most this many judge calls a minute."),
    tpm: int = typer.Option(None, "--tpm", min=1, help="At most this many judge tokens (in + out) a minute."),
    max_cost: float = typer.Option(None, "--max-cost", min=0.0, help="Stop cleanly at this spend (USD)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Count calls and estimate cost; call nothing."),
    only_missing: bool = typer.Option(False, "--only-missing", help="Skip items this model already scored."),
    timeout: float = typer.Option(60.0, "--timeout", min=0.1, help="Seconds per call attempt."),
    retries: int = typer.Option(2, "--retries", min=0, help="Extra attempts after a failed call."),
    report: int = typer.Option(None, "--report", help="Print the totals of stored run RUN."),
    fmt: str = typer.Option("table", "--format", help="table or json (for --report and --dry-run)."),
    db: DbOption = None,
    batch: bool = typer.Option(False, "--batch", help="Send the calls as the provider's batch (batch price)."),
    batch_status: int = typer.Option(None, "--batch-status", help="Go on with batch run RUN: poll, then store."),
    interval: float = typer.Option(30.0, "--interval", min=0.0, help="Seconds between polls of a batch."),
    no_wait: bool = typer.Option(False, "--no-wait", help="With --batch or --batch-status: look once, then exit."),
) -> None:
    from rich.console import Console

    from reviewer.store import open_store

    check_format(fmt)
    if fmt == "json" and report is None and not dry_run:
        raise UserError("--format json is for --report RUN and --dry-run; a run shows its progress as it goes")
    console = Console()
    store = open_store(db)
    if batch_status is not None:
        from reviewer.cli.judge_batch_cmds import go_on

        go_on(store, batch_status, api_key, interval, not no_wait, console)
        return
    if report is not None:
        if fmt == "json":
            emit_json(store.runs.judge_run_report(report))
        else:
            _report(store, report, console)
        return
    if not rubric:
        raise UserError("--rubric is required: name the rubric as ID@VERSION (or use --report RUN)")
    from reviewer.services import judging

    options = judging.JudgeOptions(
        rubric_ref=rubric, models=list(model or []), api_base=api_base, api_key=api_key, dataset=dataset,
        samples=samples, concurrency=concurrency, max_cost=max_cost, only_missing=only_missing,
        rpm=rpm, tpm=tpm, timeout=timeout, retries=retries, refuse_empty=True,
    )
    # with JSON on standard output, the note goes to standard error, keeping the output parseable
    _warn_flat_samples(store, options, Console(stderr=True) if fmt == "json" else console)
    if dry_run and fmt == "json":
        from reviewer.cli.judge_batch_cmds import batch_fields

        emit_json({name: {**plan.as_dict(), **(batch_fields(name, plan) if batch else {})}
                   for name, plan in judging.plan(store, options).items()})
        return
    if dry_run:
        from reviewer.cli.judge_batch_cmds import batch_fields, batch_line

        for name, plan in judging.plan(store, options).items():
            cost = "unknown (no price for this model)" if plan.cost_usd is None else f"${plan.cost_usd:.4f}"
            console.print(safe_text(f"{name}: {plan.items} items, {plan.total_calls} judge calls "
                                    f"({', '.join(f'{k} {v}' for k, v in plan.calls.items()) or 'none'}), "
                                    f"~{plan.tokens_in} tokens in, ~{plan.tokens_out} out, cost {cost}"
                                    + (batch_line(name, plan) if batch else "")))
        return
    if batch:
        from reviewer.cli.judge_batch_cmds import start

        start(store, options, interval, not no_wait, console)
        return
    _run(store, options, console)


def _warn_flat_samples(store: Store, options: JudgeOptions, console: Console) -> None:
    """Several samples at temperature 0 mostly repeat one reply: say so before money is spent."""
    rubric = store.rubrics.get_rubric(options.rubric_ref)
    sampled = [d.id for d in rubric.dimensions
               if d.method == "llm_judge" and (options.samples or d.samples) > 1]
    if sampled and rubric.judge.temperature == 0:
        console.print(safe_text(f"note: {', '.join(sampled)} draw several samples at temperature 0; most "
                                "models will repeat themselves (set judge.temperature in the rubric)"))


def _failed(failed: RunFailed) -> None:
    """A run the store stopped: the store's one line (and its exit code), then where its replies
    are kept, on the same line."""
    from reviewer import faults

    known = faults.classify(failed.cause)
    code, line = known if known is not None else (faults.BAD_INPUT, f"error: {failed.cause}")
    faults.say(f"{line.splitlines()[0]}; {failed}")
    raise SystemExit(code)


def _run(store: Store, options: JudgeOptions, console: Console) -> None:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from reviewer.services import judging

    columns = (TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]:.1f} items/s"), TimeRemainingColumn(),
               TextColumn("${task.fields[cost]:.4f}"), TextColumn("{task.fields[errors]} errors"))
    with Progress(*columns, console=console, transient=False) as bar:
        tasks: dict[str, TaskID] = {}
        current: list[TaskID] = []

        def on_start(model: str | None, total: int) -> None:
            current[:] = [bar.add_task(safe_line(model or "no judge"), total=total, rate=0.0, cost=0.0, errors=0)]
            tasks[model or ""] = current[0]

        def on_progress(p: JudgeProgress) -> None:
            task = current[0]
            elapsed = bar.tasks[task].elapsed or 0.0
            bar.update(task, completed=p.done, cost=p.cost_usd, errors=p.errors,
                       rate=p.done / elapsed if elapsed else 0.0)

        try:
            summaries = judging.run(store, options, on_start, on_progress)
        except judging.RunFailed as failed:
            bar.stop()
            _failed(failed)
        except KeyboardInterrupt:
            bar.stop()
            from rich.console import Console

            Console(stderr=True).print("interrupted: what was scored is kept; resume with --only-missing")
            # typer turns KeyboardInterrupt into a silent exit code; say 130 ourselves.
            raise SystemExit(130) from None
    for s in summaries:
        totals = s.totals.as_dict()
        print_totals(console, s.run_id, s.model, totals)
        if totals["status"] == "cost_cap":
            console.print("stopped at --max-cost; resume with --only-missing")
    rubric = store.rubrics.get_rubric(options.rubric_ref)
    panel, apart = store.runs.panel_disagreement(rubric.ref, options.dataset)
    if panel:  # several models (this run's, or earlier runs' and imports') scored the same items
        console.print(safe_text(f"judge panel ({rubric.judge.panel_aggregate} of the models per dimension): on "
                                f"{apart} of {panel} items the models are a quarter of the scale apart or more; "
                                "rubricate calibrate shows which model agrees best with people"))
