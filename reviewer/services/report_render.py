"""Render calibration and run reports: rich tables, Markdown, and one self-contained HTML page."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reviewer.safetext import md_cell, safe, safe_line, safe_text
from reviewer.services.pair_verdicts import verdict_lines

if TYPE_CHECKING:  # (rich's types alone: the renderers import rich when they run)
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.table import Table

    from reviewer.services.reports import (
        CalibrationReport,
        Confusion,
        CorrectedBoard,
        DimensionEntry,
        GoldAccuracy,
        PairFigures,
        RunReport,
    )
    from rubrics.schema import Rubric

STATUS_COLOR = {"trusted": "green", "tentative": "yellow", "low_confidence": "red", "insufficient_data": "grey50"}
COLUMNS = ("dimension", "level", "n", "alpha", "alpha_ci", "alpha_humans", "spearman", "kappa",
           "kappa_quadratic", "exact", "bias", "pass_agreement", "status")
#: Column headings where the key alone would not say enough (bias is always judge minus human).
LABELS = {"bias": "bias (judge − human)"}
TEXT_COLUMNS = ("dimension", "status")  # data, escaped in Markdown; the rest are figures


def fmt(v: object) -> str:
    """A figure as a short string; None is a dash (the JSON says why)."""
    if v is None:
        return "—"
    if isinstance(v, list):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def pairs_line(pairs: PairFigures | None) -> str | None:
    """The pair figures (``report["pairs"]``) in one sentence, or None without any."""
    if not pairs:
        return None
    n, agreement, ci = pairs["n_pairs"], pairs["agreement"], pairs["agreement_ci"]
    if not n or agreement is None or ci is None:  # (both are there whenever a pair was compared)
        head = "pairs: no pair has both a judge preference and a human majority yet"
    else:
        lo, hi = ci
        head = (f"pairs: the judge picks the reviewers' choice in {round(agreement * n)} of {n} "
                f"({agreement:.0%}, 95% CI {lo:.0%}–{hi:.0%})")
    extra = [f"{pairs['split']} split evenly"] if pairs["split"] else []
    if pairs["human_ties"] is not None:
        extra.append(f"reviewers called {pairs['human_ties']:.0%} of {pairs['n_choices']} choices a tie")
    if pairs["reviewer_agreement"] is not None:
        extra.append(f"reviewers agree with each other {pairs['reviewer_agreement']:.0%} of the time")
    return head + ("; " + "; ".join(extra) if extra else "")


def people_line(d: DimensionEntry) -> str | None:
    """A dimension's reviewer, adjudication, anchoring and judge-spread figures in one line."""
    parts = []
    if d.get("majority_ties") is not None:
        parts.append(f"human score: the majority label ({d['majority_ties']} tied item"
                     f"{'s' if d['majority_ties'] != 1 else ''} settled by the tie rule)")
    revs = [r for r in d.get("reviewers", []) if r["n"]]
    if revs:
        parts.append("reviewers vs the others: " + ", ".join(
            f"{r['reviewer']} {r['bias']:+.2f}" + (f" (α {r['alpha_with_others']:.2f})"
                                                   if r["alpha_with_others"] is not None else "")
            for r in revs))
    adj = d.get("adjudicated")
    if adj and adj["n"] and (judge_mae := adj["judge_mae"]) is not None:
        text = f"on {adj['n']} adjudicated items the judge is off by {judge_mae:.2f}"
        if (human_mae := adj["human_mae"]) is not None:
            text += f", the reviewers by {human_mae:.2f}"
            text += " (the judge is the problem)" if judge_mae > human_mae else " (the rubric is ambiguous)"
        parts.append(text)
    anc = d.get("anchoring")
    if anc and anc["n"]:
        parts.append(f"{anc['n']} blind scores revised after the reveal, {anc['moved_toward']:.0%} toward the judge")
    spread = d.get("judge_spread")
    if spread and spread["sample_std"] is not None:
        parts.append(f"judge sample std {spread['sample_std']:.2f}")
    if spread and spread["model_std"] is not None:
        parts.append(f"between models {spread['model_std']:.2f}")
    learned = d.get("corrections")
    if learned and learned["after"]["n"]:
        a, b = learned["before"]["alpha"], learned["after"]["alpha"]
        parts.append(f"with people's corrections in the prompt α {fmt(a)} → {fmt(b)} on {learned['after']['n']} items")
    if d.get("best_model"):
        parts.append(f"closest to people: {d['best_model']}")
    return "; ".join(parts) or None


#: The table's columns at any width: the verdict is never cut (see :class:`CalibrationTable`).
KEPT = ("dimension", "n", "alpha", "status")
#: The other figures, in the order they join the table while it fits: the human ceiling
#: first (α means little without it), the bias and the pass agreement next.
OPTIONAL = ("alpha_humans", "bias", "pass_agreement", "spearman", "kappa_quadratic", "kappa", "exact", "level")


