"""The calibration page's agreement charts: α against the human ceiling per dimension, the bias
per dimension, a confusion heatmap and a reliability view per dimension, the reviewers' offsets and their gold accuracy
week by week. Each draws figures the calibrate service computed; none computes one."""

from __future__ import annotations

from collections.abc import Sequence

from reviewer.services.page.svg import STATUS_STYLE, figure, label, rows_figure, to_svg
from reviewer.services.reports import Confusion, DimensionEntry, GoldAccuracy

#: Marker shapes, one per reviewer in turn: a black-and-white print tells them apart.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
#: Above this many levels a heatmap's cells carry no counts and its axes every other label at most.
ANNOTATED_LEVELS = 12


def alpha_chart(dims: Sequence[DimensionEntry], tentative: float, trusted: float) -> str | None:
    """Per dimension α as a bar (colour and hatch by status, the status word beside it), its
    bootstrap interval as a line, the humans' own α (the ceiling) as a diamond, and the bounds a
    dimension must clear as dashed lines; None when no dimension has an α."""
    shown = [(d, a) for d in dims if (a := d.get("alpha")) is not None]
    if not shown:
        return None
    fig, ax, ys = rows_figure(len(shown))
    lows = [0.0]
    for y, (d, alpha) in zip(ys, shown, strict=True):
        fill, hatch = STATUS_STYLE.get(d["status"], ("#9e9e9e", ""))
        ax.barh(y, alpha, color=fill, hatch=hatch, edgecolor="black", linewidth=0.5, height=0.55)
        ci = d.get("alpha_ci")
        if ci:
            ax.plot(ci, [y, y], color="black", linewidth=1.6)
            ax.plot([ci[0]] * 2, [y - 0.15, y + 0.15], color="black", linewidth=1.2)
            ax.plot([ci[1]] * 2, [y - 0.15, y + 0.15], color="black", linewidth=1.2)
            lows.append(ci[0])
        lows.append(alpha)
        if (humans := d.get("alpha_humans")) is not None:
            ax.plot([humans], [y], marker="D", color="white", markeredgecolor="black", markersize=7)
            lows.append(humans)
        ax.text(1.04, y, label(d["status"]), va="center", fontsize=8)
    ax.axvline(tentative, color="black", linestyle=":", linewidth=0.8)
    ax.axvline(trusted, color="black", linestyle="--", linewidth=0.8)
    ax.set_yticks(ys, [label(d["dimension"], 28) for d, _ in shown])
    ax.set_xlim(min(lows) - 0.05, 1.3)
    ax.set_xlabel(f"Krippendorff's α (bar), interval (line), humans' α (◇); "
                  f"dotted {tentative:g} tentative, dashed {trusted:g} trusted")
    return to_svg(fig, "chart-alpha")


