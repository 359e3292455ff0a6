"""Corrected estimates in words: the lines ``rubricate calibrate`` prints under its table and the
TUI's calibration screen shows (plain text through :func:`reviewer.safetext.safe_line`)."""

from __future__ import annotations

from typing import Any

from reviewer.safetext import safe_line


def _ci(ci: list[float] | None, digits: int) -> str:
    return f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if ci else "[—]"


def estimate_line(name: str, e: dict[str, Any], digits: int = 2) -> str:
    """One figure: the judge's alone, people's alone, and the corrected one with its interval."""
    if e.get("ppi") is None:
        judge = f"judge {e['judge_only']:.{digits}f} · " if e.get("judge_only") is not None else ""
        return safe_line(f"{name}: {judge}no corrected figure: {e.get('reason') or 'not enough data'}")
    pct = round(100 * float(e.get("confidence", 0.95)))
    parts = [f"{name}: judge {e['judge_only']:.{digits}f}",
             f"people {e['humans_only']:.{digits}f} {_ci(e['humans_ci'], digits)}",
             f"corrected {e['ppi']:.{digits}f} {_ci(e['ppi_ci'], digits)} ({pct}%, "
             f"{e['n_labelled']} labelled + {e['n_unlabelled']} judged only, "
             f"worth {e['effective_labels']:.0f} labels)" if e.get("effective_labels") else
             f"corrected {e['ppi']:.{digits}f} {_ci(e['ppi_ci'], digits)} ({pct}%)"]
    if e.get("more_labels_needed") is not None:
        parts.append(f"{e['more_labels_needed']} more audit labels for a width of {e['target_width']:g}")
    line = " · ".join(parts)
    if e.get("reason"):
        line += f" — {e['reason']}"
    return safe_line(line)


def estimate_lines(report: dict[str, Any]) -> list[str]:
    """The estimate lines of a calibration report (none when it carries no estimates)."""
    p = report.get("pass_rate_estimate")
    if p is None:
        return []
    lines = ["Corrected estimates (judge on every item, people on the audit sample):",
             "  " + estimate_line("pass rate", p, 3)]
    lines += ["  " + estimate_line(d["dimension"], d["estimate"]) for d in report["dimensions"] if "estimate" in d]
    return lines
