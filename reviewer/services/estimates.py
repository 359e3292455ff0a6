"""Corrected estimates: the judge on every item, people on a random (audit) sample, combined.

Which items are labelled is the one rule here: an item is labelled data for a dimension when it
belongs to the rubric's audit sample (drawn by ``rubricate queue audit-sample``, or imported with
``"audit": true``) and people have labelled that dimension on it: scored it in the audit queue,
imported or adjudicated the score (:mod:`reviewer.domain.labels`). Every other item — triage-reviewed
ones included, since triage chose them for being doubtful — counts as unlabelled, with its judge
score; so does an audit item scored only in triage. The statistics are ``calibration.ppi``'s; this module only cuts the store's columns into
its arrays and says, in words, why a figure is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import EllipsisType
from typing import TYPE_CHECKING, Protocol, cast

import numpy as np
from numpy.typing import NDArray

from calibration import ppi
from calibration.groups import Keys, members
from reviewer.services.estimate_labels import Labels, labels_of_folds
from reviewer.services.reports import CorrectedBoard, Estimate, RankedEstimate

if TYPE_CHECKING:  # (types alone: importing the store's class loads SQLAlchemy)
    from reviewer.domain.columns import RatingColumns
    from reviewer.domain.item import ItemFold
    from reviewer.store import Store
    from rubrics.schema import Rubric

NO_AUDIT = ("no audit sample: draw one with `rubricate queue audit-sample --rubric {ref} --n 200` "
            "and have people score it in the audit queue, or import items with \"audit\": true")



Arrays3 = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]
#: Per dimension (count, sum, sum of squares) of the judge's scores, counted by the database
#: (``Store.ratings.judge_score_totals``; None where it cannot count them).
ScoreTotals = dict[str, tuple[int, float, float]] | None


class Grouped(Protocol):
    """What an item record is grouped by (``--group-by``)."""

    @property
    def variant(self) -> str | None: ...

    @property
    def grp(self) -> str | None: ...

    @property
    def meta(self) -> dict[str, object] | None: ...


def _arrays(judge: NDArray[np.float64], human: NDArray[np.float64], audit: NDArray[np.bool_]) -> Arrays3:
    """(y, yhat, yhat_unlabelled) from aligned per-item arrays (NaN: no score).

    Labelled: in the audit sample, scored by people and by the judge. Unlabelled: every other item
    the judge scored (audit items nobody has scored yet, and triage-reviewed items, included)."""
    has_judge = ~np.isnan(judge)
    labelled = audit & ~np.isnan(human) & has_judge
    return human[labelled], judge[labelled], judge[has_judge & ~labelled]


def estimate(judge: NDArray[np.float64], human: NDArray[np.float64], audit: NDArray[np.bool_], ref: str,
             confidence: float = 0.95, target_width: float | None = None) -> Estimate:
    """The ``estimate`` object of the calibration JSON for one dimension, from per-item arrays
    aligned on the same items: the judge's score, people's aggregate (NaN where none) and whether
    the item is in the audit sample."""
    if not audit.any():
        scored = judge[~np.isnan(judge)]
        return refused(float(scored.mean()) if scored.size else None, int(scored.size), ref, confidence)
    y, yhat, yu = _arrays(judge, human, audit)
    return corrected(y, yhat, yu, confidence, target_width)


def refused(judge_only: float | None, n: int, ref: str, confidence: float) -> Estimate:
    """No audit sample: every figure but the judge's own is null, and ``reason`` says what to do."""
    return {"judge_only": judge_only, "humans_only": None, "humans_ci": None, "ppi": None, "ppi_ci": None,
            "n_labelled": 0, "n_unlabelled": n, "lambda": None, "effective_labels": None,
            "confidence": confidence, "reason": NO_AUDIT.format(ref=ref)}


def corrected(y: NDArray[np.float64], yhat: NDArray[np.float64], yu: ppi.Unlabelled, confidence: float,
              target_width: float | None) -> Estimate:
    """The estimate object from labelled arrays and the unlabelled side (array or moments); a
    sample under ``calibration.ppi.MIN_LABELLED`` items is estimated with a warning in ``reason``."""
    e = ppi.estimate_mean(y, yhat, yu, confidence=confidence)
    mean = e.as_json()
    mean["reason"] = mean.pop("warning")
    mean["confidence"] = confidence
    out = cast(Estimate, mean)  # calibration.ppi's keys, documented as the estimate's
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
            confidence: float = 0.95) -> list[RankedEstimate]:
    """Corrected leaderboard of groups (models, variants), each given as (judge, human, audit)
    arrays: PPI mean and interval, corrected rank, the judge-only rank, and the probability that
    the corrected rank is right."""
    arrays = {g: _arrays(*a) for g, a in groups.items()}
    return _ranked(arrays, confidence)


