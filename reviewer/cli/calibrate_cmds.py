"""``rubricate calibrate`` and ``rubricate report``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from reviewer.cli import DbOption, app
from reviewer.cli.output import calibration_number, report_json
from reviewer.safetext import md_cell, safe, safe_line, safe_text

if TYPE_CHECKING:  # (types alone: the commands import what they run when they run)
    from rich.console import RenderableType

    from reviewer.domain.columns import RatingColumns
    from reviewer.services.reports import CalibrationReport, ReportT, SideBySide
    from reviewer.store import Store

FORMATS = ("table", "json", "markdown", "html")


def _emit(text: str, out: Path | None) -> None:
    if out:
        out.write_text(text, encoding="utf-8")
        typer.echo(safe_line(f"wrote {out}"), err=True)
    else:
        typer.echo(text)


@app.command()
def calibrate(
    rubric: Annotated[str | None, typer.Option(
        help="Rubric version, ID@VERSION (default: the only rubric version with items).")] = None,
    dataset: Annotated[str | None, typer.Option(help="Only this dataset.")] = None,
    sample: Annotated[str | None, typer.Option(help="all, audit or blind (default: audit if drawn, else all).")] = None,
    group_by: Annotated[str | None, typer.Option(help="Correlations per group, and corrected means ranked by group: 'group', 'variant' or 'metadata.KEY'.")] = None,
    human_aggregate: Annotated[str, typer.Option(
        help="mean, median or majority (most common level; ties: see README) of the human scores per item; "
             "nominal dimensions always use majority.")] = "mean",
    level: Annotated[str | None, typer.Option(
        help="nominal, ordinal, interval or ratio for every dimension of this run "
             "(default: each dimension's level in the rubric).")] = None,
    bootstrap: Annotated[int, typer.Option(
        help="Bootstrap draws for the intervals; 0 skips them (faster).")] = 1000,
    fmt: Annotated[str, typer.Option("--format", help="table, json, markdown or html.")] = "table",
    out: Annotated[Path | None, typer.Option(help="Write the report here.")] = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    route: Annotated[bool, typer.Option("--route", help="Also write review priorities for the triage queue.")] = False,
    normalise: Annotated[str, typer.Option(help="none, or z: each reviewer's scores z-normalised first.")] = "none",
    disagreements: Annotated[Path | None, typer.Option(
        help="Also write the largest judge–human disagreements per dimension here (JSON Lines).")] = None,
    top: Annotated[int, typer.Option(help="Disagreements per dimension for --disagreements.")] = 20,
    compare: Annotated[str | None, typer.Option(
        help="Another version of the rubric, ID@VERSION: both reports side by side, with a banner.")] = None,
    confidence: Annotated[float, typer.Option(
        help="Confidence of the corrected estimates' intervals.")] = 0.95,
    target_width: Annotated[float | None, typer.Option(
        help="Say how many more audit labels would bring each corrected interval under this width.")] = None,
    estimates: Annotated[bool, typer.Option(
        "--estimates/--no-estimates",
        help="Corrected means and pass rate from the judge on every item and people on the audit sample.")] = True,
    all_revisions: Annotated[bool, typer.Option(
        "--all-revisions",
        help="Also count scores given on items' earlier content (before an import --update changed it).")] = False,
    db: DbOption = None,
) -> None:
    """Judge–human agreement per dimension, with trust status and the reason in words, and the
    corrected estimates (judge on every item, people on the audit sample: see README).

    Example: rubricate calibrate --rubric general-quality@1.0.0 --format json --out calibration.json
    """
    from reviewer.errors import UserError
    from reviewer.services.calibrate_service import calibrate as run
    from reviewer.services.calibrate_service import route as write_routes
    from reviewer.store import open_store

    if fmt not in FORMATS:
        raise UserError(f"--format {fmt!r}: use {', '.join(FORMATS)}")
    store = open_store(db, existing=True)
    rubric = rubric or _only_rubric(store)
    if compare is not None:
        from reviewer.services import report_render as rr
        from reviewer.services.calibrate_service import side_by_side

        both = side_by_side(store, rubric, compare, lambda ref: run(
            store, ref, dataset=dataset, sample=sample, group_by=group_by, human_aggregate=human_aggregate,
            level=level, seed=seed, normalise=normalise, draws=bootstrap))
        _emit_side_by_side(both, fmt, out, rr.calibration_markdown, rr.calibration_html, rr.calibration_table)
        return
    columns: list[RatingColumns] = []  # the items' columns, kept for the page's confusion tables
    report = run(store, rubric, dataset, sample, group_by, human_aggregate, level, seed, draws=bootstrap,
                 normalise=normalise, confidence=confidence, target_width=target_width, estimates=estimates,
                 all_revisions=all_revisions, columns=columns if fmt == "html" else None)
    if disagreements is not None:
        from reviewer.services.calibrate_service import disagreement_pack

        if top < 1:
            raise UserError(f"--top {top}: give at least 1")
        pack = disagreement_pack(store, rubric, top)
        disagreements.write_text("".join(report_json(p, None, calibration_number) + "\n" for p in pack), encoding="utf-8")
        typer.echo(safe_line(f"wrote {len(pack)} disagreements to {disagreements}"), err=True)
    if route:
        typer.echo(f"routed {write_routes(store, rubric, report)} items", err=True)
    _render(report, fmt, out, store, columns[0] if columns else None)


def _only_rubric(store: Store) -> str:
    """The rubric version to calibrate when none was named: the only one with items."""
    from reviewer.errors import UserError

    refs = store.ratings.rubrics_with_items()
    if len(refs) != 1:
        found = ", ".join(refs) if refs else "none"
        raise UserError(f"name the rubric with --rubric ID@VERSION: the store has items for {found}")
    return str(refs[0])


def _emit_side_by_side(both: SideBySide[ReportT], fmt: str, out: Path | None, markdown: Callable[[ReportT], str],
                       html_of: Callable[[ReportT], str], table: Callable[[ReportT], RenderableType]) -> None:
    """Two versions' reports (:func:`~reviewer.services.calibrate_service.side_by_side`): the
    "not like for like" banner and the change list first, then each report as ``fmt`` renders it."""
    if fmt == "json":
        _emit(report_json(both, 1, calibration_number), out)
    elif fmt == "markdown":
        head = (f"**{md_cell(both['banner'])}**\n\n" + "".join(f"- {md_cell(c)}\n" for c in both["changes"]) + "\n"
                if both["banner"] else "")
        _emit(head + "\n".join(markdown(r) for r in both["reports"]), out)
    elif fmt == "html":
        import html

        head = (f"<p style='color:#b00;font-weight:bold'>{html.escape(safe(both['banner']))}</p><ul>"
                + "".join(f"<li>{html.escape(safe(c))}</li>" for c in both["changes"]) + "</ul>"
                if both["banner"] else "")
        _emit("<!doctype html><meta charset='utf-8'>" + head + "".join(html_of(r) for r in both["reports"]), out)
    else:
        from rich.console import Console

        console = Console()
        if both["banner"]:
            console.print(safe_text(f" {both['banner']} ", "bold white on red"))
            for change in both["changes"]:
                console.print(safe_text(f"  {change}", "red"))
        for r in both["reports"]:
            console.print(table(r))


def _render(report: CalibrationReport, fmt: str, out: Path | None, store: Store,
            columns: RatingColumns | None = None) -> None:
    from reviewer.services import report_render as rr
    from reviewer.services.calibrate_service import confusions

    if fmt == "json":
        _emit(report_json(report, 1, calibration_number), out)
    elif fmt == "markdown":
        _emit(rr.calibration_markdown(report), out)
    elif fmt == "html":
        from reviewer.services.gold import gold_accuracy

        _emit(rr.calibration_html(report, confusions(store, report, columns), store.rubrics.get_rubric(report["rubric"]),
                                  gold_accuracy(store, report["rubric"])), out)
    else:
        from rich.console import Console

        console = Console()
        console.print(rr.calibration_table(report))
        from reviewer.services.estimate_render import estimate_lines

        for line in estimate_lines(report):
            console.print(line, markup=False, highlight=False)


@app.command()
def report(
    rubric: Annotated[str, typer.Option(help="Rubric version, ID@VERSION.")],
    dataset: Annotated[str | None, typer.Option(help="Only this dataset.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, json, markdown or html.")] = "table",
    out: Annotated[Path | None, typer.Option(help="Write the report here.")] = None,
    group_by: Annotated[str, typer.Option(
        help="Leaderboard groups: metadata.KEY, variant or group.")] = "metadata.model",
    confidence: Annotated[float, typer.Option(help="Confidence of the corrected pass rates' intervals.")] = 0.95,
    compare: Annotated[str | None, typer.Option(
        help="Another version of the rubric, ID@VERSION: both reports side by side, with a banner.")] = None,
    db: DbOption = None,
) -> None:
    """Per-run report: means with bands, pass rates, safety, judge errors, cost, and the
    leaderboard by the judge's pass rate beside the one corrected with the audit sample.

    Example: rubricate report --rubric general-quality@1.0.0 --format markdown

    Example: rubricate report --rubric general-quality@1.0.0 --compare general-quality@1.1.0
    """
    import html as html_mod

    from reviewer.errors import UserError
    from reviewer.services.report_render import run_report_markdown
    from reviewer.services.run_report import run_report
    from reviewer.store import open_store

    if fmt not in FORMATS:
        raise UserError(f"--format {fmt!r}: use {', '.join(FORMATS)}")
    if group_by not in ("variant", "group") and not group_by.startswith("metadata."):
        raise UserError(f"--group-by {group_by!r}: use metadata.KEY, variant or group")
    if not 0.5 <= confidence < 1.0:
        raise UserError(f"--confidence {confidence:g}: give a level between 0.5 and 1 (0.95 is usual)")
    store = open_store(db, existing=True)
    if compare is not None:
        from rich.markdown import Markdown

        from reviewer.services.calibrate_service import side_by_side

        both = side_by_side(store, rubric, compare, lambda ref: run_report(store, ref, dataset, group_by, confidence))
        _emit_side_by_side(both, fmt, out, run_report_markdown,
                           lambda r: f"<pre>{html_mod.escape(run_report_markdown(r))}</pre>",
                           lambda r: Markdown(run_report_markdown(r)))
        return
    rep = run_report(store, rubric, dataset, group_by, confidence)
    if fmt == "json":
        _emit(report_json(rep, 1, calibration_number), out)
    elif fmt == "html":
        from reviewer.services.page.report_page import report_page

        _emit(report_page(rep, store.rubrics.get_rubric(rubric)), out)
    elif fmt == "markdown":
        _emit(run_report_markdown(rep), out)
    else:
        from rich.console import Console
        from rich.markdown import Markdown

        Console().print(Markdown(run_report_markdown(rep)))
