"""The fold of rating rows into per-item state, vectorised over columns (calibration at scale).

This mirrors the per-item fold of an item's history row by row (the domain's one statement of
the rules) for the figures calibration needs, on numpy columns instead of per-row objects:

- only rows of the item's current content revision count;
- human scores (:mod:`reviewer.domain.human`): per (item, dimension, reviewer) the latest vote
  stands; a lead's adjudication is not a vote — it settles the dimension (the latest standing
  adjudication of any lead); an undo (kind ``undo``, or no score) withdraws that reviewer's
  latest standing vote or adjudication, restoring nothing; with sample ``blind`` a reviewer's
  first blind score since their last withdrawn vote counts instead of their current one;
- anchoring: a current vote of kind ``revision`` beside the reviewer's first blind score;
- judge scores (:mod:`reviewer.domain.judge`): per (item, dimension, model) the latest top-level
  row (no turn) — a later failed call leaves that model without a score — with its sample spread.

Which rows stand is :func:`reviewer.domain.standing.standing` and
:func:`~reviewer.domain.standing.latest_per_key` (the per-item rule over columns, written once,
read by the tidy table too); this module lays what stands out as matrices.

Input columns come from :meth:`reviewer.store.ratings.Ratings.rating_columns`
(codes for dimensions, reviewers, models and kinds; rows in insertion order).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import chain, repeat
from typing import Any

import numpy as np
from numpy.typing import NDArray

from reviewer.domain.standing import latest_per_key, standing
from reviewer.errors import UserError

Array = NDArray[np.float64]
Ints = NDArray[np.int64]
#: Small integer codes (dimension, reviewer, model, kind): any integer width.
Codes = NDArray[np.integer[Any]]
KIND_CODES = {"score": 0, "agree": 1, "revision": 2, "undo": 3, "adjudication": 4, "import": 5}
OTHER_KIND = 6


@dataclass
class RawColumns:
    """Rows as they come out of the store, in insertion (pk) order; ``*_item`` index ``item_pk``."""

    item_pk: Ints
    dims: list[str]
    reviewers: list[str]
    models: list[str]
    h_item: Ints
    h_dim: Codes
    h_who: Codes
    h_score: Array
    h_kind: Codes
    h_blind: NDArray[np.bool_]
    #: Whether the row belongs to its item's current content revision.
    h_current: NDArray[np.bool_]
    j_item: Ints
    j_dim: Codes
    j_model: Codes
    j_score: Array
    j_std: Array
    j_current: NDArray[np.bool_]
    #: ``group`` or ``metadata.KEY`` value per item, when asked for.
    groups: GroupKeys | None = None


@dataclass(frozen=True)
class GroupKeys:
    """Each item's group value (``calibrate --group-by``) as read: each distinct value once (in
    the order first met) and per item the index of its value among them. Not yet named or
    numbered as groups: the services code these values once by the one rule of keys
    (:func:`calibration.groups.group_names`, through ``calibration.groups.Keys.of``)."""

    values: list[object]
    codes: NDArray[np.intp]

    @classmethod
    def of(cls, read: list[Any], decode: Callable[[Any], object] | None = None) -> GroupKeys:
        """The values ``read`` per item, each distinct one kept once (decoded once by ``decode``:
        a JSON text is parsed once however many items hold it)."""
        index = {v: i for i, v in enumerate(dict.fromkeys(read))}
        codes = np.fromiter(map(index.__getitem__, read), dtype=np.intp, count=len(read))
        return cls([decode(v) if decode else v for v in index], codes)

    def per_item(self) -> list[object]:
        """Each item's value (a list as long as the items; for a small case or a test)."""
        return [self.values[c] for c in self.codes.tolist()]


@dataclass
class DimColumns:
    """One dimension over the items: what calibration computes from."""

    #: items × reviewers, NaN where the reviewer has no current score.
    humans: Array
    #: items × models (latest score per model), NaN where the model did not score.
    judge: Array
    #: items × models, the sample spread of that score (NaN where none).
    judge_std: Array
    #: items: a lead's settled score, NaN where none.
    adjudicated: Array
    #: (item index, blind score, revised score) for every current revision of a blind score.
    revised: Array = field(default_factory=lambda: np.zeros((0, 3)))


