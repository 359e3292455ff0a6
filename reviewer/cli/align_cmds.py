"""``rubricate align``: choose a judge set-up on dev items, report it on test items, and
(``--write``) register the winner as a new rubric version.

litellm loads inside the command, so ``rubricate --help`` stays fast.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from reviewer.services.align_result import AlignResult

from reviewer.cli import DbOption, app
from reviewer.cli.output import check_format, emit_json
from reviewer.errors import UserError
from reviewer.safetext import safe_line, safe_text

HELP = """Fix the judge with people's labels, measured on items it never saw.

Splits each llm_judge dimension's labelled audit items (seeded, stratified by people's level) into dev and test; judges every candidate on dev — the current prompt, k-shot prompts from dev items' corrections (k2, k4, k8), an instruction rewrite the judge model proposes from the dev disagreements, other --model values, --samples N — chooses the best alpha on dev (ties by cost), then reports the current and the chosen on test: alpha with its interval, kappa, bias, and the interval of the difference, said as better, no better or worse. --write registers the chosen set-up as a new minor version when it is better; nothing when not.

Example: rubricate align --rubric general-quality@1.1.0 --model openai/gpt-4o-mini --dimension accuracy

Example: rubricate align --rubric rag-answer@1.0.0 --model openai/judge-x --candidates current,k4,rewrite --seed 3 --write