def _alpha_cell(d: DimensionEntry) -> str:
    """α with its interval in one cell, so the two never part."""
    ci = d.get("alpha_ci")
    return fmt(d.get("alpha")) + (f" {fmt(ci)}" if ci else "")


def shared_clauses(reasons: list[str]) -> list[str]:
    """The clauses (``; ``-separated) every one of several reasons has, in the first one's order:
    said once above the dimensions instead of once per dimension."""
    if len(reasons) < 2:
        return []
    split = [r.split("; ") for r in reasons]
    return [c for c in split[0] if c and all(c in other for other in split[1:])]


def _in_order(columns: tuple[str, ...]) -> list[str]:
    """These columns as the table shows them: the kept ones first, the status last."""
    return [c for c in (*KEPT[:-1], *OPTIONAL, KEPT[-1]) if c in columns]


class CalibrationTable:
    """``calibrate``'s table, fitted to the width it is printed at: the dimension, n, α with its
    interval and the status always, whole; each other figure only while the table still fits, else
    in the dimension's lines under it. Then each dimension's reason, a clause every dimension shares
    said once."""

    def __init__(self, report: CalibrationReport) -> None:
        self.report = report

    def _table(self, columns: list[str]) -> Table:
        from rich.table import Table

        r = self.report
        title = safe_text(f"{r['rubric']} · sample {r['sample']}"
                          + (f" · grouped by {r['group_by']}" if r.get("group_by") else ""), newlines=False)
        title.end = "\n"  # else the table's top border is printed on the title's line and cropped away
        t = Table(title=title)
        for c in columns:
            if c == "dimension":
                t.add_column(c, overflow="fold")
            elif c == "status":
                t.add_column(c, no_wrap=True)
            else:
                t.add_column(safe_text("alpha [interval]" if c == "alpha" else LABELS.get(c, c)), justify="right",
                             no_wrap=c in ("n", "alpha"))
        for d in r["dimensions"]:
            cells = [safe_text(d["status"], STATUS_COLOR.get(d["status"], "white"), newlines=False) if c == "status"
                     else safe_text(_alpha_cell(d) if c == "alpha" else fmt(d.get(c)), newlines=False)
                     for c in columns]
            t.add_row(*cells)
        return t

    def fitted(self, console: Console, options: ConsoleOptions) -> tuple[Table, list[str]]:
        """The table at ``options.max_width`` and the figures that did not fit in it."""
        from rich.measure import Measurement

        unbounded = options.update_width(1 << 16)  # the table's natural width, not one clamped to the terminal
        shown: tuple[str, ...] = KEPT
        for c in OPTIONAL:  # in order, up to the first that does not fit: the table reads the same at every width
            trial = _in_order((*shown, c))
            if Measurement.get(console, unbounded, self._table(trial)).maximum > options.max_width:
                break
            shown = tuple(trial)
        return self._table(_in_order(shown)), [c for c in OPTIONAL if c not in shown]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.text import Text

        table, moved = self.fitted(console, options)
        yield table
        dims = self.report["dimensions"]
        shared = shared_clauses([d.get("reason", "") for d in dims])
        lines = Text()
        if shared:
            lines.append(safe(f"every dimension: {'; '.join(shared)}\n"))
        for d in dims:
            own = "; ".join(c for c in d.get("reason", "").split("; ") if c not in shared)
            lines.append(safe_line(f"{d['dimension']}:"), style=STATUS_COLOR.get(d["status"], "white"))
            lines.append(safe(f" {own}\n" if own else "\n"))
            if moved:
                lines.append(safe("  " + " · ".join(f"{LABELS.get(c, c)} {fmt(d.get(c))}" for c in moved) + "\n"),
                             style="dim")
            people = people_line(d)
            if people:
                lines.append(safe(f"  {people}\n"), style="dim")
        pairs = pairs_line(self.report.get("pairs"))
        if pairs:
            lines.append(safe(pairs + "\n"), style="bold")
        for line in verdict_lines(self.report.get("pair_verdicts")):
            lines.append(safe_line(line) + "\n", style="bold")
        yield lines


def calibration_table(report: CalibrationReport) -> CalibrationTable:
    """A rich renderable: the table fitted to the terminal, status in colour, and under it each
    dimension's reason in words (:class:`CalibrationTable`)."""
    return CalibrationTable(report)


