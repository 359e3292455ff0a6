"""Glue between the store and the pure calibration code: rows → arrays → the report dict.

The dict's keys are the calibration JSON of docs/formats.md (other tools read them): ``rubric``, ``dataset``,
``sample``, ``group_by``, ``dimensions`` with ``dimension, n, n_groups, level, alpha, alpha_ci,
alpha_humans, pearson, spearman, kendall, kappa_linear, kappa_quadratic, exact, within_one, bias,
mae, pass_agreement, status`` — and more keys beside them, never renamed ones.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict, cast

import numpy as np
from numpy.typing import NDArray

from calibration.alpha import LEVELS, Level
from calibration.consensus import AGGREGATES
from calibration.detail import best_model, confusion, reviewer_offsets
from calibration.groups import Keys
from calibration.report import DimensionInput, TrustBounds, dimension_report, dimension_reports
from calibration.reviewers import adjudicated, anchoring, judge_spread, per_reviewer, z_normalise
from calibration.routing import DimSignal, item_priority
from reviewer.domain import bias, consensus, spread
from reviewer.domain.columns import DimColumns, RatingColumns, panel_of
from reviewer.errors import UserError
from reviewer.services.pair_verdicts import pair_verdict_report
from reviewer.services.reports import (
    Adjudicated,
    Anchoring,
    CalibrationReport,
    Confusion,
    Corrections,
    DimensionDetail,
    DimensionEntry,
    Disagreement,
    HumanSaid,
    Json,
    JudgeSpread,
    PackEntry,
    PairFigures,
    ReportT,
    ReviewerFigures,
    ReviewerOffset,
    SideBySide,
)

if TYPE_CHECKING:  # (types alone: importing the store's class loads SQLAlchemy)
    from reviewer.services.estimate_labels import Labels
    from reviewer.services.estimates import ScoreTotals
    from reviewer.store import Store
    from rubrics.schema import Rubric

    #: (items with a complete judge verdict, how many pass) and the audit items' judge verdicts.
    PassCounts = tuple[tuple[int, int], tuple[NDArray[np.int64], NDArray[np.bool_]]]
    #: The two reads :func:`_count_in_background` starts: what the estimates need of every item
    #: (the database's totals, or every item's judge column to rank groups) and the pass counts.
    Counts = tuple[Future[ScoreTotals | RatingColumns], Future[PassCounts]]

SAMPLES = ("all", "audit", "blind")
#: Bootstrap draws for every interval: ``calibrate``, the TUI's calibration screen and its
#: drill-down ask the same question of the same items with the same seeded draws.
DRAWS = 1000


class RatingRow(TypedDict):
    """The keys of a store rating row (``Store.ratings.rating_rows``) the services read."""

    item_pk: int
    item_id: str
    judge: dict[str, dict[str, float]]
    panel: dict[str, float | None]
    human: dict[str, dict[str, float]]
    adjudicated: dict[str, float]


def _rating_rows(store: Store, rubric_ref: str, dataset: str | None, sample: str) -> list[RatingRow]:
    """The store's rating rows, typed (the store hands out plain dicts of these keys)."""
    return cast(list[RatingRow], store.ratings.rating_rows(rubric_ref, dataset, sample))


def _panel(row: RatingRow, dim_id: str) -> float | None:
    """A rating row's judge panel score on a dimension, as the item's fold took it
    (:mod:`reviewer.domain.judge`); None when no model scored it."""
    return row["panel"].get(dim_id)


