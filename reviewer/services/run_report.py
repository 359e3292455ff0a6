"""REVAL's per-run report: per-dimension means with bands, pass rates, safety counts, judge
errors and cost, a leaderboard of the models under evaluation, and group rankings."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, NotRequired, TypedDict, cast

import numpy as np

from calibration.agreement import correlation
from reviewer.services.estimates import corrected_leaderboard
from reviewer.services.reports import (
    BoardRow,
    GroupRankAgreement,
    Headline,
    RunDimension,
    RunReport,
    TurnFigures,
)

if TYPE_CHECKING:  # (the store's class, for its type alone: importing it loads SQLAlchemy)
    from reviewer.store import Store
    from rubrics.schema import Dimension, Rubric


class ExportTurn(TypedDict, total=False):
    """One turn of a turn-level dimension in an export row."""

    score: float | None
    error: str | None


class ExportDim(TypedDict):
    """A dimension of an export row: the keys the report reads."""

    effective: float | None
    judge_error: str | None
    turns: NotRequired[list[ExportTurn]]


class ExportHeadline(TypedDict):
    """An export row's headline score."""

    score: float | None


class ExportRow(TypedDict):
    """The keys of a store export row (``Store.items.export_rows``, docs/formats.md) the report reads."""

    id: str
    group: str | None
    metadata: dict[str, object]
    dimensions: dict[str, ExportDim]
    overall: float | None
    judge_overall: float | None
    passed: bool | None
    safety: str
    headline: NotRequired[ExportHeadline | None]


def run_report(store: Store, rubric_ref: str, dataset: str | None = None, group_by: str = "metadata.model",
               confidence: float = 0.95) -> RunReport:
    """Figures on effective scores for one rubric version, every one read from the items' folds
    (the export rows): an incomplete item has no overall and does not pass; it is counted apart."""
    rubric = store.rubrics.get_rubric(rubric_ref)
    rows = cast(list[ExportRow], list(store.items.export_rows(rubric.ref, dataset)))
    costs = store.ratings.judge_cost_by_dimension(rubric.ref)
    dims: list[RunDimension] = []
    for dim in rubric.dimensions:
        vals = [v for r in rows if (v := r["dimensions"][dim.id]["effective"]) is not None]
        mean = statistics.fmean(vals) if vals else None
        band = rubric.band_for(dim.scale.normalise(mean)).label if mean is not None else None
        entry: RunDimension = {"dimension": dim.id, "mean": mean, "band": band,
                               "pass_rate": statistics.fmean(dim.passes(v) for v in vals) if vals else None,
                               "judge_errors": sum(1 for r in rows if r["dimensions"][dim.id]["judge_error"]),
                               "cost_usd": costs[dim.id]["cost_usd"] if dim.id in costs else 0.0}
        turns = _turn_figures(dim, rows)
        if turns is not None:
            entry["turns"] = turns
        dims.append(entry)
    overall = [r["overall"] for r in rows if r["overall"] is not None]
    by_model: dict[str, list[ExportRow]] = defaultdict(list)
    for r in rows:
        by_model[str(r["metadata"].get("model", "unknown"))].append(r)
    board = _board(rubric, by_model)
    judge_rank_agreement = _group_rank_agreement(rows)
    overall_mean = statistics.fmean(overall) if overall else None
    return {"rubric": rubric.ref, "dataset": dataset, "items": len(rows), "headline": _headline(rubric, rows),
            "dimensions": dims,
            "overall_mean": overall_mean,
            "overall_band": rubric.band_for(overall_mean).label if overall_mean is not None else None,
            "incomplete": sum(1 for r in rows if r["overall"] is None),
            "safety": dict(Counter(r["safety"] for r in rows)), "leaderboard": board,
            "group_rank_agreement": judge_rank_agreement,
            "corrected_leaderboard": corrected_leaderboard(store, rubric, dataset, group_by, confidence)}


def _board(rubric: Rubric, by_model: dict[str, list[ExportRow]]) -> list[BoardRow]:
    """The models under evaluation, best first: by their items' mean headline score where the
    rubric names a headline (the item's score), with the mean overall beside it; else by the mean
    overall."""
    board: list[BoardRow] = []
    for m, rs in by_model.items():
        overall = [x["overall"] for x in rs if x["overall"] is not None]
        row: BoardRow = {"model": m, "n": len(rs), "mean_overall": statistics.fmean(overall) if overall else None,
                         "pass_rate": statistics.fmean(bool(x["passed"]) for x in rs)}
        if rubric.headline is not None:
            heads = [s for x in rs if (h := x.get("headline")) and (s := h.get("score")) is not None]
            row["headline_mean"] = statistics.fmean(heads) if heads else None
        board.append(row)
    if rubric.headline is not None:
        return sorted(board, key=lambda b: -(b.get("headline_mean") or 0.0))
    return sorted(board, key=lambda b: -(b["mean_overall"] or 0.0))


def _turn_figures(dim: Dimension, rows: list[ExportRow]) -> TurnFigures | None:
    """A turn-level dimension's turns over the run: how many were scored, their mean, how many
    failed, and the rule that rolls them up to each item (None for other dimensions)."""
    if not dim.in_parts:
        return None
    turns = [t for r in rows for t in r["dimensions"][dim.id].get("turns", [])]
    scores = [s for t in turns if (s := t.get("score")) is not None]
    return {"scored": len(scores), "mean": statistics.fmean(scores) if scores else None,
            "errors": sum(1 for t in turns if t.get("error")), "aggregate": dim.turn_aggregate}


def _headline(rubric: Rubric, rows: list[ExportRow]) -> Headline | None:
    """The rubric's headline score over the run: its mean on [0, 1] and band, and the lowest
    group (REVAL's figure treatment: treatment parity, one value per figure pair)."""
    if rubric.headline is None:
        return None
    per_group: dict[str, float] = {}
    for r in rows:
        headline = r.get("headline")
        score = headline.get("score") if headline else None
        if score is not None:
            per_group.setdefault(str(r.get("group") or r["id"]), score)
    values = list(per_group.values())
    mean = statistics.fmean(values) if values else None
    worst = min(per_group.items(), key=lambda kv: kv[1]) if per_group else None
    return {"dimension": rubric.headline, "name": rubric.dimension(rubric.headline).name, "mean": mean,
            "band": rubric.band_for(mean).label if mean is not None else None, "n": len(values),
            "lowest": {"group": worst[0], "score": worst[1],
                       "band": rubric.band_for(worst[1]).label} if worst else None}


def _group_rank_agreement(rows: list[ExportRow]) -> GroupRankAgreement:
    """Within each group, Kendall's tau between the judge's ranking and the effective one, both
    by the same weighted, capped overall (the judge's alone, and the effective scores')."""
    groups: dict[str, list[ExportRow]] = defaultdict(list)
    for r in rows:
        if group := r.get("group"):
            groups[group].append(r)
    taus = []
    for members in groups.values():
        judge = [m["judge_overall"] for m in members]
        eff = [m["overall"] for m in members]
        if len(members) < 3 or None in judge or None in eff:
            continue
        tau = correlation(np.asarray(judge, float), np.asarray(eff, float), "kendall")  # no None: checked above
        if tau is not None:
            taus.append(tau)
    return {"groups": len(groups), "groups_ranked": len(taus),
            "mean_kendall": statistics.fmean(taus) if taus else None}