def calibration_markdown(report: CalibrationReport) -> str:
    """A Markdown table for a pull request."""
    lines = [f"### Calibration: {md_cell(report['rubric'])} (sample: {md_cell(report['sample'])})", "",
             "| " + " | ".join(LABELS.get(c, c) for c in COLUMNS) + " | reason |", "|" + "---|" * (len(COLUMNS) + 1)]
    for d in report["dimensions"]:
        lines.append("| " + " | ".join(md_cell(d.get(c)) if c in TEXT_COLUMNS else fmt(d.get(c)) for c in COLUMNS) + f" | {md_cell(d.get('reason', ''))} |")
    pairs = pairs_line(report.get("pairs"))
    if pairs:
        lines += ["", md_cell(pairs)]
    for line in verdict_lines(report.get("pair_verdicts")):
        lines += ["", md_cell(line)]
    return "\n".join(lines) + "\n"


def calibration_html(report: CalibrationReport, confusion: dict[str, Confusion] | None = None,
                     rubric: Rubric | None = None, gold: list[GoldAccuracy] | None = None) -> str:
    """One self-contained page (:mod:`reviewer.services.page.calibration_page`): the verdicts,
    the charts, the terminal's lines and every figure."""
    from reviewer.services.page.calibration_page import calibration_page

    return calibration_page(report, confusion, rubric, gold)


def run_report_markdown(rep: RunReport) -> str:
    """The per-run report as Markdown; a rubric with a headline score (REVAL's figure treatment:
    treatment parity) leads with it, before the per-dimension table."""
    lines = [f"### Report: {md_cell(rep['rubric'])}", ""]
    head = rep.get("headline")
    if head:
        lowest = head.get("lowest")
        lines += [f"**{md_cell(head['name'])}: {fmt(head['mean'])} ({md_cell(head['band'] or '—')})** — the "
                  f"headline score, over {head['n']} pairs"
                  + (f"; lowest {md_cell(lowest['group'])} {fmt(lowest['score'])} ({md_cell(lowest['band'])})"
                     if lowest else ""), ""]
    lines += ["| dimension | mean | band | pass rate | judge errors | cost (USD) |", "|---|---|---|---|---|---|"]
    for d in rep["dimensions"]:
        lines.append(f"| {md_cell(d['dimension'])} | {fmt(d['mean'])} | {md_cell(d['band'] or '—')} | "
                     f"{fmt(d['pass_rate'])} | {d['judge_errors']} | {d['cost_usd']:.4f} |")
    for d in rep["dimensions"]:
        t = d.get("turns")
        if t:
            lines.append(f"\n{md_cell(d['dimension'])}: {t['scored']} turns scored, turn mean {fmt(t['mean'])}, "
                         f"{t['errors']} failed; each item's score is the {t['aggregate']} of its turns")
    incomplete = rep.get("incomplete") or 0
    overall = "Rubric overall mean (not the headline)" if head else "Overall mean"
    lines += ["", f"{overall} {fmt(rep['overall_mean'])} ({md_cell(rep['overall_band'] or '—')})"
              + (f" over {rep['items'] - incomplete} complete items; {incomplete} incomplete (no overall)"
                 if incomplete else "") + f"; safety: {md_cell(rep['safety'])}", "",
              *(["| model | items | mean " + md_cell(head["name"] or head["dimension"]).lower()
                 + " | mean overall | pass rate |", "|---|---|---|---|---|"] if head else
                ["| model | items | mean overall | pass rate |", "|---|---|---|---|"])]
    for m in rep["leaderboard"]:
        lines.append(f"| {md_cell(m['model'])} | {m['n']} | "
                     + (f"{fmt(m.get('headline_mean'))} | " if head else "")
                     + f"{fmt(m['mean_overall'])} | {fmt(m['pass_rate'])} |")
    lines += corrected_board_markdown(rep.get("corrected_leaderboard"))
    return "\n".join(lines) + "\n"


def corrected_board_markdown(board: CorrectedBoard | None) -> list[str]:
    """The leaderboard by the judge's pass rate and by the corrected one, side by side."""
    if not board:
        return ["", "Corrected pass rates: no audit sample (draw one with `rubricate queue audit-sample`)."]
    pct = round(100 * board["confidence"])
    lines = ["", f"Pass rate by {md_cell(board['by'])}, judge alone and corrected with the audit sample ({pct}% interval):",
             "", "| rank | judge rank | group | judge pass rate | corrected | interval | P(rank right) |",
             "|---|---|---|---|---|---|---|"]
    for r in board["rows"]:
        ci = r["ppi_ci"]
        lines.append(f"| {r['rank']} | {r['judge_rank']} | {md_cell(r['group'])} | {fmt(r['judge_only'])} | "
                     f"{fmt(r['ppi'])} | {f'[{ci[0]:.3f}, {ci[1]:.3f}]' if ci else '—'} | "
                     f"{fmt(r['rank_probability'])} |")
    moved = board["order_changes"]
    lines += ["", "The corrected order differs from the judge's for: " + ", ".join(md_cell(g) for g in moved) + "."
              if moved else "The corrected order is the judge's."]
    return lines