def bias_chart(dims: Sequence[DimensionEntry]) -> str | None:
    """Per dimension the judge's mean minus the humans' as a diverging bar, its value beside it
    (a plain bar where the judge scores higher, a hatched one where lower)."""
    shown = [(d, bias) for d in dims if (bias := d.get("bias")) is not None]
    if not shown:
        return None
    fig, ax, ys = rows_figure(len(shown))
    reach = max(abs(b) for _, b in shown) or 1.0
    for y, (_, b) in zip(ys, shown, strict=True):
        ax.barh(y, b, color="#1565c0" if b >= 0 else "#ef6c00", hatch="" if b >= 0 else "\\\\",
                edgecolor="black", linewidth=0.5, height=0.55)
        ax.text(b + (0.03 if b >= 0 else -0.03) * reach, y, f"{b:+.3f}", va="center",
                ha="left" if b >= 0 else "right", fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlim(-1.35 * reach, 1.35 * reach)
    ax.set_yticks(ys, [label(d["dimension"], 28) for d, _ in shown])
    ax.set_xlabel("bias: judge − human (raw points); right: the judge scores higher, left (hatched): lower")
    return to_svg(fig, "chart-bias")


def level_names(levels: Sequence[float], names: dict[float, str]) -> list[str]:
    """Each level as the rubric writes it: the number, and its anchor's label when one names it."""
    return [f"{v:g}" + (f" {label(names[v], 18)}" if v in names else "") for v in levels]


def confusion_chart(dimension: str, conf: Confusion, names: dict[float, str], index: int) -> str:
    """One dimension's judge × human table as a grey heatmap (darker: more items), each cell's
    count written in it while the levels are few, the levels labelled as the rubric writes them."""
    levels, table = conf["levels"], conf["table"]
    k = len(levels)
    side = min(1.4 + 0.24 * k, 7.0)
    fig, ax = figure(side + 0.6, side)
    peak = max((max(row) for row in table), default=0) or 1
    # cells as vector shapes (imshow would embed a raster image): the page stays sharp in print
    ax.pcolormesh([x - 0.5 for x in range(k + 1)], [y - 0.5 for y in range(k + 1)], table, cmap="Greys",
                  vmin=0, vmax=peak * 1.15, edgecolors="#dddddd", linewidth=0.3)
    ax.set_xlim(-0.5, k - 0.5)
    ax.set_ylim(k - 0.5, -0.5)
    if k <= ANNOTATED_LEVELS:
        for i, row in enumerate(table):
            for j, v in enumerate(row):
                if v:
                    ax.text(j, i, f"{int(v)}", ha="center", va="center", fontsize=7,
                            color="white" if v > peak * 0.55 else "black")
    step = 1 if k <= ANNOTATED_LEVELS else -(-k // ANNOTATED_LEVELS)
    ticks = list(range(0, k, step))
    shown = level_names([levels[t] for t in ticks], names)
    ax.set_xticks(ticks, shown, rotation=45 if any(len(s) > 3 for s in shown) else 0, ha="right")
    ax.set_yticks(ticks, shown)
    ax.set_xlabel("human level")
    ax.set_ylabel("judge level")
    ax.set_title(label(dimension) + (f": {conf['n']} items" if "n" in conf else ""), fontsize=9)
    ax.spines[["top", "right"]].set_visible(True)
    return to_svg(fig, f"chart-confusion-{index}")


def reliability_chart(dimension: str, conf: Confusion, names: dict[float, str], index: int) -> str | None:
    """One dimension's reliability view: per judge level, the people's mean score on the items the
    judge put there (a dot; the item count under the level's name) with its interval (a bar),
    against the diagonal where the two would agree; None when no level holds an item."""
    points = conf.get("reliability") or []
    if not points:
        return None
    levels = conf["levels"]
    lo, hi = min(levels), max(levels)
    pad = (hi - lo) * 0.08 or 0.5
    side = min(2.2 + 0.18 * len(levels), 5.0)
    fig, ax = figure(side + 0.6, side)
    ax.plot([lo, hi], [lo, hi], color="black", linestyle="--", linewidth=0.8)
    xs = [p["level"] for p in points]
    ys = [p["mean_human"] for p in points]
    # one collection for every interval (a point of one item has none): far cheaper to draw
    # than a line per point
    below = [y - p["ci"][0] if p["ci"] else 0.0 for p, y in zip(points, ys, strict=True)]
    above = [p["ci"][1] - y if p["ci"] else 0.0 for p, y in zip(points, ys, strict=True)]
    ax.errorbar(xs, ys, yerr=[below, above], fmt="o", color="black", markersize=4, elinewidth=1.4, capsize=0)
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(lo - pad, hi + pad)
    step = 1 if len(points) <= ANNOTATED_LEVELS else -(-len(points) // ANNOTATED_LEVELS)
    shown = points[::step]
    ax.set_xticks([p["level"] for p in shown],
                  [f"{name}\nn={p['n']}" for name, p in zip(level_names([p["level"] for p in shown], names), shown,
                                                            strict=True)],
                  rotation=45 if names else 0, ha="right" if names else "center", fontsize=7)
    ax.set_xlabel("judge level (n: its items)")
    ax.set_ylabel("people's mean score")
    ax.set_title(label(dimension), fontsize=9)
    return to_svg(fig, f"chart-reliability-{index}")


def reviewer_chart(dims: Sequence[DimensionEntry]) -> str | None:
    """Each reviewer's offset against the others (their mean minus the others', per dimension) as
    a dot per dimension, one marker shape per reviewer."""
    people = sorted({r["reviewer"] for d in dims for r in d.get("reviewers", []) if r.get("n")})
    if not people:
        return None
    fig, ax, ys = rows_figure(len(dims), base=1.3)
    for p, who in enumerate(people):
        xs: list[float] = []
        at: list[float] = []
        for y, d in zip(ys, dims, strict=True):
            for r in d.get("reviewers", []):
                if r["reviewer"] == who and r.get("n") and (offset := r.get("bias")) is not None:
                    xs.append(offset)
                    at.append(y + (p - (len(people) - 1) / 2) * 0.12)
        ax.plot(xs, at, linestyle="none", marker=MARKERS[p % len(MARKERS)], markersize=6,
                markerfacecolor="white" if p % 2 else "black", markeredgecolor="black", label=label(who, 20))
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(ys, [label(d["dimension"], 28) for d in dims])
    ax.set_xlabel("reviewer's mean minus the others' on the same items (raw points)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    return to_svg(fig, "chart-reviewers")


def gold_chart(rows: Sequence[GoldAccuracy]) -> str | None:
    """Each reviewer's mean absolute error on gold items per ISO week (drift: a line that climbs),
    one marker shape per reviewer; None when nobody has scored a gold item."""
    if not rows:
        return None
    weeks = sorted({w for r in rows for w in r["mae_by_week"]})
    fig, ax = figure(7.6, 2.8)
    for p, r in enumerate(rows):
        at = [weeks.index(w) for w in r["mae_by_week"]]
        ax.plot(at, list(r["mae_by_week"].values()), marker=MARKERS[p % len(MARKERS)], color="black",
                linestyle=("-", "--", ":", "-.")[p % 4], markerfacecolor="white" if p % 2 else "black",
                label=label(r["reviewer"], 20))
    ax.set_xticks(range(len(weeks)), [label(w) for w in weeks])
    ax.set_ylim(bottom=0)
    ax.set_xlabel("ISO week the gold score was given")
    ax.set_ylabel("MAE against the gold score")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    return to_svg(fig, "chart-gold")
