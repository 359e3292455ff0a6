"""Corrected estimates: the judge on every item, people on a random (audit) sample, combined.

Which items are labelled is the one rule here: an item is labelled data for a dimension when it
belongs to the rubric's audit sample (drawn by ``rubricate queue audit-sample``, or imported with
``"audit": true``) and people have scored that dimension on it. Every other item — triage-reviewed
ones included, since triage chose them for being doubtful — counts as unlabelled, with its judge
score. The statistics are ``calibration.ppi``'s; this module only cuts the store's columns into
its arrays and says, in words, why a figure is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration import ppi

NO_AUDIT = ("no audit sample: draw one with `rubricate queue audit-sample --rubric {ref} --n 200` "
            "and have people score it in the audit queue, or import items with \"audit\": true")

Columns = tuple[NDArray[np.int64], NDArray[np.float64]]


def split(judge: Columns, human: Mapping[int, float], audit: set[int]) -> tuple[NDArray[np.float64], ...]:
    """(y, yhat, yhat_unlabelled): human and judge scores on labelled items, the judge elsewhere.

    ``judge`` is (item pks, judge scores) for every item the judge scored; ``human`` the human
    aggregate per item pk; ``audit`` the audit sample's item pks."""
    pks, scores = judge
    labelled_pks = np.fromiter((pk for pk in human if pk in audit), dtype=np.int64)
    is_labelled = np.isin(pks, labelled_pks)
    order = np.argsort(pks[is_labelled], kind="stable")
    lab_pks = pks[is_labelled][order]
    y = np.array([human[int(pk)] for pk in lab_pks], dtype=np.float64)
    return y, scores[is_labelled][order], scores[~is_labelled]


def estimate(judge: Columns, human: Mapping[int, float], audit: set[int], ref: str,
             confidence: float = 0.95, target_width: float | None = None) -> dict[str, Any]:
    """The ``estimate`` object of the calibration JSON for one dimension (or the pass rate).

    Without an audit sample every figure is null and ``reason`` says how to draw one."""
    if not audit:
        return {"judge_only": float(judge[1].mean()) if judge[1].size else None, "humans_only": None,
                "humans_ci": None, "ppi": None, "ppi_ci": None, "n_labelled": 0,
                "n_unlabelled": int(judge[1].size), "lambda": None, "effective_labels": None,
                "reason": NO_AUDIT.format(ref=ref), "confidence": confidence}
    y, yhat, yu = split(judge, human, audit)
    e = ppi.estimate_mean(y, yhat, yu, confidence=confidence)
    out = e.as_json()
    out["reason"] = out.pop("warning")
    out["confidence"] = confidence
    if target_width is not None and e.ppi is not None:
        more = ppi.labels_for_width(y, yhat, yu, target_width, confidence)
        out["target_width"] = target_width
        out["more_labels_needed"] = more
        if more is None:
            out["reason"] = (f"no number of labels brings the interval under {target_width:g}: the "
                             "judge's own part of it is wider")
    return out


def ranking(groups: Mapping[str, tuple[Columns, Mapping[int, float]]], audit: set[int],
            confidence: float = 0.95) -> list[dict[str, Any]]:
    """Corrected leaderboard of groups (models, variants): PPI mean, interval, rank, judge-only
    rank and the probability that the corrected rank is right."""
    arrays = {g: split(cols, human, audit) for g, (cols, human) in groups.items()}
    ranked = ppi.rank_groups(arrays, confidence=confidence)
    return [{"group": r.group, "rank": r.rank, "judge_rank": r.judge_rank,
             "rank_probability": r.rank_probability, **r.estimate.as_json()} for r in ranked]
