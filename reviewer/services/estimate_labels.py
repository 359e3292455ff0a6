"""The labelled side of the corrected estimates: what people said on the audit items, in
their labels (:mod:`reviewer.domain.labels`: not a score given in the triage queue).

Per dimension the audit items where both people (a lead's adjudication, else the consensus) and
the judge panel scored it, with both scores; and per audit item whose overall people alone
complete (:func:`reviewer.domain.humans_only`), whether it passes. Two ways to the same
:class:`Labels`: from the audit items' folds (:func:`labels_of_folds`, one item at a time), or
from the columns calibration has already read (:func:`labels_of_columns`: tens of thousands of
audit items in array operations; a test holds the two side by side).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from calibration.alpha import unique_codes
from reviewer.domain.columns import RatingColumns, people_columns

if TYPE_CHECKING:  # (types alone: importing the store's class loads SQLAlchemy)
    from reviewer.domain.item import ItemFold
    from reviewer.store import Store
    from rubrics.schema import Dimension, Rubric

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]


@dataclass
class Labels:
    """The audit items' labels (every array in item key order)."""

    #: dimension → (item keys, people's score, the judge panel's score) where both exist
    dims: dict[str, tuple[Ints, Floats, Floats]]
    #: (item keys, people's verdict) of the audit items whose people-only overall is complete
    verdicts: tuple[Ints, NDArray[np.bool_]]


def labels_of_folds(rubric: Rubric, folds: list[tuple[int, ItemFold]]) -> Labels:
    """:class:`Labels` from (item key, fold) pairs of the audit items."""
    from reviewer.domain import humans_only

    dims: dict[str, tuple[list[int], list[float], list[float]]] = {
        d.id: ([], [], []) for d in rubric.dimensions if not d.is_pair}
    pks: list[int] = []
    passed: list[bool] = []
    for pk, fold in folds:
        for dim_id, (keys, y, yhat) in dims.items():
            f = fold.dims[dim_id]
            if f.people is not None and f.judge.panel is not None:
                keys.append(pk)
                y.append(float(f.people))
                yhat.append(float(f.judge.panel))
        alone = humans_only(rubric, fold)
        if alone.overall is not None:
            pks.append(pk)
            passed.append(bool(alone.passed))
    return Labels({k: (np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.float64), np.asarray(c, dtype=np.float64))
                   for k, (a, b, c) in dims.items()},
                  (np.asarray(pks, dtype=np.int64), np.asarray(passed, dtype=bool)))


def labels_of_columns(store: Store, rubric: Rubric, cols: RatingColumns, how: str) -> Labels:
    """:class:`Labels` of the items of ``cols``: the columns of the audit sample
    (``rating_columns(…, "audit")``: people's labels only, current revisions). People's verdict per item is the per-item rule itself
    (:func:`reviewer.domain.resolve` on people's scores alone) asked once per distinct pattern of
    which dimensions are scored and pass: the verdict and whether it is complete depend on nothing
    else when no safety flag caps. Items with a safety flag are folded one by one."""
    from reviewer.domain.columns import panel_of

    people = {d.id: people_columns(cols.dims[d.id], how) for d in rubric.dimensions}
    dims = {}
    for d in rubric.dimensions:
        if d.is_pair:
            continue
        panel = panel_of(cols.dims[d.id].judge, rubric.judge.panel_aggregate)
        ok = ~np.isnan(people[d.id]) & ~np.isnan(panel)
        dims[d.id] = (cols.item_pk[ok], people[d.id][ok], panel[ok])
    rows = np.arange(cols.item_pk.size)
    pks = cols.item_pk
    flagged = store.safety.flagged_items(rubric.ref) & set(pks.tolist())
    passed = np.zeros(rows.size, dtype=bool)
    complete = np.zeros(rows.size, dtype=bool)
    plain = ~np.isin(pks, np.asarray(sorted(flagged), dtype=np.int64))
    if plain.any():
        codes = np.column_stack([_pass_codes(d, people[d.id][rows[plain]]) for d in rubric.dimensions])
        # each item's pattern as one number (codes are 0, 1, 2): a 1-D unique, not a row-wise one
        flat = codes @ (3 ** np.arange(codes.shape[1], dtype=np.int64)) if codes.shape[1] < 39 else None
        _, first, which = (np.unique(flat, return_index=True, return_inverse=True) if flat is not None
                           else np.unique(codes, axis=0, return_index=True, return_inverse=True))
        verdicts = [_verdict(rubric, {d.id: people[d.id][rows[plain][i]] for d in rubric.dimensions})
                    for i in first]
        done = np.array([v[0] for v in verdicts], dtype=bool)
        ok = np.array([v[1] for v in verdicts], dtype=bool)
        complete[plain], passed[plain] = done[which.ravel()], ok[which.ravel()]
    if flagged:
        from reviewer.domain import humans_only

        at = {int(pk): i for i, pk in enumerate(pks.tolist())}
        for it, fold in store.items.item_folds(rubric.ref, None, sorted(flagged), how, labels=True):
            alone = humans_only(rubric, fold)
            complete[at[it.pk]], passed[at[it.pk]] = alone.overall is not None, bool(alone.passed)
    return Labels(dims, (pks[complete], passed[complete]))


def _pass_codes(dim: Dimension, values: Floats) -> NDArray[np.int64]:
    """0: no score; 1: scored, fails the dimension's threshold; 2: scored and passes."""
    out = np.zeros(values.size, dtype=np.int64)
    seen = ~np.isnan(values)
    uniq, back, _ = unique_codes(values[seen])
    out[seen] = np.array([2 if dim.passes(float(v)) else 1 for v in uniq], dtype=np.int64)[back]
    return out


def _verdict(rubric: Rubric, people: dict[str, float]) -> tuple[bool, bool]:
    """(complete, passes) of the overall people alone give with these scores and no safety flag:
    :func:`reviewer.domain.resolve` with each score standing as people's settled score."""
    from reviewer.domain import HumanDim, SafetyState, Vote, resolve

    humans = {k: HumanDim() if np.isnan(v) else HumanDim(adjudication=Vote("", float(v), "adjudication", False, 0))
              for k, v in people.items()}
    score = resolve(rubric, humans, {}, SafetyState("none")).score
    return score.overall is not None, bool(score.passed)
