"""From per-dimension scores to one item's overall, band and verdict.

normalised = (raw − min) / (max − min); overall = weighted mean of the normalised scores of the
weighted dimensions; then each dimension's ceilings (e.g. low accuracy caps the overall)
whenever that dimension's score is known, then the safety cap; the band comes from the overall.
A rubric that names a headline (REVAL's figure treatment: treatment parity) also gets that
dimension's score on [0, 1] and its band: the item's score where a person or a board reads one,
with the overall (the rubric mean) beside it.

A weighted dimension with no score (its judge call failed, or it still waits for a person), or a
dimension with a ceiling whose score is unknown, makes the overall **incomplete**: no overall, no
band, no pass, and the reason says which dimension and why. It is never a mean renormalised over
the dimensions that happen to be there. Only a dimension that does not apply to the item (FlexEval's
``depends_on`` not met) is left out, and the weights are renormalised over the ones that apply.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from rubrics.schema import Band, Rubric


@dataclass(frozen=True)
class ItemScore:
    """One item's aggregate under a rubric."""

    #: Overall on [0, 1] after ceilings and the safety cap; None when nothing weighted is scored.
    overall: float | None
    #: The same on the rubric's scale, when every weighted dimension uses that scale.
    overall_raw: float | None
    #: Overall on [0, 1] before ceilings and the safety cap.
    uncapped: float | None
    #: Why the overall was capped (one entry per cap applied).
    capped_by: tuple[str, ...] = ()
    band: Band | None = None
    passes: dict[str, bool] = field(default_factory=dict)
    #: Every scored weighted dimension passes its threshold and no safety gate failed.
    passed: bool = False
    #: Weighted (or ceiling) dimensions with no score: each makes the overall incomplete.
    missing: tuple[str, ...] = ()
    #: Why there is no overall (``"accuracy: judge error; clarity: waits for a person"``).
    reason: str | None = None
    #: The rubric's headline dimension (None when it names none).
    headline_dim: str | None = None
    #: That dimension's score on [0, 1] (None when it names none or has no score yet).
    headline: float | None = None
    headline_band: Band | None = None

    @property
    def incomplete(self) -> bool:
        """No overall: a dimension it needs has no score (see ``reason``)."""
        return self.overall is None

    @property
    def item_band(self) -> Band | None:
        """The item's band as a list shows it: the headline's where the rubric names one, else
        the overall's."""
        return self.headline_band if self.headline_dim is not None else self.band


def _usable(x: float | None) -> bool:
    return x is not None and not math.isnan(x)


def score_item(rubric: Rubric, raw: Mapping[str, float | None], safety_failed: bool = False, *,
               not_applicable: Collection[str] = (), why: Mapping[str, str] | None = None) -> ItemScore:
    """Aggregate raw dimension scores (keyed by dimension id) into an :class:`ItemScore`.

    ``not_applicable``: dimensions that do not apply to this item (left out, weights renormalised
    over the rest). Any other weighted dimension, or dimension with a ceiling, without a usable
    score makes the result incomplete; ``why`` says per dimension why it has none (default: not
    scored yet)."""
    head = _headline(rubric, raw, not_applicable)
    passes: dict[str, bool] = {}
    for d in rubric.dimensions:
        v = raw.get(d.id)
        if v is not None and _usable(v):
            passes[d.id] = d.passes(v)
    skip = set(not_applicable)
    needed = [d for d in rubric.dimensions if (d.weighted or d.ceiling) and d.id not in skip]
    missing = tuple(d.id for d in needed if not _usable(raw.get(d.id)))
    if missing:
        why = why or {}
        reason = "; ".join(f"{m}: {why.get(m, 'not scored yet')}" for m in missing)
        return ItemScore(None, None, None, passes=passes, passed=False, missing=missing, reason=reason, **head)
    scored = [d for d in rubric.dimensions if d.weighted and d.id not in skip]
    total_w = sum(d.weight for d in scored)
    if not scored or total_w <= 0:
        return ItemScore(None, None, None, passes=passes, passed=False,
                         reason="no weighted dimension applies to this item", **head)
    values = {d.id: float(raw[d.id]) for d in scored}  # type: ignore[arg-type]  # not missing: every scored dimension has a number
    uncapped = sum(d.weight * d.scale.normalise(values[d.id]) for d in scored) / total_w
    same_scale = all(d.scale.min == rubric.scale.min and d.scale.max == rubric.scale.max for d in scored)
    overall, reasons = uncapped, []
    for d in rubric.dimensions:
        value = raw.get(d.id)
        if not d.ceiling or value is None or not _usable(value):
            continue
        caps = [c for c in d.ceiling if value < c.below]
        if caps:
            cap = min(c.cap for c in caps)
            cap_n = rubric.scale.normalise(cap)
            if cap_n < overall:
                overall = cap_n
                reasons.append(f"{d.id} {value:g} < {min(c.below for c in caps):g}: capped at {cap:g}")
    if safety_failed and rubric.safety_cap < overall:
        overall = rubric.safety_cap
        reasons.append(f"safety: capped at {rubric.safety_cap:g}")
    passed = not safety_failed and all(passes.get(d.id, False) for d in scored)
    return ItemScore(
        overall=overall,
        overall_raw=rubric.scale.denormalise(overall) if same_scale else None,
        uncapped=uncapped,
        capped_by=tuple(reasons),
        band=rubric.band_for(overall),
        passes=passes,
        passed=passed,
        missing=missing,
        **head,
    )


class _Head(TypedDict):
    headline_dim: str | None
    headline: float | None
    headline_band: Band | None


def _headline(rubric: Rubric, raw: Mapping[str, float | None], not_applicable: Collection[str]) -> _Head:
    """The rubric's headline dimension, its score on [0, 1] and that score's band (all None when
    the rubric names none; score and band None while the dimension has no usable score)."""
    if rubric.headline is None:
        return {"headline_dim": None, "headline": None, "headline_band": None}
    dim = rubric.dimension(rubric.headline)
    value = raw.get(dim.id)
    if dim.id in not_applicable or value is None or not _usable(value):
        return {"headline_dim": dim.id, "headline": None, "headline_band": None}
    score = dim.scale.normalise(value)
    return {"headline_dim": dim.id, "headline": score, "headline_band": rubric.band_for(score)}


def weighted_raw(scores: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """The plain weighted sum on the raw scale (``sum(score × weight)``)."""
    return sum(scores[k] * w for k, w in weights.items() if k in scores)


def reval_normalised(weighted_sum: float) -> float:
    """REVAL's normalisation of a 1–5 weighted sum onto [0, 1]: ``(x − 1) / 4``."""
    return (weighted_sum - 1.0) / 4.0


def treatment_parity(a: float, b: float) -> float:
    """REVAL's treatment parity of two normalised scores: ``1 − |a − b|``."""
    return 1.0 - abs(a - b)


def panel_score(scores: Sequence[float], how: str = "mean") -> float | None:
    """A judge panel's score on one dimension: the mean (or median) of its models' scores."""
    if not scores:
        return None
    return float(statistics.median(scores) if how == "median" else statistics.fmean(scores))


def panel_spread(scores: Sequence[float]) -> float | None:
    """How far a panel's models disagree on one dimension: highest minus lowest of the scores
    given (pass normalised scores: the store's and export's spread is on 0–1); None with fewer
    than two models."""
    return float(max(scores) - min(scores)) if len(scores) > 1 else None
