"""``calibrate --format html``: the verdict per dimension first, then the charts (α against the
human ceiling, bias, confusion heatmaps, reliability views, reviewers, gold drift, corrected estimates, rankings),
the terminal's lines, and every figure of the JSON."""

from __future__ import annotations

import json
from functools import partial
from typing import TYPE_CHECKING

from calibration.report import TrustBounds
from reviewer.services.page import agreement_charts as ac
from reviewer.services.page import estimate_charts as ec
from reviewer.services.page.document import band_chip, esc, every_figure, page, status_chip
from reviewer.services.page.drawing import Charts
from reviewer.services.page.svg import colour
from reviewer.services.report_render import (
    COLUMNS,
    LABELS,
    fmt,
    pairs_line,
    people_line,
    shared_clauses,
)
from reviewer.services.reports import CalibrationReport, Confusion, DimensionEntry, GoldAccuracy

if TYPE_CHECKING:
    from rubrics.schema import Rubric

STATUSES = ("trusted", "tentative", "low_confidence", "insufficient_data")


def _verdict(dims: list[DimensionEntry]) -> str:
    """The lead's sentence: which dimensions the judge may score alone, which go to people."""
    parts = []
    for s in STATUSES:
        names = [d["dimension"] for d in dims if d["status"] == s]
        if names:
            parts.append(f"{status_chip(s)} {esc(', '.join(names))}")
    return "<p class='lead'>" + " · ".join(parts) + "</p>" if parts else ""


#: The table's columns: the verdict beside the name, α with its interval in one cell, the other
#: figures, and the reason in words last.
TABLE = ("dimension", "status", "n", "alpha", *(c for c in COLUMNS if c not in ("dimension", "status", "n", "alpha",
                                                                           "alpha_ci")), "reason")


def _cell(d: DimensionEntry, c: str) -> str:
    if c == "status":
        return f"<td>{status_chip(d['status'])}</td>"
    if c in ("dimension", "reason"):
        return f"<td>{esc(d.get(c, ''))}</td>"
    if c == "alpha":
        ci = d.get("alpha_ci")
        return f"<td class=num>{esc(fmt(d.get(c)))}" + (f"<br>{esc(fmt(ci))}" if ci else "") + "</td>"
    return f"<td class=num>{esc(fmt(d.get(c)))}</td>"


def _table(dims: list[DimensionEntry]) -> str:
    head = "".join(f"<th{'' if c in ('dimension', 'status', 'reason') else ' class=num'}>"
                   f"{esc('α [interval]' if c == 'alpha' else LABELS.get(c, c).replace('_', ' '))}</th>" for c in TABLE)
    rows = "".join("<tr>" + "".join(_cell(d, c) for c in TABLE) + "</tr>" for d in dims)
    return f"<div class='wide'><table><tr>{head}</tr>{rows}</table></div>"


def terminal_lines(report: CalibrationReport) -> list[str]:
    """What ``calibrate`` prints under its table, in its words: the reasons (a clause every
    dimension shares said once), the people's figures, the pairs, the corrected estimates."""
    from reviewer.services.estimate_render import estimate_lines

    dims = report["dimensions"]
    shared = shared_clauses([d.get("reason", "") for d in dims])
    lines = [f"every dimension: {'; '.join(shared)}"] if shared else []
    for d in dims:
        own = "; ".join(c for c in d.get("reason", "").split("; ") if c not in shared)
        lines.append(f"{d['dimension']}: {own}".rstrip())
        people = people_line(d)
        if people:
            lines.append(f"  {people}")
    pairs = pairs_line(report.get("pairs"))
    if pairs:
        lines.append(pairs)
    return lines + ([""] + estimate_lines(report) if report.get("pass_rate_estimate") else [])


def _level_names(rubric: Rubric | None, dim_id: str) -> dict[float, str]:
    if rubric is None:
        return {}
    dim = next((d for d in rubric.dimensions if d.id == dim_id), None)
    if dim is None:
        return {}
    return {v: name for v in dim.scale.level_values() if (name := dim.label_for(v))}