@dataclass
class RatingColumns:
    """Per item and dimension, the folded state (see the module docstring)."""

    item_pk: Ints
    reviewers: list[str]
    models: list[str]
    dims: dict[str, DimColumns]
    groups: GroupKeys | None = None


def _fits_a_key(*sizes: int) -> None:
    """The fold numbers each (item, dimension, reviewer or model) as one int64 key: refuse in one
    line when the product of the counts does not fit, rather than let a key wrap onto another."""
    space = 1
    for size in sizes:
        space *= max(size, 1)
    if space >= 1 << 63:
        raise UserError(f"{' × '.join(map(str, sizes))} (items × dimensions × names) are more than one "
                        "calibration can number; calibrate a smaller dataset at a time")


def fold(raw: RawColumns, sample: str = "all") -> RatingColumns:
    """Fold the rows (see the module docstring)."""
    n, d_n = raw.item_pk.size, len(raw.dims)
    r_n = max(len(raw.reviewers), 1)
    _fits_a_key(n, d_n, r_n)
    _fits_a_key(n, d_n, len(raw.models))
    # --- humans: the standing vote and adjudication per (item, dimension, reviewer) ----------
    rows = np.flatnonzero(raw.h_current & (raw.h_dim >= 0) & (raw.h_who >= 0))
    key = (raw.h_item[rows] * d_n + raw.h_dim[rows]) * r_n + raw.h_who[rows]
    st = standing(key, r_n, rows, raw.h_kind[rows] == KIND_CODES["adjudication"],
                  (raw.h_kind[rows] == KIND_CODES["undo"]) | np.isnan(raw.h_score[rows]), raw.h_blind[rows])
    del key
    vote = rows[st.votes]
    score, kind = raw.h_score[vote], raw.h_kind[vote]
    first_blind = np.where(st.first_blind >= 0, raw.h_score[rows[st.first_blind]], np.nan)
    who, dim, item = raw.h_who[vote], raw.h_dim[vote], raw.h_item[vote]
    shown = first_blind if sample == "blind" else score
    keep = ~np.isnan(shown)
    # reviewers with a current score, in name order; each dimension's items × reviewers matrix
    who_used = np.zeros(len(raw.reviewers), bool)
    who_used[who[keep]] = True
    keep_who = [int(i) for i in np.argsort(raw.reviewers) if who_used[i]]
    column = np.full(max(len(raw.reviewers), 1), -1, dtype=np.int64)
    column[keep_who] = np.arange(len(keep_who))
    moved = (kind == KIND_CODES["revision"]) & ~np.isnan(first_blind)
    revised = np.column_stack([dim[moved], item[moved], first_blind[moved], score[moved]]).astype(np.float64)
    humans = []
    for d in range(d_n):
        mine = keep & (dim == d)
        m = np.full((n, len(keep_who)), np.nan)
        m[item[mine], column[who[mine]]] = shown[mine]
        humans.append(m)
    del vote, score, kind, first_blind, who, dim, item, shown, keep
    # the latest standing adjudication of any lead settles the dimension
    settle = rows[st.settled]
    settled = np.full((d_n, n), np.nan)
    settled[raw.h_dim[settle], raw.h_item[settle]] = raw.h_score[settle]
    # --- judge: the latest row per (item, dimension, model), a failed call included ---------
    m_n = len(raw.models)
    j_rows = np.flatnonzero(raw.j_current & (raw.j_dim >= 0) & (raw.j_model >= 0))
    j_last = j_rows[latest_per_key((raw.j_item[j_rows] * d_n + raw.j_dim[j_rows]) * max(m_n, 1)
                                   + raw.j_model[j_rows], j_rows)]
    j_last = j_last[~np.isnan(raw.j_score[j_last])]  # the latest answer failed: no score from that model
    judge = np.full((d_n, n, m_n), np.nan)
    std = np.full((d_n, n, m_n), np.nan)
    judge[raw.j_dim[j_last], raw.j_item[j_last], raw.j_model[j_last]] = raw.j_score[j_last]
    std[raw.j_dim[j_last], raw.j_item[j_last], raw.j_model[j_last]] = raw.j_std[j_last]
    # models with a current score, in name order
    model_used = np.zeros(m_n, bool)
    model_used[raw.j_model[j_last]] = True
    keep_models = [i for i in np.argsort(raw.models) if model_used[i]]
    dims = {}
    for d, name in enumerate(raw.dims):
        mine = revised[revised[:, 0] == d]
        dims[name] = DimColumns(humans[d], judge[d][:, keep_models], std[d][:, keep_models],
                                settled[d], mine[:, 1:])
    return RatingColumns(raw.item_pk, [raw.reviewers[i] for i in keep_who], [raw.models[i] for i in keep_models],
                         dims, raw.groups)


