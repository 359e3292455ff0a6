"""From a turn-level dimension's turn scores to the item's score, by the rule the rubric names.

FlexEval records one metric value per turn and leaves the roll-up to whoever reads them;
rubricate needs one score per item and dimension (for the overall, export, calibration), so a
turn-level dimension names its rule in ``turn_aggregate``: ``mean`` (the default: every turn
counts alike), ``min`` (the item is as good as its worst turn), ``max`` or ``last``.

Turns that were not applicable (a ``depends_on`` condition did not hold) are left out. A turn
whose score failed makes the item's score a failure too, naming the turn: a roll-up over the
turns that happened to succeed would be a guess.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from rubrics.methods.base import JudgeItem, failed, scored
from rubrics.results import ScoreResult
from rubrics.schema import Dimension


def aggregate(values: Sequence[float], rule: str) -> float:
    """The item's score from its turns' scores (in turn order)."""
    if rule == "min":
        return min(values)
    if rule == "max":
        return max(values)
    if rule == "last":
        return values[-1]
    return statistics.fmean(values)


def roll_up(item: JudgeItem, dim: Dimension, turns: Sequence[ScoreResult], model: str | None) -> ScoreResult:
    """The item-level result of a turn-level dimension (``turn`` None); it costs nothing itself
    (each turn's result carries its call's cost)."""
    part = "tool call" if dim.metric_level == "tool_call" else "turn"
    bad = [r for r in turns if r.error is not None]
    if bad:
        return failed(item, dim, f"{part} {bad[0].turn} failed: {bad[0].error}", model=model)
    good = sorted((r for r in turns if r.ok and r.score is not None), key=lambda r: r.turn or 0)
    if not good:
        role = dim.role or "assistant"
        none = "the conversation makes no tool call" if part == "tool call" else f"the conversation has no {role} turn"
        why = f"every {part} was outside the depends_on condition" if turns else none
        return ScoreResult(item_id=item.id, dimension=dim.id, method=dim.method, model=model,
                           not_applicable=True, rationale=f"not applicable: {why}")
    values = [float(r.score) for r in good if r.score is not None]
    score = aggregate(values, dim.turn_aggregate)
    listed = ", ".join(f"{part} {r.turn}: {r.score:g}" for r in good)
    return scored(item, dim, score, model=model, samples=[score],
                  rationale=f"{dim.turn_aggregate} of {len(good)} {part} scores ({listed})",
                  evidence=[{"turn": r.turn, "score": r.score} for r in good])
