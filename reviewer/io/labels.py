"""Scores written as their anchor labels (``rubricate export --labels``).

A label stands for a score exactly when an anchor of the dimension covers that one score (a
yes/no or category dimension: ``{score: 1, label: "Yes"}``); a score between anchors, or inside a
range anchor, has no label and stays a number only. Labels are written beside the numbers, never
instead of them, so an export with labels still carries every score.
"""

from __future__ import annotations

from typing import Any

from rubrics.schema import Rubric


def with_labels(row: dict[str, Any], rubric: Rubric) -> dict[str, Any]:
    """``row`` (an export row) with ``effective_label``, ``judge_label`` and ``human_labels``
    beside each dimension's numbers (None / left out where a score has no label)."""
    for dim_id, d in row["dimensions"].items():
        try:
            dim = rubric.dimension(dim_id)
        except KeyError:
            continue
        d["effective_label"] = dim.label_for(d["effective"]) if d.get("effective") is not None else None
        d["judge_label"] = (dim.label_for(d["judge"]) if d.get("judge") is not None and dim.judge_scale is None
                            else None)
        d["human_labels"] = {who: dim.label_for(v) for who, v in (d.get("human") or {}).items() if v is not None}
    return row