def calibrate(store: Store, rubric_ref: str, dataset: str | None = None, sample: str | None = None,
              group_by: str | None = None, human_aggregate: str = "mean", level: str | None = None,
              seed: int = 0, draws: int = DRAWS, bounds: TrustBounds | None = None,
              normalise: str = "none", confidence: float = 0.95, target_width: float | None = None,
              estimates: bool = True, all_revisions: bool = False,
              columns: list[RatingColumns] | None = None) -> CalibrationReport:
    """The calibration report of one rubric version (``normalise`` ``z``: each reviewer's
    scores z-normalised onto the pooled human scale before anything is computed;
    ``all_revisions``: scores given on items' earlier content revisions count too). With
    ``estimates`` each dimension gets its corrected mean (``estimate``) and the report the
    corrected pass rate (``pass_rate_estimate``), at ``confidence``; see :mod:`reviewer.services.estimates`.
    ``columns``: a list the rating columns read are appended to, for a caller that asks more of
    the same items (the page's confusion tables, :func:`confusions`) without reading them again."""
    bounds = bounds or TrustBounds()
    rubric = store.rubrics.get_rubric(rubric_ref)
    if sample is None:
        sample = "audit" if store.queue.has_audit_sample(rubric.ref) else "all"
    if sample not in SAMPLES:
        raise UserError(f"unknown sample {sample!r}; use all, audit or blind")
    if level is not None and level not in LEVELS:
        raise UserError(f"unknown level {level!r}; use {', '.join(LEVELS)}")
    if normalise not in ("none", "z"):
        raise UserError(f"--normalise {normalise!r}: use none or z")
    if human_aggregate not in AGGREGATES:
        raise UserError(f"--human-aggregate {human_aggregate!r}: use mean, median or majority")
    if normalise == "z" and human_aggregate == "majority":
        raise UserError("--human-aggregate majority with --normalise z: z-normalised scores are no longer the "
                        "scale's levels, so no label is the most common; use mean or median with --normalise z, "
                        "or drop --normalise")
    if draws < 0:
        raise UserError(f"--bootstrap {draws}: give a number of draws ≥ 0 (0 skips the intervals)")
    if not 0.5 <= confidence < 1.0:
        raise UserError(f"--confidence {confidence:g}: give a level between 0.5 and 1 (0.95 is usual)")
    if target_width is not None and target_width <= 0:
        raise UserError(f"--target-width {target_width:g}: give a positive interval width")
    if group_by is not None and group_by not in ("group", "variant") and not group_by.startswith("metadata."):
        raise UserError(f"--group-by {group_by!r}: use 'group', 'variant' or 'metadata.KEY'")
    cols = store.ratings.rating_columns(rubric.ref, dataset, sample, group_by, all_revisions=all_revisions)
    if columns is not None:
        columns.append(cols)
    # the estimates' counts run in the database while the figures below are computed here
    # (started earlier they would compete with the read for the CPUs)
    # (the all sample's columns already hold every item's judge score and group)
    counts = _count_in_background(store, rubric.ref, dataset, group_by if sample != "all" else None) \
        if estimates else None
    keys = cols.groups if group_by else None
    if (keys is not None and group_by and group_by.startswith("metadata.") and keys.codes.size
            and all(v is None for v in keys.values)):
        raise UserError(f"--group-by {group_by}: no item has metadata key {group_by.split('.', 1)[1]!r}")
    models, reviewers = cols.models, cols.reviewers
    out: CalibrationReport = {"rubric": rubric.ref, "dataset": dataset, "sample": sample, "group_by": group_by,
                              "human_aggregate": human_aggregate, "normalise": normalise, "models": models,
                              "level": level, "bootstrap": draws,
                              "revisions": "all" if all_revisions else "current", "dimensions": []}
    learned = store.scores.correction_scores(rubric.ref) if rubric.judge.correction_examples > 0 else None
    inputs: list[DimensionInput] = []
    prepared = []
    # every dimension's figures group the same items: their keys named once, not once per item
    grouping = Keys.of(keys.values, keys.codes) if keys is not None else None
    for dim in rubric.dimensions:
        if dim.is_pair:
            continue
        dc = cols.dims[dim.id]
        humans = dc.humans  # the fold's own array: nothing else holds it
        humans[np.isinf(humans)] = np.nan
        not_normalised: list[int] = []
        if normalise == "z":
            humans, not_normalised = z_normalise(humans)
        base = DimensionInput(dim.id, panel_of(dc.judge, rubric.judge.panel_aggregate), humans,
                              levels=list(dim.scale.level_values()), threshold_raw=dim.threshold_raw,
                              level=level or dim.measurement_level,
                              comparable=dim.judge_scale is None,
                              groups=grouping,
                              human_aggregate=human_aggregate)
        first = len(inputs)
        inputs.append(base)
        if len(models) > 1:
            inputs.extend(replace(base, judge=dc.judge[:, i]) for i in range(len(models)))
        prepared.append((dim, dc, humans, not_normalised, base, first))
    reports = dimension_reports(inputs, bounds, draws, seed)  # one bootstrap pass for all of them
    per_model: dict[str, list[dict[str, Json]]] = {}
    for dim, dc, humans, not_normalised, base, first in prepared:
        rep = reports[first]
        # calibration.report's figures are the documented keys of a dimension's entry
        entry = cast(DimensionEntry, dict(rep.figures))
        entry["level_source"] = "--level" if level else "rubric" if dim.level else "scale default"
        entry["null_reasons"] = rep.null_reasons
        entry.update(_people(dc, base.judge, humans, reviewers, base.level))
        if normalise == "z":
            entry["not_normalised"] = [reviewers[i] for i in not_normalised]
        if learned is not None:
            entry["corrections"] = _before_after(cols.item_pk, learned[0].get(dim.id, {}), learned[1], humans,
                                                 replace(base, groups=None), bounds, draws, seed)
        out["dimensions"].append(entry)
        if len(models) > 1:
            figures = {m: reports[first + 1 + i].figures for i, m in enumerate(models)}
            for m, f in figures.items():
                per_model.setdefault(m, []).append(f)
            entry["best_model"] = best_model(figures)
    if per_model:
        out["per_model"] = per_model
    if estimates:
        # the audit items' labels come from these columns when they are the audit sample's
        # current labels (not the all sample's every score, a blind sample's first scores, nor
        # earlier revisions')
        own = cols if sample == "audit" and not all_revisions else None
        _add_estimates(store, rubric, out, cols if sample == "all" else None, dataset, human_aggregate,
                       confidence, target_width, group_by, own, counts)
    pairs = pair_report(store, rubric.ref)
    if pairs is not None:
        out["pairs"] = pairs
    verdicts = pair_verdict_report(store, rubric.ref, draws, seed)
    if verdicts:
        out["pair_verdicts"] = verdicts
    return out


