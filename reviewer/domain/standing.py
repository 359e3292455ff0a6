"""Which score rows stand, decided over columns: the rule of :func:`reviewer.domain.human.fold_human`
and :func:`reviewer.domain.judge.fold_judge` for many keys at once, read by calibrate's columns
(:func:`reviewer.domain.columns.fold`) and the tidy table (:mod:`reviewer.services.tidy_build`).

People: per key (one reviewer on one *cell*, a dimension of one item's content revision) the
latest vote stands and the latest adjudication stands; an undo (or a row without a score)
withdraws the latest standing row of the key, which depends on the order of everything before
it — so the few keys that hold one are handed to :func:`~reviewer.domain.human.fold_human`
itself, and the rule is written once. Of a cell's standing adjudications (one per lead) the
latest settles the cell. A standing vote carries its key's first blind vote since the key's last
withdrawn vote (the blind sample's score).

Judge: per key (one model on one cell) the latest row stands, a failed call included
(:func:`latest_per_key`).

Positions are indices into the columns given; "latest" is the highest ``pk`` (the order rows
were written in). Rows may come in any order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from reviewer.domain.human import fold_human
from reviewer.domain.rows import HumanRow

Ints = NDArray[np.int64]
Bools = NDArray[np.bool_]
#: A position exact as a float (the keys with a withdrawal pass positions through fold_human's scores).
_EXACT = 1 << 53


@dataclass(frozen=True)
class Standing:
    """The people's standing rows, as positions into the columns given to :func:`standing`."""

    #: each key's standing vote (keys without one have none), in key order
    votes: Ints
    #: per standing vote, its key's first blind vote since the key's last withdrawn vote (-1: none)
    first_blind: Ints
    #: each cell's settling adjudication (the latest of its leads' standing ones), in cell order
    settled: Ints


def _by_key(key: Ints, pk: Ints) -> Ints:
    """Positions in (key, pk) order: a stable sort by key of the rows in pk order (rows mostly
    come in pk order already, and then in key order too: the sorts are quick)."""
    if pk.size > 1 and not bool(np.all(pk[1:] > pk[:-1])):
        by_pk = np.argsort(pk, kind="stable")
        return by_pk[np.argsort(key[by_pk], kind="stable")]
    return np.argsort(key, kind="stable")


def _last_of_runs(ordered: Ints) -> Bools:
    """Where each run of equal values in ``ordered`` ends."""
    ends = np.ones(ordered.size, dtype=bool)
    ends[:-1] = ordered[1:] != ordered[:-1]
    return ends


def _first_of_runs(ordered: Ints) -> Bools:
    """Where each run of equal values in ``ordered`` starts."""
    starts = np.ones(ordered.size, dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    return starts


def latest_per_key(key: Ints, pk: Ints) -> Ints:
    """Position of the row with the highest ``pk`` per ``key`` (the latest written), in key order."""
    order = _by_key(key, pk)
    return order[_last_of_runs(key[order])]


def standing(key: Ints, names: int, pk: Ints, adjudication: Bools, withdraw: Bools,
             blind: Bools | None = None) -> Standing:
    """The standing votes, their first blind votes and the settling adjudications (see the module
    docstring). ``key``: each row's key, ``cell * names + name`` (the caller packs it and checks
    its bound); ``pk``: its row key; ``adjudication``: the row is a lead's adjudication;
    ``withdraw``: the row is an undo or carries no score; ``blind``: the row was given blind."""
    if key.size >= _EXACT:
        raise ValueError(f"{key.size} rows are more than the fold numbers exactly (under 2**53)")
    blind = np.zeros(key.size, dtype=bool) if blind is None else blind
    order = _by_key(key, pk)
    k = key[order]
    hard_keys = np.unique(key[withdraw])
    hard = np.isin(k, hard_keys) if hard_keys.size else np.zeros(k.size, dtype=bool)
    adj = adjudication[order]
    vote = ~hard & ~adj
    ends = _last_of_runs(k[vote])
    votes, vote_keys = order[vote][ends], k[vote][ends]
    first_blind = np.full(votes.size, -1, dtype=np.int64)
    seen = vote & blind[order]  # no withdrawal in these keys: the first blind vote is the first ever
    starts = _first_of_runs(k[seen])
    first_blind[np.searchsorted(vote_keys, k[seen][starts])] = order[seen][starts]
    adjs = order[~hard & adj][_last_of_runs(k[~hard & adj])]
    if hard.any():
        v, fb, a = _with_withdrawals(order[hard], k[hard], adjudication, withdraw, blind)
        votes, first_blind, adjs = np.concatenate([votes, v]), np.concatenate([first_blind, fb]), np.concatenate([adjs, a])
        in_order = np.argsort(key[votes], kind="stable")
        votes, first_blind = votes[in_order], first_blind[in_order]
    return Standing(votes, first_blind, adjs[latest_per_key(key[adjs] // max(names, 1), pk[adjs])])


def _with_withdrawals(rows: Ints, keys: Ints, adjudication: Bools, withdraw: Bools,
                      blind: Bools) -> tuple[Ints, Ints, Ints]:
    """(standing votes, their first blind votes, standing adjudications) of the keys that hold a
    withdrawal, each key folded by :func:`fold_human` over its rows in order. Each row's position
    is its ``pk`` and its score (exact as a float below 2**53), so what stands comes back as
    positions."""
    votes: list[int] = []
    first_blind: list[int] = []
    adjs: list[int] = []
    bounds = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    for group in np.split(rows, bounds):
        hrows = [HumanRow(r, "d", "w", None if withdraw[r] else float(r),
                          "undo" if withdraw[r] else "adjudication" if adjudication[r] else "score", bool(blind[r]))
                 for r in group.tolist()]
        dim = fold_human(hrows).get("d")
        if dim is None:
            continue
        if "w" in dim.votes:
            fb = dim.votes["w"].first_blind
            votes.append(dim.votes["w"].pk)
            first_blind.append(-1 if fb is None else int(fb))
        if dim.adjudication is not None:
            adjs.append(dim.adjudication.pk)
    return (np.array(votes, dtype=np.int64), np.array(first_blind, dtype=np.int64),
            np.array(adjs, dtype=np.int64))
