"""The domain layer: pure folds of an item's stored rows into its state. No SQL, no UI.

One definition each, documented in ``docs/semantics.md``: the current human score per reviewer,
the consensus and a lead's adjudication (:mod:`.human`); the judge per model, the panel, spread and
bias (:mod:`.judge`); safety status over all flags (:mod:`.safety`); effective scores and the overall
with its incomplete rule (:mod:`.item`); how far the judge is from the people (:mod:`.gap`). Every view of an item reads it through :func:`fold_item`.
"""

from reviewer.domain.gap import PEOPLE_APART, dim_gap, human_gap, item_gap
from reviewer.domain.human import (
    AGGREGATES,
    HumanDim,
    Vote,
    complete_reviews,
    consensus,
    fold_human,
    scored_by,
)
from reviewer.domain.item import (
    DimFold,
    ItemFold,
    dim_folds,
    fold_item,
    humans_only,
    judge_only,
    resolve,
    sides,
    with_votes,
)
from reviewer.domain.judge import (
    NO_MODEL,
    PANEL_APART,
    JudgeDim,
    TurnScore,
    bias,
    fold_judge,
    fold_turns,
    spread,
)
from reviewer.domain.rows import DecisionRow, FlagRow, HumanRow, ItemRows, JudgeRow, revision_of
from reviewer.domain.safety import FlagState, SafetyState, flag_status, item_safety, safety_status

__all__ = [
    "AGGREGATES", "NO_MODEL", "PANEL_APART", "DecisionRow", "DimFold", "FlagRow", "FlagState", "HumanDim", "HumanRow",
    "ItemFold", "ItemRows", "JudgeDim", "JudgeRow", "PEOPLE_APART", "SafetyState", "TurnScore", "Vote", "bias", "complete_reviews",
    "consensus", "dim_folds", "dim_gap", "flag_status", "fold_human", "fold_item", "fold_judge", "fold_turns", "human_gap", "humans_only", "item_gap", "item_safety",
    "judge_only", "resolve", "revision_of", "safety_status", "scored_by", "sides", "spread", "with_votes",
]
