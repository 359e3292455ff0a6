"""What every page shares: the shell and its style sheet (no script, no font or file fetched),
escaping, the status and band chips, and the appendix that lists every figure of the report's
JSON (``--format json``) as the terminal formats it."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator

from reviewer.safetext import safe
from reviewer.services.reports import Json

#: Readable on screen and on paper: status colours are backgrounds behind their word, a print
#: keeps the word, the border and the chart hatches.
CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em auto;max-width:1100px;
padding:0 1em;color:#111;background:#fff}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #999}
h3{font-size:1em;margin:1em 0 .3em}
table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #bbb;padding:3px 6px;vertical-align:top;font-size:13px}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#f2f2f2;text-align:left}
.lead{font-size:1.15em;margin:.6em 0;padding:.6em .8em;border:2px solid #333}
.chip{display:inline-block;padding:0 .5em;border:1.5px solid #000;border-radius:.6em;font-weight:600;
white-space:nowrap}
.s-trusted{background:#c8e6c9}.s-tentative{background:#fff3b0;border-style:dashed}
.s-low_confidence{background:#ffcdd2;border-style:double;border-width:3px}
.s-insufficient_data{background:#e0e0e0;border-style:dotted}
.note{color:#333}.lines{white-space:pre-wrap;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;
background:#f7f7f7;border:1px solid #ccc;padding:.6em}
.chart svg{max-width:100%;height:auto}.grid{display:flex;flex-wrap:wrap;gap:1em}.grid .chart{flex:0 1 auto}
.wide{overflow-x:auto}.figs{columns:3 20em;font-size:12px}.figs div{break-inside:avoid;overflow-wrap:anywhere}
.banner{border:3px solid #b00;padding:.5em;font-weight:bold}
@media print{body{max-width:none;margin:0}h2{break-after:avoid}.chart,table{break-inside:avoid}
.lines{background:none}}
"""


def esc(value: object) -> str:
    """Data as HTML text: control characters made visible (:func:`safe`), then escaped."""
    return html.escape(safe(value if isinstance(value, str) else str(value)), quote=True)


def status_chip(status: str) -> str:
    """A status as a chip: its word on the status colour, a border style of its own."""
    known = status if status in ("trusted", "tentative", "low_confidence", "insufficient_data") else "other"
    return f"<span class='chip s-{known}'>{esc(status)}</span>"


def band_chip(name: str | None, colour: str) -> str:
    """A band as a chip in the rubric's colour (``colour``: already a safe CSS colour), its name
    always written in it."""
    if not name:
        return "—"
    return (f"<span class='chip' style='background:{colour};color:#fff;"
            f"text-shadow:0 0 2px #000'>{esc(name)}</span>")


def chart(svg: str | None, caption: str, absent: str) -> str:
    """A chart with its caption, or the sentence saying why there is none."""
    if svg is None:
        return f"<p class='note'>{esc(absent)}</p>"
    cap = f"<figcaption class='note'>{esc(caption)}</figcaption>" if caption else ""
    return f"<figure class='chart'>{svg}{cap}</figure>"


def page(title: str, body: str) -> str:
    """The whole document: one file, its style inline, nothing fetched when it is viewed."""
    return (f"<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width,initial-scale=1'>"
            f"<title>{esc(title)}</title><style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n")


def _leaves(value: Json, path: str) -> Iterator[tuple[str, Json]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]")
    else:
        yield path, value


def every_figure(data: Json, fmt: Callable[[object], str]) -> str:
    """Every figure of the report's JSON, by its key path, formatted as the terminal does
    (``fmt``): the page carries all that ``--format json`` says."""
    rows = "".join(f"<div><code>{esc(p)}</code> {esc(fmt(v))}</div>" for p, v in _leaves(data, ""))
    return f"<div class='figs'>{rows}</div>"