def _estimates(report: CalibrationReport, charts: Charts) -> str:
    dims = report["dimensions"]
    p = report.get("pass_rate_estimate")
    if p is None:
        return "<p class='note'>No corrected estimates in this report (--no-estimates).</p>"
    out = charts.add(partial(ec.estimates_chart, [(d["dimension"], d["estimate"]) for d in dims if "estimate" in d],
                                          "chart-estimates", "mean score (raw points)"),
                "Per dimension: the judge's mean on every item, people's mean on the audit sample, and the "
                "corrected mean (judge on every item, people on the audit sample) with its interval.",
                "No dimension has a corrected mean yet: the reasons are in the lines below.")
    out += charts.add(partial(ec.estimates_chart, [("pass rate", p)], "chart-pass-rate", "pass rate"),
                 "The pass rate: judge alone, people alone, corrected.",
                 f"No corrected pass rate: {p.get('reason') or 'not enough data'}.")
    for i, d in enumerate(dims):
        ranking = (d.get("estimate") or {}).get("ranking")
        if ranking:
            out += f"<h3>{esc(d['dimension'])}: corrected means by {esc(report.get('group_by') or 'group')}</h3>"
            out += charts.add(partial(ec.leaderboard_chart, ranking, f"chart-ranking-{i}", "mean score (raw points)"),
                         "Groups in corrected order; the rank change is against the judge's own order.",
                         "No group has a corrected mean.")
    return out


def calibration_page(report: CalibrationReport, confusion: dict[str, Confusion] | None = None,
                     rubric: Rubric | None = None, gold: list[GoldAccuracy] | None = None,
                     bounds: TrustBounds | None = None) -> str:
    """The page of one calibration report (``confusion``: :func:`~reviewer.services.calibrate_service.confusions`;
    ``gold``: :func:`~reviewer.services.gold.gold_accuracy` for the rubric; ``rubric``: for level
    labels and band colours; ``bounds``: the ones the statuses were given by)."""
    bounds = bounds or TrustBounds()
    charts = Charts()
    dims = report["dimensions"]
    title = f"Calibration: {report['rubric']}"
    body = f"<h1>{esc(title)}</h1><p class='note'>sample {esc(report['sample'])} · human score: " \
           f"{esc(report.get('human_aggregate') or 'mean')} · bootstrap {esc(fmt(report.get('bootstrap')))} draws" \
           + (f" · grouped by {esc(report['group_by'])}" if report.get("group_by") else "") + "</p>"
    if rubric is not None and rubric.bands:
        body += "<p>bands: " + " ".join(f"{band_chip(b.label, colour(b.color))} ≥ {b.min:g}"
                                        for b in rubric.bands) + "</p>"
    body += _verdict(dims) + _table(dims)
    body += "<h2>Agreement: α against the human ceiling</h2>" + charts.add(
        partial(ac.alpha_chart, dims, bounds.tentative, bounds.trusted),
        "α of the judge against the humans' score, with its interval; the diamond is the humans' α among "
        "themselves, the most a judge can be expected to reach. Bar colour, hatch and word: the status.",
        "No dimension has an α yet.")
    body += "<h2>Bias: judge − human</h2>" + charts.add(
        partial(ac.bias_chart, dims), "Mean judge score minus the humans' on the same items.", "No dimension has a bias yet.")
    body += ("<h2>Confusion: judge level × human level</h2><p class='note'>Rows: the judge's level (its panel "
             "score); columns: the humans' score as the report takes it; each cell's count is written in it, "
             "darker cells hold more items; on the diagonal the two agree.</p><div class='grid'>")
    for i, (dim, conf) in enumerate((confusion or {}).items()):
        body += charts.add(partial(ac.confusion_chart, dim, conf, _level_names(rubric, dim), i), "", "")
    body += "</div>" if confusion else "</div><p class='note'>No dimension has items both scored.</p>"
    body += ("<h2>Reliability: judge level → people's mean</h2><p class='note'>Per level the judge gave: the "
             "people's mean score on those items (dot, with its item count) and its 95 % interval (line); "
             "on the dashed diagonal the judge's level is what people score on average.</p><div class='grid'>")
    for i, (dim, conf) in enumerate((confusion or {}).items()):
        body += charts.add(partial(ac.reliability_chart, dim, conf, _level_names(rubric, dim), i), "",
                           f"{dim}: no judge level holds an item people scored.")
    body += "</div>"
    body += "<h2>Reviewers</h2>" + charts.add(
        partial(ac.reviewer_chart, dims), "Each reviewer's offset against the others on the items they share.",
        "No reviewer overlaps another yet.")
    body += "<h3>Gold accuracy week by week</h3>" + charts.add(
        partial(ac.gold_chart, gold or []), "Mean absolute error on known-answer items per week: a rising line is drift.",
        "No reviewer has scored a gold item of this rubric yet.")
    body += "<h2>Corrected estimates</h2>" + _estimates(report, charts)
    body += "<h2>In words (as the terminal prints it)</h2><div class='lines'>" \
            + esc("\n".join(terminal_lines(report))) + "</div>"
    body += "<h2>Every figure</h2>" + every_figure(json.loads(json.dumps(report, default=float)), fmt)
    return page(title, charts.fill(body))