def _count_in_background(store: Store, ref: str, dataset: str | None, group_by: str | None = None) -> Counts:
    """The corrected estimates' two counts over every item (:meth:`judge_score_totals`;
    :meth:`judge_pass_totals` with the audit items' verdicts, :meth:`audit_judge_verdicts`),
    started on their own connections: the database counts (the driver lets go of the GIL) while
    the figures are computed here — a million items cost ~max, not sum. With ``group_by`` the
    ranking by group needs every item's judge score and group, not the totals: those columns
    are read instead (the judge's side alone)."""
    from concurrent.futures import ThreadPoolExecutor

    def every_item() -> ScoreTotals | RatingColumns:
        if group_by:
            return store.ratings.rating_columns(ref, dataset, "all", group_by, humans=False)
        return store.ratings.judge_score_totals(ref, dataset)

    def passes() -> PassCounts:
        return store.ratings.judge_pass_totals(ref, dataset), store.ratings.audit_judge_verdicts(ref)

    pool = ThreadPoolExecutor(2)
    try:
        return pool.submit(every_item), pool.submit(passes)
    finally:
        pool.shutdown(wait=False)  # the two run to the end; nothing more is submitted


def _add_estimates(store: Store, rubric: Rubric, out: CalibrationReport, cols: RatingColumns | None,
                   dataset: str | None, how: str, confidence: float, target_width: float | None,
                   group_by: str | None = None, own: RatingColumns | None = None,
                   counts: Counts | None = None) -> None:
    """Corrected means per dimension and the corrected pass rate (:mod:`reviewer.services.estimates`):
    they need the judge on every item (a report on the whole store hands its columns over).
    ``own``: the report's columns when they are the audit sample's (the labels are read from
    them); ``counts``: :func:`_count_in_background`'s, when started already."""
    from reviewer.services import estimates

    scores, verdicts = counts or _count_in_background(store, rubric.ref, dataset, group_by if cols is None else None)
    folds = _audit_labels(store, rubric, dataset, how, own)
    counted, (passes, judged) = scores.result(), verdicts.result()
    if isinstance(counted, RatingColumns):  # every item's judge column, read for the ranking by group
        cols, counted = counted, None
    found = estimates.dimension_estimates(store, rubric, dataset, folds, confidence, target_width, cols,
                                          group_by=group_by, counted=counted)
    for entry in out["dimensions"]:
        e = found.get(entry["dimension"])
        entry["estimate"] = e if e is not None and entry.get("level") != "nominal" else {
            "ppi": None, "reason": "a mean of unordered labels means nothing: no corrected mean on a nominal dimension"}
    out["pass_rate_estimate"] = estimates.pass_rate(store, rubric, dataset, folds, confidence, target_width, passes,
                                                    judged)


