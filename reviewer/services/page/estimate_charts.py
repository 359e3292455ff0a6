"""The page's estimate charts: judge-only against corrected means with their intervals, the pass
rate, and a leaderboard's rank changes. They draw the estimates service's figures as given."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from reviewer.services.page.svg import label, rows_figure, to_svg
from reviewer.services.reports import Estimate, RankedEstimate, RunDimension

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def _interval(ax: Axes, ci: Sequence[float] | None, y: float, linewidth: float, linestyle: str = "-") -> None:
    """An interval as a black line at row ``y`` (none without one)."""
    if ci:
        ax.plot(list(ci), [y, y], color="black", linestyle=linestyle, linewidth=linewidth)


def _drawn(value: float | None) -> float:
    """A figure as matplotlib draws it: a missing one (None) is NaN, a point drawn nowhere."""
    return math.nan if value is None else value


def estimates_chart(rows: Sequence[tuple[str, Estimate]], name: str, xlabel: str) -> str | None:
    """Per figure (a dimension's mean, or the pass rate) the judge's value alone (×), people's alone
    on the audit sample (○, its interval dotted) and the corrected one (■, its interval solid);
    figures without a corrected value are left out (their reason is in the text)."""
    shown = [(n, e, ppi) for n, e in rows if (ppi := e.get("ppi")) is not None]
    if not shown:
        return None
    fig, ax, ys = rows_figure(len(shown), 0.5, 1.0)
    for y, (_, e, corrected) in zip(ys, shown, strict=True):
        _interval(ax, e.get("humans_ci"), y - 0.15, 1.4, ":")
        ax.plot([_drawn(e["humans_only"])], [y - 0.15], marker="o", markerfacecolor="white", markeredgecolor="black",
                linestyle="none")
        _interval(ax, e.get("ppi_ci"), y + 0.15, 2)
        ax.plot([corrected], [y + 0.15], marker="s", color="black", linestyle="none")
        ax.plot([_drawn(e["judge_only"])], [y], marker="x", color="#c62828", markersize=8, linestyle="none")
    ax.set_yticks(ys, [label(n, 28) for n, _, _ in shown])
    ax.set_ylim(-0.7, len(shown) - 0.3)
    ax.set_xlabel(xlabel)
    ax.plot([], [], marker="x", color="#c62828", linestyle="none", label="judge alone")
    ax.plot([], [], marker="o", markerfacecolor="white", markeredgecolor="black", linestyle=":", color="black",
            label="people alone (audit)")
    ax.plot([], [], marker="s", color="black", label="corrected")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    return to_svg(fig, name)


def leaderboard_chart(rows: Sequence[RankedEstimate], name: str, xlabel: str) -> str | None:
    """A leaderboard in its corrected order: each group's judge-only value (×) and corrected value
    with its interval (■), the rank change written beside it (▲ up, ▼ down, = same)."""
    shown = [(r, ppi) for r in rows if (ppi := r.get("ppi")) is not None]
    if not shown:
        return None
    fig, ax, ys = rows_figure(len(shown), 0.42, 1.0)
    right = max([ci[1] if (ci := r.get("ppi_ci")) else corrected for r, corrected in shown]
                + [judge for r, _ in shown if (judge := r.get("judge_only")) is not None])
    for y, (r, corrected) in zip(ys, shown, strict=True):
        _interval(ax, r.get("ppi_ci"), y, 2)
        ax.plot([corrected], [y], marker="s", color="black", linestyle="none")
        if (judge_only := r.get("judge_only")) is not None:
            ax.plot([judge_only], [y], marker="x", color="#c62828", markersize=8, linestyle="none")
        ax.text(right * 1.04 + 0.01, y, rank_change(r), va="center", fontsize=8)
    ax.set_yticks(ys, [f"{r['rank']}. {label(r['group'], 24)}" for r, _ in shown])
    ax.set_xlabel(xlabel + " — × judge alone, ■ corrected with interval")
    ax.set_xlim(right=right * 1.25 + 0.05)
    return to_svg(fig, name)


def rank_change(row: RankedEstimate) -> str:
    """A group's move from its judge-only rank to its corrected one, as words a print keeps."""
    moved = int(row["judge_rank"]) - int(row["rank"])
    if moved > 0:
        return f"▲{moved} (judge rank {row['judge_rank']})"
    if moved < 0:
        return f"▼{-moved} (judge rank {row['judge_rank']})"
    return f"= (judge rank {row['judge_rank']})"


def means_chart(dims: Sequence[RunDimension], colours: dict[str, str], name: str) -> str | None:
    """A run report's mean per dimension as a bar in its band's colour, the band's name beside it."""
    shown = [(d, m) for d in dims if (m := d.get("mean")) is not None]
    if not shown:
        return None
    fig, ax, ys = rows_figure(len(shown))
    for y, (d, mean) in zip(ys, shown, strict=True):
        ax.barh(y, mean, color=colours.get(d.get("band") or "", "#9e9e9e"), edgecolor="black",
                linewidth=0.5, height=0.55)
        ax.text(mean, y, f" {mean:.3f} {label(d.get('band') or '—', 20)}", va="center", fontsize=8)
    ax.set_yticks(ys, [label(d["dimension"], 28) for d, _ in shown])
    ax.set_xlim(0, max(mean for _, mean in shown) * 1.35)
    ax.set_xlabel("mean effective score (raw points); bar colour and word: the rubric's band")
    return to_svg(fig, name)
