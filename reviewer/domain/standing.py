"""Which human score rows stand, decided over columns: the rule of
:func:`reviewer.domain.human.fold_human` for many keys at once (the tidy table reads it for a
million scores).

Per key (one reviewer on one dimension of one item's content revision) the latest vote stands
and the latest adjudication stands; an undo (or a row without a score) withdraws the latest
standing row of the key, which depends on the order of everything before it — so the few keys
that hold one are handed to :func:`~reviewer.domain.human.fold_human` itself, and the rule is
written once.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from reviewer.domain.human import fold_human
from reviewer.domain.rows import HumanRow

Ints = NDArray[np.int64]
Bools = NDArray[np.bool_]


def _last_of_runs(ordered: Ints) -> Bools:
    """Where each run of equal values in ``ordered`` ends."""
    ends = np.ones(ordered.size, dtype=bool)
    ends[:-1] = ordered[1:] != ordered[:-1]
    return ends


def standing(key: Ints, pk: Ints, adjudication: Bools, withdraw: Bools) -> tuple[Ints, Ints]:
    """(positions of the standing votes, positions of the standing adjudications): at most one
    of each per key. ``key``: each row's key; ``pk``: its row key (the order rows were written
    in); ``adjudication``: the row is a lead's adjudication; ``withdraw``: the row is an undo or
    carries no score. Rows may come in any order."""
    order = np.lexsort((pk, key))
    k = key[order]
    hard_keys = np.unique(key[withdraw])
    hard = np.isin(k, hard_keys) if hard_keys.size else np.zeros(k.size, dtype=bool)
    votes: list[Ints] = []
    adjs: list[Ints] = []
    for mask, out in ((~hard & ~adjudication[order], votes), (~hard & adjudication[order], adjs)):
        rows = order[mask]
        out.append(rows[_last_of_runs(k[mask])])
    if hard.any():
        v, a = _with_withdrawals(order[hard], k[hard], adjudication, withdraw)
        votes.append(v)
        adjs.append(a)
    return np.concatenate(votes), np.concatenate(adjs)


def _with_withdrawals(rows: Ints, keys: Ints, adjudication: Bools, withdraw: Bools) -> tuple[Ints, Ints]:
    """The keys that hold a withdrawal, each folded by :func:`fold_human` over its rows (in
    order; each row's ``pk`` is its position, so the standing rows come back as positions)."""
    votes: list[int] = []
    adjs: list[int] = []
    bounds = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    for group in np.split(rows, bounds):
        hrows = [HumanRow(int(r), "d", "w", None if withdraw[r] else 0.0,
                          "undo" if withdraw[r] else "adjudication" if adjudication[r] else "score")
                 for r in group]
        dim = fold_human(hrows).get("d")
        if dim is None:
            continue
        if "w" in dim.votes:
            votes.append(dim.votes["w"].pk)
        if dim.adjudication is not None:
            adjs.append(dim.adjudication.pk)
    return np.array(votes, dtype=np.int64), np.array(adjs, dtype=np.int64)


def latest_per_key(key: Ints, pk: Ints) -> Ints:
    """Position of the row with the highest ``pk`` per ``key`` (the latest written)."""
    order = np.lexsort((pk, key))
    return order[_last_of_runs(key[order])]