def _audit_labels(store: Store, rubric: Rubric, dataset: str | None, how: str,
                  own: RatingColumns | None) -> Labels | None:
    """The audit items' labels (:mod:`reviewer.services.estimate_labels`), None without an audit
    sample: from the columns of the audit sample (``own``: the report's, when they are those)."""
    from reviewer.services.estimate_labels import labels_of_columns

    if not store.queue.has_audit_sample(rubric.ref):
        return None
    if own is None:
        own = store.ratings.rating_columns(rubric.ref, dataset, "audit")
    return labels_of_columns(store, rubric, own, how)


def _before_after(item_pk: NDArray[np.int64], scores: dict[int, tuple[float | None, float | None]],
                  seen: set[int], humans: NDArray[np.float64], base: DimensionInput, bounds: TrustBounds,
                  draws: int, seed: int) -> Corrections:
    """Learning from corrections: agreement of the judge's scores made without human examples
    and of those made with them, on the same items (those whose own human scores were examples
    left out)."""
    pks = [int(p) for p in item_pk]
    keep = [i for i, pk in enumerate(pks) if pk not in seen and None not in scores.get(pk, (None, None))]
    out: Corrections = {"left_out": sum(1 for pk in pks if pk in seen)}
    sides: tuple[tuple[Literal["before", "after"], int], ...] = (("before", 0), ("after", 1))
    for side, k in sides:
        judge = np.array([scores[pks[i]][k] for i in keep], dtype=float)
        f = dimension_report(replace(base, dimension="", judge=judge, humans=humans[keep]), bounds, draws, seed).figures
        out[side] = {"n": f["n"], "alpha": f.get("alpha"), "alpha_ci": f.get("alpha_ci"), "mae": f.get("mae"),
                     "exact": f.get("exact")}
    return out


def _people(dc: DimColumns, judge: NDArray[np.float64], humans: NDArray[np.float64], reviewers: list[str],
            level: Level) -> DimensionEntry:
    """Per-reviewer figures, adjudication three ways, anchoring and the judge's own spread."""
    # calibration.reviewers' dicts are the documented keys of these entries
    out: DimensionEntry = {"reviewers": cast(list[ReviewerFigures], per_reviewer(humans, reviewers, level))}
    if (~np.isnan(dc.adjudicated)).any():
        out["adjudicated"] = cast(Adjudicated, adjudicated(judge, dc.adjudicated, humans))
    if dc.revised.shape[0]:
        idx = dc.revised[:, 0].astype(np.int64)
        out["anchoring"] = cast(Anchoring, anchoring(dc.revised[:, 1], dc.revised[:, 2], judge[idx]))
    with np.errstate(invalid="ignore"):
        some = (~np.isnan(dc.judge_std)).any(axis=1)
        stds = np.full(judge.size, np.nan)
        stds[some] = np.nanmean(dc.judge_std[some], axis=1)
    out["judge_spread"] = cast(JudgeSpread, judge_spread(stds, dc.judge))
    return out


def pair_report(store: Store, rubric_ref: str) -> PairFigures | None:
    """Judge–human agreement on which item of each two-item group is better (see
    :mod:`calibration.pairs`); None when no reviewer has chosen in this rubric's pairs."""
    from calibration.pairs import TIE, PairObservation, pair_figures

    choices = store.scores.pair_choices(rubric_ref)
    if not choices:
        return None
    observations = []
    for grp, items in store.scores.group_overalls(rubric_ref).items():
        if len(items) != 2 or grp not in choices:
            continue
        side = {pk: i for i, (pk, _, _) in enumerate(items)}
        picks = [TIE if w is None else side[w] for w in choices[grp].values() if w is None or w in side]
        observations.append(PairObservation(items[0][2], items[1][2], picks))
    return cast(PairFigures, pair_figures(observations))