def consensus_columns(humans: Array, how: str = "mean") -> Array:
    """:func:`reviewer.domain.human.consensus` per row of items × reviewers (NaN: no score;
    a row with none gives NaN): the mean, the median, or the most frequent score with ties going
    to the lower — exact values, as the per-item rule counts them (no snapping to levels)."""
    n = humans.shape[0]
    out = np.full(n, np.nan)
    seen = ~np.isnan(humans)
    some = seen.any(axis=1)
    if not some.any():
        return out
    h = humans[some]
    if how == "median":
        out[some] = np.nanmedian(h, axis=1)
    elif how == "majority":
        values = np.unique(h[~np.isnan(h)])  # ascending: the first of the tied is the lowest
        if values.size <= 64:
            counts = (h[:, :, None] == values[None, None, :]).sum(axis=1)
            out[some] = values[(counts == counts.max(axis=1, keepdims=True)).argmax(axis=1)]
        else:  # many distinct scores (a continuous scale): the per-item rule row by row
            from reviewer.domain.human import consensus

            out[some] = [consensus(sorted(row[~np.isnan(row)].tolist()), "majority") for row in h]
    else:
        out[some] = np.nansum(h, axis=1) / seen[some].sum(axis=1)
    return out


def people_columns(dc: DimColumns, how: str = "mean") -> Array:
    """People's score per item on one dimension, without the judge (:attr:`reviewer.domain.item.
    DimFold.people`): a lead's standing adjudication, else the consensus ``how`` of the current
    votes; NaN where neither."""
    return np.where(np.isnan(dc.adjudicated), consensus_columns(dc.humans, how), dc.adjudicated)


def panel_of(by_model: NDArray[np.float64], how: str) -> NDArray[np.float64]:
    """The panel's score per item (items × models, NaN where a model did not score): the mean
    or median of the models that scored it (:func:`rubrics.aggregate.panel_score`, the rule
    :func:`reviewer.domain.judge.fold_judge` applies per item, vectorised);
    NaN where none did."""
    out = np.full(by_model.shape[0], np.nan)
    some = (~np.isnan(by_model)).any(axis=1)
    if some.any():
        out[some] = (np.nanmedian if how == "median" else np.nanmean)(by_model[some], axis=1)
    return out


def score_sums(values: Array, counts: NDArray[np.integer[Any]] | None = None) -> tuple[int, float, float]:
    """(count, sum, sum of squares) of scores — ``values`` one per score, or with ``counts`` the
    distinct values and how many times each comes — each sum the correctly rounded sum of every
    score (or square) one by one (:func:`math.fsum`, exact whatever the order), so the same scores
    give the same figures however they are read (a database's ``SUM`` adds in its own order, and
    SQLite and PostgreSQL round differently), counted by the database or folded from columns."""
    if counts is None:
        return values.size, math.fsum(values.tolist()), math.fsum((values * values).tolist())
    pairs = list(zip(values.tolist(), counts.tolist(), strict=True))
    return int(counts.sum()), exact_sum(pairs), exact_sum((v * v, c) for v, c in pairs)


def exact_sum(pairs: Iterable[tuple[float, int]]) -> float:
    """The correctly rounded sum of each value taken as many times as it comes — ``pairs`` of
    (value, count), as a database's ``GROUP BY value`` counts them — by :func:`math.fsum`: the
    same figure whatever order the values come in, where a database's ``SUM`` adds in its own
    order (and SQLite and PostgreSQL round differently). Every sum of stored reals the store
    reports (scores, judge costs) is this one."""
    return math.fsum(chain.from_iterable(repeat(v, c) for v, c in pairs))
