"""The fold of rating rows into per-item state, vectorised over columns (calibration at scale).

This mirrors the per-item fold of an item's history row by row (the domain's one statement of
the rules) for the figures calibration needs, on numpy columns instead of per-row objects:

- only rows of the item's current content revision count;
- human scores: per (item, dimension, reviewer) the latest row counts; an undo (kind ``undo``,
  or a row with no score) takes that reviewer's score away, and only rows after the last undo
  count again; with sample ``blind`` the first blind score after the last undo counts instead;
- a lead's adjudication settles the dimension: it is kept apart (``adjudicated``, the latest
  one), never counted as one more human vote;
- anchoring: per (item, dimension, reviewer), the first blind score after the last undo and the
  latest ``revision`` row after it;
- judge scores: the latest scored row per (item, dimension, model) at top level (no turn),
  errors left out, with its sample spread.

Input columns come from :meth:`reviewer.store.rating_columns.RatingColumnsMixin.rating_columns`
(codes for dimensions, reviewers, models and kinds; rows in insertion order).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
Ints = NDArray[np.int64]
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
    h_dim: Ints
    h_who: Ints
    h_score: Array
    h_kind: Ints
    h_blind: NDArray[np.bool_]
    #: Whether the row belongs to its item's current content revision.
    h_current: NDArray[np.bool_]
    j_item: Ints
    j_dim: Ints
    j_model: Ints
    j_score: Array
    j_std: Array
    j_current: NDArray[np.bool_]
    #: ``group`` or ``metadata.KEY`` value per item, when asked for.
    groups: list[object] | None = None


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
    #: (item index, blind score, revised score) for every blind score revised after the reveal.
    revised: Array = field(default_factory=lambda: np.zeros((0, 3)))


@dataclass
class RatingColumns:
    """Per item and dimension, the folded state (see the module docstring)."""

    item_pk: Ints
    reviewers: list[str]
    models: list[str]
    dims: dict[str, DimColumns]
    groups: list[object] | None = None


def _last_per_key(keys: Ints, order_pos: Ints) -> tuple[Ints, Ints]:
    """(unique keys, the position of the last row of each) for rows already in insertion order."""
    rev = keys[::-1]
    uniq, first_in_rev = np.unique(rev, return_index=True)
    return uniq, order_pos[::-1][first_in_rev]


def fold(raw: RawColumns, sample: str = "all") -> RatingColumns:
    """Fold the rows (see the module docstring)."""
    n, d_n = raw.item_pk.size, len(raw.dims)
    # --- humans ---------------------------------------------------------------------------
    live = raw.h_current & (raw.h_dim >= 0) & (raw.h_who >= 0)
    adj = live & (raw.h_kind == KIND_CODES["adjudication"])
    votes = live & ~adj
    undo = votes & ((raw.h_kind == KIND_CODES["undo"]) | np.isnan(raw.h_score))
    r_n = max(len(raw.reviewers), 1)
    key = (raw.h_item * d_n + raw.h_dim) * r_n + raw.h_who
    # rows after the last undo of their key
    sel = np.nonzero(votes)[0]
    k_sel = key[sel]
    undo_keys, last_undo = _last_per_key(k_sel[undo[sel]], sel[undo[sel]])
    cut = np.full(sel.size, -1, dtype=np.int64)
    if undo_keys.size:
        where = np.searchsorted(undo_keys, k_sel)
        hit = (where < undo_keys.size) & (undo_keys[np.clip(where, 0, max(undo_keys.size - 1, 0))] == k_sel)
        cut[hit] = last_undo[where[hit]]
    after = sel[(sel > cut) & ~undo[sel]]
    blind_after = after[raw.h_blind[after]]
    if sample == "blind":
        first_blind_keys, first_idx = np.unique(key[blind_after], return_index=True)
        current = blind_after[first_idx]
    else:
        _, current = _last_per_key(key[after], after)
    humans = np.full((d_n, n, len(raw.reviewers)), np.nan)
    humans[raw.h_dim[current], raw.h_item[current], raw.h_who[current]] = raw.h_score[current]
    settled = np.full((d_n, n), np.nan)
    a_rows = np.nonzero(adj & ~np.isnan(raw.h_score))[0]
    _, a_last = _last_per_key((raw.h_item[a_rows] * d_n + raw.h_dim[a_rows]), a_rows)
    settled[raw.h_dim[a_last], raw.h_item[a_last]] = raw.h_score[a_last]
    # anchoring: first blind score after the last undo, and the latest revision after it
    fb_keys, fb_idx = np.unique(key[blind_after], return_index=True)
    fb_rows = blind_after[fb_idx]
    revs = after[raw.h_kind[after] == KIND_CODES["revision"]]
    revised = np.zeros((0, 4))
    if fb_keys.size and revs.size:
        where = np.clip(np.searchsorted(fb_keys, key[revs]), 0, fb_keys.size - 1)
        ok = (fb_keys[where] == key[revs]) & (revs >= fb_rows[where])
        revs, where = revs[ok], where[ok]
        r_keys, r_last = _last_per_key(key[revs], revs)
        w = np.searchsorted(fb_keys, r_keys)
        first = fb_rows[w]
        revised = np.column_stack([raw.h_dim[r_last], raw.h_item[r_last], raw.h_score[first], raw.h_score[r_last]])
    # --- judge ----------------------------------------------------------------------------
    m_n = len(raw.models)
    j_ok = raw.j_current & (raw.j_dim >= 0) & ~np.isnan(raw.j_score)
    j_rows = np.nonzero(j_ok)[0]
    _, j_last = _last_per_key((raw.j_item[j_rows] * d_n + raw.j_dim[j_rows]) * max(m_n, 1) + raw.j_model[j_rows],
                              j_rows)
    judge = np.full((d_n, n, m_n), np.nan)
    std = np.full((d_n, n, m_n), np.nan)
    judge[raw.j_dim[j_last], raw.j_item[j_last], raw.j_model[j_last]] = raw.j_score[j_last]
    std[raw.j_dim[j_last], raw.j_item[j_last], raw.j_model[j_last]] = raw.j_std[j_last]
    # reviewers and models with a current score, in name order
    who_used = np.zeros(len(raw.reviewers), bool)
    who_used[raw.h_who[current]] = True
    keep_who = [i for i in np.argsort(raw.reviewers) if who_used[i]]
    model_used = np.zeros(m_n, bool)
    model_used[raw.j_model[j_last]] = True
    keep_models = [i for i in np.argsort(raw.models) if model_used[i]]
    dims = {}
    for d, name in enumerate(raw.dims):
        mine = revised[revised[:, 0] == d] if revised.size else revised
        dims[name] = DimColumns(humans[d][:, keep_who], judge[d][:, keep_models], std[d][:, keep_models],
                                settled[d], mine[:, 1:] if mine.size else np.zeros((0, 3)))
    return RatingColumns(raw.item_pk, [raw.reviewers[i] for i in keep_who], [raw.models[i] for i in keep_models],
                         dims, raw.groups)
