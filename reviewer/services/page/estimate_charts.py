"""The page's estimate charts: judge-only against corrected means with their intervals, the pass
rate, and a leaderboard's rank changes. They draw the estimates service's figures as given."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reviewer.services.page.svg import label, rows_figure, to_svg


def _interval(ax: Any, ci: Sequence[float] | None, y: float, **style: Any) -> None:
    if ci:
        ax.plot(list(ci), [y, y], **style)


def estimates_chart(rows: Sequence[tuple[str, dict[str, Any]]], name: str, xlabel: str) -> str | None:
    """Per figure (a dimension's mean, or the pass rate) the judge's value alone (×), people's alone
    on the audit sample (○, its interval dotted) and the corrected one (■, its interval solid);
    figures without a corrected value are left out (their reason is in the text)."""
    shown = [(n, e) for n, e in rows if e.get("ppi") is not None]
    if not shown:
        return None
    fig, ax, ys = rows_figure(len(shown), 0.5, 1.0)
    for y, (_, e) in zip(ys, shown, strict=True):
        _interval(ax, e.get("humans_ci"), y - 0.15, color="black", linestyle=":", linewidth=1.4)
        ax.plot([e["humans_only"]], [y - 0.15], marker="o", markerfacecolor="white", markeredgecolor="black",
                linestyle="none")
        _interval(ax, e.get("ppi_ci"), y + 0.15, color="black", linewidth=2)
        ax.plot([e["ppi"]], [y + 0.15], marker="s", color="black", linestyle="none")
        ax.plot([e["judge_only"]], [y], marker="x", color="#c62828", markersize=8, linestyle="none")
    ax.set_yticks(ys, [label(n, 28) for n, _ in shown])
    ax.set_ylim(-0.7, len(shown) - 0.3)
    ax.set_xlabel(xlabel)
    ax.plot([], [], marker="x", color="#c62828", linestyle="none", label="judge alone")
    ax.plot([], [], marker="o", markerfacecolor="white", markeredgecolor="black", linestyle=":", color="black",
            label="people alone (audit)")
    ax.plot([], [], marker="s", color="black", label="corrected")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    return to_svg(fig, name)


def leaderboard_chart(rows: Sequence[dict[str, Any]], name: str, xlabel: str) -> str | None:
    """A leaderboard in its corrected order: each group's judge-only value (×) and corrected value
    with its interval (■), the rank change written beside it (▲ up, ▼ down, = same)."""
    shown = [r for r in rows if r.get("ppi") is not None]
    if not shown:
        return None
    fig, ax, ys = rows_figure(len(shown), 0.42, 1.0)
    right = max([r["ppi_ci"][1] if r.get("ppi_ci") else r["ppi"] for r in shown]
                + [r["judge_only"] for r in shown if r.get("judge_only") is not None])
    for y, r in zip(ys, shown, strict=True):
        _interval(ax, r.get("ppi_ci"), y, color="black", linewidth=2)
        ax.plot([r["ppi"]], [y], marker="s", color="black", linestyle="none")
        if r.get("judge_only") is not None:
            ax.plot([r["judge_only"]], [y], marker="x", color="#c62828", markersize=8, linestyle="none")
        ax.text(right * 1.04 + 0.01, y, rank_change(r), va="center", fontsize=8)
    ax.set_yticks(ys, [f"{r['rank']}. {label(r['group'], 24)}" for r in shown])
    ax.set_xlabel(xlabel + " — × judge alone, ■ corrected with interval")
    ax.set_xlim(right=right * 1.25 + 0.05)
    return to_svg(fig, name)


def rank_change(row: dict[str, Any]) -> str:
    """A group's move from its judge-only rank to its corrected one, as words a print keeps."""
    moved = int(row["judge_rank"]) - int(row["rank"])
    if moved > 0:
        return f"▲{moved} (judge rank {row['judge_rank']})"
    if moved < 0:
        return f"▼{-moved} (judge rank {row['judge_rank']})"
    return f"= (judge rank {row['judge_rank']})"


def means_chart(dims: Sequence[dict[str, Any]], colours: dict[str, str], name: str) -> str | None:
    """A run report's mean per dimension as a bar in its band's colour, the band's name beside it."""
    shown = [d for d in dims if d.get("mean") is not None]
    if not shown:
        return None
    fig, ax, ys = rows_figure(len(shown))
    for y, d in zip(ys, shown, strict=True):
        ax.barh(y, d["mean"], color=colours.get(d.get("band") or "", "#9e9e9e"), edgecolor="black",
                linewidth=0.5, height=0.55)
        ax.text(d["mean"], y, f" {d['mean']:.3f} {label(d.get('band') or '—', 20)}", va="center", fontsize=8)
    ax.set_yticks(ys, [label(d["dimension"], 28) for d in shown])
    ax.set_xlim(0, max(d["mean"] for d in shown) * 1.35)
    ax.set_xlabel("mean effective score (raw points); bar colour and word: the rubric's band")
    return to_svg(fig, name)
