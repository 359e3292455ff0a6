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



Arrays3 = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]


def _arrays(judge: NDArray[np.float64], human: NDArray[np.float64], audit: NDArray[np.bool_]) -> Arrays3:
    """(y, yhat, yhat_unlabelled) from aligned per-item arrays (NaN: no score).

    Labelled: in the audit sample, scored by people and by the judge. Unlabelled: every other item
    the judge scored (audit items nobody has scored yet, and triage-reviewed items, included)."""
    has_judge = ~np.isnan(judge)
    labelled = audit & ~np.isnan(human) & has_judge
    return human[labelled], judge[labelled], judge[has_judge & ~labelled]


def estimate(judge: NDArray[np.float64], human: NDArray[np.float64], audit: NDArray[np.bool_], ref: str,
             confidence: float = 0.95, target_width: float | None = None) -> dict[str, Any]:
    """The ``estimate`` object of the calibration JSON for one dimension (or the pass rate), from
    per-item arrays aligned on the same items: the judge's score, people's aggregate (NaN where
    none) and whether the item is in the audit sample.

    Without an audit sample every figure but ``judge_only`` is null and ``reason`` says how to draw
    one; a sample under ``calibration.ppi.MIN_LABELLED`` items is estimated with a warning."""
    if not audit.any():
        scored = judge[~np.isnan(judge)]
        return {"judge_only": float(scored.mean()) if scored.size else None, "humans_only": None,
                "humans_ci": None, "ppi": None, "ppi_ci": None, "n_labelled": 0,
                "n_unlabelled": int(scored.size), "lambda": None, "effective_labels": None,
                "confidence": confidence, "reason": NO_AUDIT.format(ref=ref)}
    y, yhat, yu = _arrays(judge, human, audit)
    e = ppi.estimate_mean(y, yhat, yu, confidence=confidence)
    out = e.as_json()
    out["reason"] = out.pop("warning")
    out["confidence"] = confidence
    if target_width is not None and e.ppi is not None:
        more = ppi.labels_for_width(y, yhat, yu, target_width, confidence)
        out["target_width"] = target_width
        out["more_labels_needed"] = more
        if more is None:
            out["reason"] = "the labels so far do not vary: no basis to plan more"
        elif more > e.n_unlabelled:
            out["reason"] = (f"{more} more labels would be needed, more than the {e.n_unlabelled} items not "
                             "yet labelled: the width is out of reach for this dataset")
    return out


def ranking(groups: Mapping[str, tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]],
            confidence: float = 0.95) -> list[dict[str, Any]]:
    """Corrected leaderboard of groups (models, variants), each given as (judge, human, audit)
    arrays: PPI mean and interval, corrected rank, the judge-only rank, and the probability that
    the corrected rank is right."""
    arrays = {g: _arrays(*a) for g, a in groups.items()}
    ranked = ppi.rank_groups(arrays, confidence=confidence)
    return [{"group": r.group, "rank": r.rank, "judge_rank": r.judge_rank,
             "rank_probability": r.rank_probability, **r.estimate.as_json()} for r in ranked]


def pass_rate(store: Any, rubric: Any, dataset: str | None = None, how: str = "mean",
              confidence: float = 0.95, target_width: float | None = None) -> dict[str, Any]:
    """``pass_rate_estimate``: the share of items that pass, corrected with people's verdicts.

    The population is every item whose judge verdict is complete (an incomplete one has no pass
    or fail). The human side of an audit item is its overall as people alone score it
    (:func:`reviewer.domain.humans_only`): labelled only when people scored every weighted
    dimension."""
    from reviewer.domain import humans_only

    pks, judged = store.judge_pass_columns(rubric.ref, dataset)
    audit = np.isin(pks, np.fromiter(store.audit_pks(rubric.ref), dtype=np.int64))
    human = np.full(pks.size, np.nan)
    wanted = pks[audit & ~np.isnan(judged)]
    if wanted.size:
        where = {int(pk): i for i, pk in enumerate(pks)}
        for it, fold in store.item_folds(rubric.ref, dataset, [int(p) for p in wanted], how):
            alone = humans_only(rubric, fold)
            if alone.overall is not None:
                human[where[it.pk]] = float(alone.passed)
    out = estimate(judged, human, audit, rubric.ref, confidence, target_width)
    for key in ("ppi_ci", "humans_ci"):  # a share's interval ends at 0 and 1
        if out.get(key):
            out[key] = [max(0.0, out[key][0]), min(1.0, out[key][1])]
    return out
