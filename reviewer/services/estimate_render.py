"""Corrected estimates in words: the lines ``rubricate calibrate`` prints under its table and the
TUI's calibration screen shows (plain text through :func:`reviewer.safetext.safe_line`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reviewer.safetext import safe_line

if TYPE_CHECKING:
    from reviewer.services.reports import CalibrationReport, Estimate


def _ci(ci: list[float] | None, digits: int) -> str:
    return f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if ci else "[—]"


def estimate_line(name: str, e: Estimate, digits: int = 2, reason: bool = True) -> str:
    """One figure: the judge's alone, people's alone, and the corrected one with its interval;
    then the reason, unless ``reason`` is False (said once above every figure)."""
    if e.get("ppi") is None:
        judge = f"judge {e['judge_only']:.{digits}f} · " if e.get("judge_only") is not None else ""
        why = f": {e.get('reason') or 'not enough data'}" if reason else ""
        return safe_line(f"{name}: {judge}no corrected figure{why}")
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
    if e.get("reason") and reason:
        line += f" — {e['reason']}"
    return safe_line(line)


def estimate_lines(report: CalibrationReport) -> list[str]:
    """The estimate lines of a calibration report (none when it carries no estimates); a reason
    every figure shares (no audit sample, say) is said once, above them."""
    p = report.get("pass_rate_estimate")
    if p is None:
        return []
    figures = [("pass rate", p, 3)] + [(d["dimension"], d["estimate"], 2) for d in report["dimensions"]
                                       if "estimate" in d]
    reasons = {e.get("reason") for _, e, _ in figures}
    shared = next(iter(reasons)) if len(figures) > 1 and len(reasons) == 1 else None
    lines = ["Corrected estimates (judge on every item, people on the audit sample):"]
    if shared:
        lines.append(safe_line(f"  for every figure below: {shared}"))
    return lines + ["  " + estimate_line(name, e, digits, reason=not shared) for name, e, digits in figures]