def _ranked(arrays: Mapping[str, Arrays3], confidence: float) -> list[RankedEstimate]:
    """The corrected ranking of groups given as (y, yhat, yhat_unlabelled) arrays."""
    return [cast(RankedEstimate, {"group": r.group, "rank": r.rank, "judge_rank": r.judge_rank,
                                  "rank_probability": r.rank_probability, **r.estimate.as_json()})
            for r in ppi.rank_groups(arrays, confidence=confidence)]


def pass_rate(store: Store, rubric: Rubric, dataset: str | None, folds: Labels | list[tuple[int, ItemFold]] | None,
              confidence: float = 0.95, target_width: float | None = None,
              totals: tuple[int, int] | None = None,
              verdicts: tuple[NDArray[np.int64], NDArray[np.bool_]] | None = None) -> Estimate:
    """``pass_rate_estimate``: the share of items that pass, corrected with people's verdicts.

    The population is every item whose judge verdict is complete (an incomplete one has no pass
    or fail). The human side of an audit item is its overall as people alone score it
    (:func:`reviewer.domain.humans_only`): labelled only when people scored every weighted
    dimension. The unlabelled side is counted by the database (count and passes), so a million
    items cost one aggregate query. ``folds``: the audit items' folds, or their :class:`Labels`."""
    total, passes = totals if totals is not None else store.ratings.judge_pass_totals(rubric.ref, dataset)
    if folds is None:
        return refused(passes / total if total else None, total, rubric.ref, confidence)
    labels = folds if isinstance(folds, Labels) else labels_of_folds(rubric, folds)
    pks, people_passed = labels.verdicts
    # labels are of audit items only; keys ascending (``verdicts``: read already)
    judged, verdict = verdicts if verdicts is not None else store.ratings.audit_judge_verdicts(rubric.ref)
    at = np.searchsorted(judged, pks).clip(max=max(judged.size - 1, 0))
    both = judged[at] == pks if judged.size else np.zeros(pks.size, dtype=bool)  # in the labels' order
    y = people_passed[both].astype(np.float64)
    yhat = verdict[at[both]].astype(np.float64)
    n_u = total - int(yhat.size)
    k_u = passes - int(yhat.sum())
    out = corrected(y, yhat, ppi.Moments.from_sums(n_u, k_u, k_u), confidence, target_width)
    # a share's interval ends at 0 and 1
    if ci := out.get("ppi_ci"):
        out["ppi_ci"] = [max(0.0, ci[0]), min(1.0, ci[1])]
    if ci := out.get("humans_ci"):
        out["humans_ci"] = [max(0.0, ci[0]), min(1.0, ci[1])]
    return out


def audit_folds(store: Store, rubric: Rubric, dataset: str | None, how: str) -> list[tuple[int, ItemFold]] | None:
    """(item key, fold of its labels) of every item in the rubric's audit sample; None when it has none."""
    audit = store.queue.audit_pks(rubric.ref)
    if not audit:
        return None
    return [(it.pk, fold) for it, fold in store.items.item_folds(rubric.ref, dataset, sorted(audit), how, labels=True)]


def dimension_estimates(store: Store, rubric: Rubric, dataset: str | None,
                        folds: Labels | list[tuple[int, ItemFold]] | None,
                        confidence: float, target_width: float | None, cols: RatingColumns | None = None,
                        count_in_db: bool = True, group_by: str | None = None,
                        counted: ScoreTotals | EllipsisType = ...) -> dict[str, Estimate]:
    """``estimate`` per dimension (ordered and interval ones; a mean of nominal labels means
    nothing). The labelled side is the audit items' :class:`Labels` (given, or taken from their
    ``folds``) — people's score is the effective one without the judge (a lead's adjudication, else
    the consensus), the judge's is the panel — and the unlabelled side is every other item's panel score: counted by
    the database when it can be (:meth:`judge_score_totals`), else folded from the columns
    ``cols`` (``rating_columns`` of every item; read here when not given)."""
    from reviewer.domain.columns import panel_of, score_sums

    dims = [d for d in rubric.dimensions if not d.is_pair and d.measurement_level != "nominal"]
    labels = folds if isinstance(folds, Labels) or folds is None else labels_of_folds(rubric, folds)
    if not count_in_db or group_by:
        totals = None
    else:  # ``counted``: :meth:`judge_score_totals` already asked (on another thread)
        totals = store.ratings.judge_score_totals(rubric.ref, dataset) if isinstance(counted, EllipsisType) else counted
    if totals is None and (cols is None or (group_by and cols.groups is None)):
        # the judge's side alone: the labels come from ``labels``, never from these columns
        cols = store.ratings.rating_columns(rubric.ref, dataset, "all", group_by, humans=False)
    out: dict[str, Estimate] = {}
    for d in dims:
        empty = np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
        labelled_pks, y, yhat = labels.dims.get(d.id, empty) if labels is not None else empty
        if totals is not None:
            n, s, ss = totals.get(d.id, (0, 0.0, 0.0))
        else:
            assert cols is not None  # read above whenever the database does not count
            panel = panel_of(cols.dims[d.id].judge, rubric.judge.panel_aggregate)
            scored = panel[~np.isnan(panel)]
            n, s, ss = score_sums(scored)
        if labels is None:
            out[d.id] = refused(s / n if n else None, n, rubric.ref, confidence)
            continue
        rest = ppi.Moments.from_sums(n - yhat.size, s - float(yhat.sum()), ss - float((yhat * yhat).sum()))
        out[d.id] = corrected(y, yhat, rest, confidence, target_width)
        if group_by:
            assert cols is not None  # read above, with its groups, for a ranking
            out[d.id]["ranking"] = _ranking(cols, d.id, rubric.judge.panel_aggregate, labelled_pks.tolist(),
                                            y, yhat, confidence)
    return out


