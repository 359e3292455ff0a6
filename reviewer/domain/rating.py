"""An item's fold as one calibration rating row: what ``calibrate`` computes agreement from.

A thin projection (no rule of its own): the judge per model and the panel's score, people's current scores (or, for the
``blind`` sample, the first score each gave before seeing the judge), a lead's adjudication, and
the item's effective scores, overall and safety status for cross-checks.
"""

from __future__ import annotations

from typing import Any

from reviewer.domain.item import ItemFold


def rating_row(item_pk: int, item_id: str, group: str | None, metadata: Any, fold: ItemFold,
               sample: str = "all") -> dict[str, Any]:
    """The rating row of one item (keys as ``Ratings.rating_rows`` documents)."""
    judge: dict[str, dict[str, float]] = {}
    panel: dict[str, float | None] = {}
    judge_std: dict[str, dict[str, float | None]] = {}
    human: dict[str, dict[str, float]] = {}
    revised: dict[str, dict[str, tuple[float, float]]] = {}
    adjudicated: dict[str, float] = {}
    for dim_id, f in fold.dims.items():
        scored = {m: r for m, r in f.judge.models.items() if r.score is not None}
        if scored:
            judge[dim_id] = {m: float(r.score) for m, r in scored.items() if r.score is not None}
            judge_std[dim_id] = {m: r.std for m, r in scored.items()}
            panel[dim_id] = f.judge.panel
        votes = f.human.votes
        if sample == "blind":
            hs = {w: v.first_blind for w, v in votes.items() if v.first_blind is not None}
        else:
            hs = {w: v.score for w, v in votes.items()}
        human[dim_id] = {w: float(x) for w, x in hs.items() if x is not None}
        revised[dim_id] = {w: (v.first_blind, v.score) for w, v in votes.items()
                           if v.kind == "revision" and v.first_blind is not None}
        if f.human.adjudication is not None:
            adjudicated[dim_id] = f.human.adjudication.score
    return {"item_pk": item_pk, "item_id": item_id, "group": group, "metadata": metadata or {},
            "judge": judge, "panel": panel, "judge_std": judge_std, "human": human, "adjudicated": adjudicated,
            "revised": revised, "effective": fold.effective, "overall": fold.score.overall,
            "safety": fold.safety.status}