def route(store: Store, rubric_ref: str, report: CalibrationReport) -> int:
    """Write review priorities from the report's trust status into the store; returns how many."""
    rubric = store.rubrics.get_rubric(rubric_ref)
    status = {d["dimension"]: d["status"] for d in report["dimensions"]}
    priorities: dict[int, float] = {}
    for row in _rating_rows(store, rubric.ref, None, "all"):
        signals = {}
        for dim in rubric.dimensions:
            if dim.is_pair:
                continue
            scale = dim.judge_scale or dim.scale
            score = _panel(row, dim.id)
            apart = spread(scale.normalise(x) for x in row["judge"].get(dim.id, {}).values())
            signals[dim.id] = DimSignal(
                status.get(dim.id, "insufficient_data"),
                dim.scale.normalise(score) if score is not None else None, dim.threshold / 100.0,
                None, None, apart, error=score is None)
        priorities[row["item_pk"]] = item_priority(signals)
    store.queue.set_priorities(rubric.ref, priorities)
    return len(priorities)


class ReportSample(TypedDict):
    """Which items a report was computed from: the keys :func:`confusions` reads of it."""

    rubric: str
    dataset: str | None
    sample: str
    human_aggregate: NotRequired[str]


def confusions(store: Store, report: CalibrationReport | ReportSample,
               cols: RatingColumns | None = None) -> dict[str, Confusion]:
    """Per dimension the judge × human confusion table on the dimension's levels (human: the
    report's aggregate — :func:`reviewer.domain.human.consensus` — the majority on nominal
    dimensions), from the rating columns of the report's dataset and sample (``cols``: those
    columns, when the caller has read them already)."""
    from reviewer.domain.columns import consensus_columns

    rubric = store.rubrics.get_rubric(report["rubric"])
    if cols is None:
        cols = store.ratings.rating_columns(rubric.ref, report["dataset"], report["sample"])
    out: dict[str, Confusion] = {}
    for dim in rubric.dimensions:
        if dim.is_pair or dim.judge_scale is not None:
            continue
        # the human side as the report took it: the majority on a nominal dimension
        how = "majority" if dim.measurement_level == "nominal" else report.get("human_aggregate") or "mean"
        dc = cols.dims[dim.id]
        judge, human = panel_of(dc.judge, rubric.judge.panel_aggregate), consensus_columns(dc.humans, how)
        both = ~np.isnan(judge) & ~np.isnan(human)
        if both.any():
            out[dim.id] = cast(Confusion, confusion(judge[both], human[both], list(dim.scale.level_values())))
    return out


def _rows_for(store: Store, rubric_ref: str, dataset: str | None, sample: str | None) -> tuple[str, list[RatingRow]]:
    """The sample ``calibrate`` uses for these arguments (audit when drawn, else all) and its rows."""
    if sample is None:
        sample = "audit" if store.queue.has_audit_sample(rubric_ref) else "all"
    return sample, _rating_rows(store, rubric_ref, dataset, sample)


def disagreements(store: Store, rubric_ref: str, dimension: str, top: int = 20,
                  rows: list[RatingRow] | None = None) -> list[Disagreement]:
    """The items where the judge and the humans differ most on a dimension, largest first, with
    each human score, the humans' consensus and own spread, ``bias`` (judge − human), and the
    adjudicated score if a lead gave one (``rows``: the rating rows to look in; default every
    item of the rubric)."""
    rubric = store.rubrics.get_rubric(rubric_ref)
    out: list[Disagreement] = []
    for r in rows if rows is not None else _rating_rows(store, rubric.ref, None, "all"):
        j, humans = _panel(r, dimension), r["human"].get(dimension)
        if j is None or not humans:
            continue
        h = [float(v) for v in humans.values()]
        people = consensus(h)
        off = bias(j, people)
        out.append({"item_pk": r["item_pk"], "item_id": r["item_id"], "judge": j, "humans": dict(humans),
                    "human_mean": people, "bias": off, "gap": abs(off or 0.0),
                    "human_spread": max(h) - min(h), "adjudicated": r["adjudicated"].get(dimension)})
    out.sort(key=lambda d: (-d["gap"], d["item_id"]))
    return out[:top]