Example: rubricate align --rubric rag-answer@1.0.0 --model openai/judge-x --dry-run
"""


def _num(x: float | None) -> str:
    return "–" if x is None else f"{float(x):.3f}"


def _ci(ci: Sequence[float] | None) -> str:
    return "" if not ci else f" [{float(ci[0]):.3f}, {float(ci[1]):.3f}]"


def _show(result: AlignResult, console: Console) -> None:
    from rich.table import Table
    from rich.text import Text

    dim = result["dimension"]
    console.print(safe_text(f"{dim}: align run {result['run']}, seed {result['seed']}: "
                            f"{len(result['dev_items'])} dev items, {len(result['test_items'])} test items"))
    rewrite = result.get("rewrite")
    if rewrite is not None:
        proposal = rewrite.get("proposal")
        if proposal:
            console.print(safe_text(f"rewrite proposed by the judge model (from {rewrite['disagreements']} dev "
                                    f"disagreements): {proposal['prompt']}"))
        else:
            console.print(safe_text(f"rewrite: no proposal: {rewrite.get('error')}"))
    # (a Text, never read as markup, ending its line as a title must: safe_text's Text ends with none)
    table = Table(title=Text(safe_line(f"{dim}: candidates on dev")), title_justify="left")
    for column in ("candidate", "model", "dev α", "n", "errors", "cost $", "note"):
        table.add_column(column, justify="left" if column in ("candidate", "model", "note") else "right")
    for c in result["candidates"]:
        mark = " ← chosen" if c["name"] == result.get("chosen") else ""
        note = c["error"] or ("" if c["status"] == "done" else c["status"])
        table.add_row(safe_text(c["name"] + mark, newlines=False), safe_text(c["model"], newlines=False),
                      _num(c["dev_alpha"]), str(c["dev_n"]), str(c["errors"]), f"{c['cost_usd']:.4f}",
                      safe_text(note or "", newlines=False))
    console.print(table)
    t = result["test"]
    shown = ((t["before"], "current"),) + (((t["after"], result["chosen"]),) if result["chosen"] != "current" else ())
    for f, name in shown:
        console.print(safe_text(f"test, {name}: α {_num(f['alpha'])}{_ci(f['alpha_ci'])}, κ {_num(f['kappa'])}, "
                                f"bias {_num(f['bias'])} (n {f['n']})"))
    console.print(safe_text(f"{dim}: {result['chosen']} is {t['verdict']} than the current judge on {t['n']} test "
                            f"items: α difference {_num(t['difference'])}{_ci(t['difference_ci'])}"))


@app.command("align", help=HELP)
def align(
    rubric: str = typer.Option(None, "--rubric", help="Rubric as ID@VERSION."),
    model: Annotated[list[str] | None, typer.Option(
        "--model", help="Judge model; a second and later --model are candidates too.")] = None,
    dimension: Annotated[list[str] | None, typer.Option(
        "--dimension", help="Dimension to align (repeatable; default every llm_judge one).")] = None,
    candidates: str = typer.Option(None, "--candidates", help="Comma list of current, kN (k2,k4,k8), rewrite."),
    test_share: float = typer.Option(0.3, "--test-share", help="Share of labelled items held out for test."),
    seed: int = typer.Option(0, "--seed", help="Seed of the split and the bootstrap."),
    samples: int = typer.Option(None, "--samples", min=1, help="Also try the current prompt with N samples."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would run and its cost; call nothing."),
    max_cost: float = typer.Option(None, "--max-cost", min=0.0, help="Stop cleanly at this spend (USD)."),
    write: bool = typer.Option(False, "--write", help="Register the chosen set-up as a new version if better."),
    fmt: str = typer.Option("table", "--format", help="table or json."),
    api_base: str = typer.Option(None, "--api-base", help="Base URL of an OpenAI-compatible server."),
    api_key: str = typer.Option(None, "--api-key", envvar="RUBRICATE_JUDGE_API_KEY",
                                help="API key (else the provider's usual environment variable)."),
    concurrency: int = typer.Option(8, "--concurrency", min=1, help="Calls in flight at once."),
    timeout: float = typer.Option(60.0, "--timeout", min=0.1, help="Seconds per call attempt."),
    retries: int = typer.Option(2, "--retries", min=0, help="Extra attempts after a failed call."),
    db: DbOption = None,
) -> None:
    from rich.console import Console

    from reviewer.services import align as service
    from reviewer.services.align_write import write_version
    from reviewer.store import open_store

    check_format(fmt)
    if not rubric:
        raise UserError("--rubric is required: name the rubric as ID@VERSION")
    if dry_run and write:
        raise UserError("--dry-run calls nothing, so there is nothing to --write; leave one out")
    options = service.AlignOptions(
        rubric_ref=rubric, models=list(model or []), dimensions=list(dimension or []), candidates=candidates,
        test_share=test_share, seed=seed, samples=samples, max_cost=max_cost, api_base=api_base, api_key=api_key,
        concurrency=concurrency, timeout=timeout, retries=retries)
    console = Console(stderr=fmt == "json")  # with JSON on standard output, the steps go to standard error
    store = open_store(db)
    if dry_run:
        plans = service.plan(store, options)
        if fmt == "json":
            emit_json({"rubric": store.rubrics.get_rubric(rubric).ref, "dry_run": plans})
            return
        for p in plans:
            cost = "unknown (no price for this model)" if p["cost_usd"] is None else f"${p['cost_usd']:.4f}"
            each = ", ".join(f"{c['name']} {c['calls']}" for c in p["candidates"])
            console.print(safe_text(f"{p['dimension']}: {p['dev_items']} dev / {p['test_items']} test items; "
                                    f"dev calls {each}; test calls {p['test_calls']}; {p['calls']} calls in all, "
                                    f"cost {cost}"))
        return
    results = service.run(store, options, on_step=lambda line: console.print(safe_text(line)))
    written = write_version(store, rubric, results) if write else None
    if fmt == "json":
        emit_json({"rubric": store.rubrics.get_rubric(rubric).ref, "dimensions": results, "written": written})
        return
    for result in results:
        _show(result, console)
    if write:
        # (never the URL itself: a server's may hold a password)
        console.print(safe_text(f"registered {written}: rubricate rubric diff {store.rubrics.get_rubric(rubric).ref} {written} "
                                "--db with this database shows what changed" if written else
                                "nothing registered: no dimension's chosen judge did better on test"))