def _ranking(cols: RatingColumns, dim_id: str, how: str, pks: list[int], y: NDArray[np.float64],
             yhat: NDArray[np.float64], confidence: float) -> list[RankedEstimate]:
    """Corrected means per group of ``cols.groups`` (labelled items by key, the rest from the
    columns) and the corrected ranking."""
    from reviewer.domain.columns import GroupKeys, panel_of

    panel = panel_of(cols.dims[dim_id].judge, how)
    n = int(cols.item_pk.size)
    keys = cols.groups if cols.groups is not None else GroupKeys([None] * min(n, 1), np.zeros(n, dtype=np.intp))
    # every key named once: each group's items are a slice, never a scan of every item's key
    named = Keys.of(["unknown" if v is None else str(v) for v in keys.values], keys.codes)
    names, item_code = named.names, named.codes
    labelled = np.asarray(pks, dtype=np.int64)
    is_labelled = np.isin(cols.item_pk, labelled)
    at = np.minimum(np.searchsorted(cols.item_pk, labelled), max(int(cols.item_pk.size) - 1, 0))
    known = (cols.item_pk[at] == labelled) if cols.item_pk.size else np.zeros(labelled.size, dtype=bool)
    unknown = names.index("unknown") if "unknown" in names else -1  # a labelled item outside the columns
    labelled_code = np.where(known, item_code[at] if item_code.size else unknown, unknown)
    rest = ~is_labelled & ~np.isnan(panel)
    rest_pos = np.flatnonzero(rest)
    mine = members(labelled_code, len(names))
    theirs = members(item_code[rest], len(names))
    arrays: dict[str, tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]] = {
        g: (y[mine[i]], yhat[mine[i]], panel[rest_pos[theirs[i]]]) for i, g in enumerate(names)}
    return _ranked(arrays, confidence)


def _group_value(it: Grouped, field: str) -> str:
    value: object
    if field in ("variant", "group"):
        value = it.variant if field == "variant" else it.grp
    else:
        value = (it.meta or {}).get(field.removeprefix("metadata."))
    return "unknown" if value is None else str(value)


def corrected_leaderboard(store: Store, rubric: Rubric, dataset: str | None, field: str = "metadata.model",
                          confidence: float = 0.95) -> CorrectedBoard | None:
    """Pass rate per group (``metadata.KEY``, ``variant`` or ``group``): the judge's, and the
    corrected one with its interval, the corrected rank and the probability that it is right, and
    where the corrected order differs from the judge's. None without an audit sample."""
    from reviewer.domain import humans_only, judge_only

    audit = audit_folds(store, rubric, dataset, "mean")  # people's side: their labels
    if audit is None:
        return None
    labelled = dict(audit)
    by_group: dict[str, tuple[list[float], list[float], list[bool]]] = {}
    for it, fold in store.items.item_folds(rubric.ref, dataset):
        alone = judge_only(rubric, fold)
        if alone.overall is None:  # no verdict from the judge: outside the population
            continue
        people = humans_only(rubric, labelled[it.pk]) if it.pk in labelled else None
        judge, human, is_audit = by_group.setdefault(_group_value(it, field), ([], [], []))
        judge.append(float(alone.passed))
        human.append(float(people.passed) if people is not None and people.overall is not None else np.nan)
        is_audit.append(it.pk in labelled)
    rows = ranking({g: (np.asarray(j), np.asarray(h), np.asarray(a, dtype=bool))
                    for g, (j, h, a) in by_group.items()}, confidence)
    moved = [r["group"] for r in rows if r["rank"] != r["judge_rank"]]
    return {"by": field, "confidence": confidence, "rows": rows, "order_changes": moved}
