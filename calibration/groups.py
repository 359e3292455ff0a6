"""The one coding of keys, and items sorted by group, for per-group figures at any size.

A key is named ``str(key)`` (so ``1`` and ``"1"`` are one group) and numbered by its name's place
among the distinct names in code-point order (Python's string order): :func:`group_names` is that
rule, and every coding of keys reads it — calibrate's groups (:class:`Keys`, from the store's
values read once each), the corrected ranking's groups and the tidy table's names — so a number's
order is its name's order, and a figure averaged over groups adds them up in the same order
however the keys came. :class:`Grouped` holds a selection of items sorted by group (stable: within
a group, items keep their order) and where each group starts, so each group is a slice, never a
scan of every key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

Codes = NDArray[np.intp]


def group_names(groups: Sequence[object]) -> tuple[list[str], Codes]:
    """The distinct names ``str(key)`` in code-point order, and each key's number (its name's
    index among them)."""
    seen: dict[str, int] = {}
    first = np.fromiter((seen.setdefault(str(g), len(seen)) for g in groups), dtype=np.intp, count=len(groups))
    names = sorted(seen)  # (Python's order: numpy's string sort ignores a trailing NUL)
    rank = np.empty(len(names), dtype=np.intp)
    rank[np.fromiter((seen[n] for n in names), dtype=np.intp, count=len(names))] = np.arange(len(names))
    return names, (rank[first] if names else first)


def group_codes(groups: Sequence[object] | Keys) -> Codes:
    """Each item's group number: its key's rank among the distinct names ``str(key)``."""
    return groups.codes if isinstance(groups, Keys) else group_names(groups)[1]


@dataclass(frozen=True)
class Keys:
    """Group keys already coded (:func:`group_names`' names and numbers), for keys that came
    coded: named once per distinct key, never once per item."""

    names: list[str]
    codes: Codes

    @classmethod
    def of(cls, distinct: Sequence[object], index: NDArray[np.integer[Any]]) -> Keys:
        """The keys of items given as the distinct keys and each item's index among them (two
        distinct keys of one name, such as ``1`` and ``"1"``, are one group, as per item)."""
        names, rank = group_names(distinct)
        return cls(names, rank[index] if index.size else np.zeros(0, dtype=np.intp))


def members(codes: Codes, n_groups: int) -> list[NDArray[np.intp]]:
    """Per group number ``0 … n_groups - 1``: the positions of its items, in their order (an empty
    array for a group with none; negative codes belong to no group)."""
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n_groups + 1))
    return [order[bounds[i]:bounds[i + 1]] for i in range(n_groups)]


@dataclass(frozen=True)
class Grouped:
    """Items sorted by group: ``order`` (positions into the items) and group boundaries ``starts``
    (group ``i`` is ``order[starts[i]:starts[i + 1]]``; empty groups are left out)."""

    order: NDArray[np.intp]
    starts: NDArray[np.intp]

    @classmethod
    def of(cls, codes: Codes) -> Grouped:
        """The grouping of items with these group numbers."""
        order = np.argsort(codes, kind="stable")
        cuts = np.flatnonzero(np.diff(codes[order])) + 1
        return cls(order, np.concatenate(([0], cuts, [codes.size])).astype(np.intp))

    @property
    def sizes(self) -> NDArray[np.intp]:
        """Items per group."""
        return np.diff(self.starts)

    def constant(self, values: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Per group: whether ``values`` are all equal in it (an empty selection has no group)."""
        if self.order.size == 0:
            return np.zeros(0, dtype=bool)
        v = values[self.order]
        heads = self.starts[:-1]
        return np.asarray(np.minimum.reduceat(v, heads) == np.maximum.reduceat(v, heads))
