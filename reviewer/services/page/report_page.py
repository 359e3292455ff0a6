"""``report --format html``: the rubric's headline first (REVAL's treatment parity where the
rubric names one), the means with their band chips, the leaderboard and its corrected order with
the rank changes, and every figure of the JSON."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from reviewer.services.page import estimate_charts as ec
from reviewer.services.page.document import band_chip, chart, esc, every_figure, page
from reviewer.services.page.svg import colour
from reviewer.services.report_render import fmt
from reviewer.services.reports import RunReport

if TYPE_CHECKING:
    from rubrics.schema import Rubric


def _num(v: object) -> str:
    return f"<td class=num>{esc(fmt(v))}</td>"


def _headline(rep: RunReport, colours: dict[str, str]) -> str:
    head = rep.get("headline")
    if not head:
        return ""
    lowest = head.get("lowest")
    low = (f"; lowest {esc(lowest['group'])} {esc(fmt(lowest['score']))} "
           f"{band_chip(lowest['band'], colours.get(lowest['band'] or '', '#9e9e9e'))}" if lowest else "")
    return (f"<p class='lead'><b>{esc(head['name'])}: {esc(fmt(head['mean']))}</b> "
            f"{band_chip(head['band'], colours.get(head['band'] or '', '#9e9e9e'))} — the headline score, over "
            f"{esc(head['n'])} pairs{low}</p>")


def _dimensions(rep: RunReport, colours: dict[str, str]) -> str:
    rows = "".join(
        f"<tr><td>{esc(d['dimension'])}</td>{_num(d['mean'])}"
        f"<td>{band_chip(d['band'], colours.get(d['band'] or '', '#9e9e9e'))}</td>{_num(d['pass_rate'])}"
        f"{_num(d['judge_errors'])}<td class=num>{esc(format(d['cost_usd'], '.4f'))}</td></tr>"
        for d in rep["dimensions"])
    turns = "".join(
        f"<p>{esc(d['dimension'])}: {esc(t['scored'])} turns scored, turn mean {esc(fmt(t['mean']))}, "
        f"{esc(t['errors'])} failed; each item's score is the {esc(t['aggregate'])} of its turns</p>"
        for d in rep["dimensions"] if (t := d.get("turns")))
    return ("<table><tr><th>dimension</th><th class=num>mean</th><th>band</th><th class=num>pass rate</th>"
            f"<th class=num>judge errors</th><th class=num>cost (USD)</th></tr>{rows}</table>{turns}")


def _boards(rep: RunReport, colours: dict[str, str]) -> str:
    incomplete = rep.get("incomplete") or 0
    overall = "Rubric overall mean (not the headline)" if rep.get("headline") else "Overall mean"
    out = (f"<p>{overall} {esc(fmt(rep['overall_mean']))} "
           f"{band_chip(rep['overall_band'], colours.get(rep['overall_band'] or '', '#9e9e9e'))}"
           + (f" over {esc(rep['items'] - incomplete)} complete items; {esc(incomplete)} incomplete (no overall)"
              if incomplete else "")
           + "; safety: " + esc(", ".join(f"{k} {v}" for k, v in rep["safety"].items()) or "none") + "</p>")
    head = rep.get("headline")
    out += ("<table><tr><th>model</th><th class=num>items</th>"
            + (f"<th class=num>mean {esc(head['name'].lower())}</th>" if head else "")
            + "<th class=num>mean overall</th><th class=num>pass rate</th></tr>"
            + "".join(f"<tr><td>{esc(m['model'])}</td>{_num(m['n'])}"
                      + (_num(m.get("headline_mean")) if head else "")
                      + f"{_num(m['mean_overall'])}{_num(m['pass_rate'])}</tr>"
                      for m in rep["leaderboard"]) + "</table>")
    board = rep.get("corrected_leaderboard")
    if not board:
        return out + "<p class='note'>Corrected pass rates: no audit sample (draw one with " \
                     "<code>rubricate queue audit-sample</code>).</p>"
    pct = round(100 * board["confidence"])
    out += (f"<h2>Pass rate by {esc(board['by'])}: judge alone and corrected with the audit sample</h2>"
            + chart(ec.leaderboard_chart(board["rows"], "chart-leaderboard", "pass rate"),
                    f"Groups in corrected order, {pct}% intervals; the rank change is against the judge's order.",
                    "No group has a corrected pass rate yet."))
    out += ("<table><tr><th class=num>rank</th><th class=num>judge rank</th><th>change</th><th>group</th>"
            "<th class=num>judge pass rate</th><th class=num>corrected</th><th class=num>interval</th>"
            "<th class=num>P(rank right)</th></tr>"
            + "".join(f"<tr>{_num(r['rank'])}{_num(r['judge_rank'])}<td>{esc(ec.rank_change(r))}</td>"
                      f"<td>{esc(r['group'])}</td>{_num(r['judge_only'])}{_num(r['ppi'])}{_num(r['ppi_ci'])}"
                      f"{_num(r['rank_probability'])}</tr>" for r in board["rows"]) + "</table>")
    moved = board["order_changes"]
    return out + (f"<p>The corrected order differs from the judge's for: {esc(', '.join(moved))}.</p>" if moved
                  else "<p>The corrected order is the judge's.</p>")


def report_page(rep: RunReport, rubric: Rubric | None = None) -> str:
    """The page of one run report (``rubric``: for its bands' colours)."""
    colours = {b.label: colour(b.color) for b in rubric.bands} if rubric is not None else {}
    title = f"Report: {rep['rubric']}"
    body = f"<h1>{esc(title)}</h1>" + _headline(rep, colours)
    body += "<h2>Dimensions</h2>" + chart(ec.means_chart(rep["dimensions"], colours, "chart-means"),
                                          "Mean effective score per dimension in its band's colour.",
                                          "No dimension has a score yet.")
    body += _dimensions(rep, colours) + "<h2>Leaderboard</h2>" + _boards(rep, colours)
    body += "<h2>Every figure</h2>" + every_figure(json.loads(json.dumps(rep, default=float)), fmt)
    return page(title, body)
