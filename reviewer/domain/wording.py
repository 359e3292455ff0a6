"""How a score is written for a person, everywhere one is shown (the item screen, its cards and
chat, the calibration screen's tables, ``rubricate queue show``): whole numbers bare, others to two
places, a dash for none."""

from __future__ import annotations


def score_text(x: float | None) -> str:
    """``7``, ``8.67``, ``—`` for no score."""
    if x is None:
        return "—"
    return f"{x:g}" if float(x).is_integer() else f"{x:.2f}"