def dimension_detail(store: Store, rubric_ref: str, dimension: str, dataset: str | None = None,
                     sample: str | None = None) -> DimensionDetail:
    """One dimension over the items its calibration figures come from (the same dataset and
    sample as ``calibrate``): the judge × human confusion table (``n`` items), each reviewer's
    bias (judge − human) and MAE against the judge, and the largest disagreements."""
    rubric = store.rubrics.get_rubric(rubric_ref)
    sample, rows = _rows_for(store, rubric.ref, dataset, sample)
    conf = confusions(store, {"rubric": rubric.ref, "dataset": dataset, "sample": sample}).get(dimension)
    per: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        j = _panel(r, dimension)
        if j is None:
            continue
        for who, score in r["human"].get(dimension, {}).items():
            per.setdefault(who, []).append((j, score))
    if conf is None:
        conf = cast(Confusion, confusion([], [], list(rubric.dimension(dimension).scale.level_values())))
    return {"levels": conf["levels"], "table": conf["table"], "sample": sample, "n": conf["n"],
            "reviewers": cast(list[ReviewerOffset], reviewer_offsets(per)),
            "disagreements": disagreements(store, rubric.ref, dimension, rows=rows)}


def disagreement_pack(store: Store, rubric_ref: str, top: int = 20) -> list[PackEntry]:
    """Per dimension, the ``top`` items where judge and humans differ most, with what it takes to
    improve the judge prompt: the input and output, the judge's rationale and evidence, and each
    reviewer's current score (from the item's fold) with their reason and tags."""
    rubric = store.rubrics.get_rubric(rubric_ref)
    rows = _rating_rows(store, rubric.ref, None, "all")
    picked = [(dim.id, rank, d) for dim in rubric.dimensions if not (dim.is_pair or dim.method == "human")
              for rank, d in enumerate(disagreements(store, rubric.ref, dim.id, top, rows), start=1)]
    # every picked item's row, fold and judge records at once (not one read per item)
    pks = {d["item_pk"] for _, _, d in picked}
    items = {it.pk: (it, fold) for it, fold in store.items.item_folds(item_pks=pks)}
    judges = store.items.current_judges(pks)
    out: list[PackEntry] = []
    for dim_id, rank, d in picked:
        item, fold = items[d["item_pk"]]
        judge = [j for j in judges[d["item_pk"]].get(dim_id, []) if j.turn is None and j.score is not None]
        said: dict[str, HumanSaid] = {
            who: {"score": v.score, "reason": v.reason, "tags": list(v.tags), "blind": v.blind}
            for who, v in sorted(fold.dims[dim_id].human.votes.items())}
        out.append({
            "rubric": rubric.ref, "dimension": dim_id, "rank": rank, "item_id": d["item_id"],
            "judge": d["judge"], "human_mean": d["human_mean"], "bias": d["bias"], "gap": d["gap"],
            "human_spread": d["human_spread"], "adjudicated": d["adjudicated"],
            "input": item.input, "output": item.output,
            "judge_rationale": [{"model": j.model, "score": j.score, "rationale": j.rationale,
                                 "evidence": list(j.evidence)} for j in judge],
            "humans": said,
        })
    return out


def side_by_side(store: Store, rubric_ref: str, other_ref: str,
                 build: Callable[[str], ReportT]) -> SideBySide[ReportT]:
    """Two versions of one rubric side by side, each report built by ``build`` from its own
    version's scores alone, never pooled. Different versions carry a "not like for like" banner
    naming what changed (``rubric diff``'s changes); ``calibrate`` and ``report`` both use this."""
    from rubrics.versioning import diff

    a, b = store.rubrics.get_rubric(rubric_ref), store.rubrics.get_rubric(other_ref)
    if a.id != b.id:
        raise UserError(f"--compare {b.ref}: {a.ref} and {b.ref} are different rubrics; compare versions of one rubric")
    changes = [f"{c.path}: {c.what}" for c in diff(a, b).changes] if a.version != b.version else []
    banner = None
    if a.version != b.version:
        banner = (f"NOT LIKE FOR LIKE: {a.id} {a.version} vs {b.version} — the rubric changed "
                  f"({len(changes)} change{'s' if len(changes) != 1 else ''}); the figures sit side by side and are never pooled")
    return {"like_for_like": banner is None, "banner": banner, "changes": changes,
            "reports": [build(a.ref), build(b.ref)]}
