"""How far the judge is from the people on an item: the queue list's "judge and people disagree".

Per dimension the **gap** is |judge panel − people's score| (:attr:`reviewer.domain.item.DimFold.people`: a lead's
adjudication where one stands, else the consensus; the panel's score as the fold has it) as a
fraction of the dimension's scale, the normalisation a panel's spread uses (0–1; 0.5 is half the
scale apart). An item's gap is its largest over the dimensions that have both; None where none
has. Dimensions a group scores together (pairwise) and those where the judge answers on a scale
of its own (``judge_scale``: not comparable, as ``calibrate`` says) have no gap. The item's gap is
stored beside it (``item.human_gap``) and kept current on every write that changes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from reviewer.domain.item import DimFold
from reviewer.domain.judge import PANEL_APART, bias
from rubrics.schema import Dimension, Rubric

#: The judge and people disagree on an item when they are at least this far apart (normalised,
#: 0–1) on some dimension: the same quarter of the scale as a panel's models (:data:`PANEL_APART`).
PEOPLE_APART = PANEL_APART


def dim_gap(dim: Dimension, f: DimFold) -> float | None:
    """|judge − people| on one dimension, normalised; None unless both scored and comparable."""
    if dim.is_pair or dim.judge_scale is not None:
        return None
    apart = bias(f.judge.panel, f.people)
    return None if apart is None else abs(apart) / dim.scale.span


def item_gap(gaps: Iterable[float | None]) -> float | None:
    """An item's gap from its dimensions' (:func:`dim_gap`): the largest; None where none has one."""
    some = [g for g in gaps if g is not None]
    return max(some) if some else None


def human_gap(rubric: Rubric, dims: Mapping[str, DimFold]) -> float | None:
    """The item's gap (:func:`item_gap`) over the rubric's dimensions (``dims``: the fold's,
    ``ItemFold.dims``)."""
    return item_gap(dim_gap(d, dims[d.id]) for d in rubric.dimensions if d.id in dims)
