"""The judge's side of one item: each model's latest answer per dimension and the panel.

Per (dimension, model) the latest row counts (a later run's answer replaces an earlier error).
The panel score is the mean (or median, ``judge.panel_aggregate``) of the models that gave a
score. **Spread** is the panel's disagreement on a dimension: highest minus lowest of the models'
*normalised* scores (0–1), None with fewer than two scores. **Bias** is always judge minus human.
Turn-level rows (conversations) are not the item's score and are left out of :func:`fold_judge`;
:func:`fold_turns` folds them per turn, by the same panel rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from reviewer.domain.rows import JudgeRow
from rubrics.aggregate import panel_score, panel_spread
from rubrics.schema import Dimension

#: How a row with no model name is keyed among a panel's models.
NO_MODEL = "judge"
#: A panel disagrees on an item when its models are at least this far apart (normalised, 0–1) on
#: some dimension: a quarter of the scale (``judge`` says so after a run; the queue list filters by it).
PANEL_APART = 0.25


@dataclass(frozen=True)
class JudgeDim:
    """The judge on one dimension of one item."""

    #: model → its latest row
    models: dict[str, JudgeRow] = field(default_factory=dict)
    #: the panel's score (None when no model gave one)
    panel: float | None = None
    #: highest minus lowest normalised score between the models (None under two scores)
    spread: float | None = None

    @property
    def scores(self) -> dict[str, float]:
        """model → score, for the models that gave one."""
        return {m: r.score for m, r in self.models.items() if r.score is not None}

    @property
    def error(self) -> str | None:
        """The first error among the models' latest rows (some may still have scored)."""
        return next((r.error for r in self.models.values() if r.error), None)

    @property
    def not_applicable(self) -> bool:
        """Every model's latest answer is "does not apply" (``depends_on`` not met)."""
        return bool(self.models) and all(r.not_applicable and r.score is None and not r.error
                                         for r in self.models.values())

    @property
    def failed(self) -> bool:
        """No model gave a score and some model's call failed."""
        return self.panel is None and self.error is not None


def spread(normalised: Iterable[float]) -> float | None:
    """The one definition of a panel's spread: max − min of the models' normalised scores."""
    return panel_spread(list(normalised))


def bias(judge: float | None, human: float | None) -> float | None:
    """The one sign of bias: judge minus human (positive: the judge scores higher)."""
    if judge is None or human is None:
        return None
    return judge - human


def fold_judge(rows: Iterable[JudgeRow], dims: dict[str, Dimension], how: str = "mean") -> dict[str, JudgeDim]:
    """Per dimension the models' latest rows, the panel score and the spread (``rows`` oldest
    first; ``dims``: the rubric's dimensions by id, for normalising)."""
    latest: dict[str, dict[str, JudgeRow]] = {}
    for r in rows:
        if r.turn is not None:
            continue
        latest.setdefault(r.dimension, {})[r.model or NO_MODEL] = r
    out = {}
    for dim_id, models in latest.items():
        ok = [r for r in models.values() if r.score is not None]
        d = dims.get(dim_id)
        scale = (d.judge_scale or d.scale) if d is not None else None
        norms = [r.normalised if r.normalised is not None else
                 (scale.normalise(r.score) if scale is not None and r.score is not None else None) for r in ok]
        out[dim_id] = JudgeDim(models, panel_score([r.score for r in ok if r.score is not None], how),
                               spread(n for n in norms if n is not None))
    return out


@dataclass(frozen=True)
class TurnScore:
    """The judge on one turn of a turn-level dimension (a conversation scored turn by turn)."""

    #: the turn's ordinal among the dimension's role's turns, from 0
    turn: int
    #: model → its score on this turn
    scores: dict[str, float] = field(default_factory=dict)
    #: the panel's score on this turn, by the same rule as an item's (None when no model scored)
    score: float | None = None
    error: str | None = None
    not_applicable: bool = False


def fold_turns(rows: Iterable[Any], how: str = "mean") -> dict[str, list[TurnScore]]:
    """Per dimension, its turns in order: each model's latest row per turn and the panel's score
    (``rows`` oldest first, with ``dimension``, ``model``, ``turn``, ``score``, ``error``,
    ``not_applicable``; rows without a turn are the item's and left out)."""
    latest: dict[str, dict[int, dict[str, Any]]] = {}
    for r in rows:
        if r.turn is not None:
            latest.setdefault(r.dimension, {}).setdefault(int(r.turn), {})[r.model or NO_MODEL] = r
    out: dict[str, list[TurnScore]] = {}
    for dim_id, turns in latest.items():
        out[dim_id] = []
        for turn in sorted(turns):
            models = turns[turn]
            scores = {m: float(r.score) for m, r in models.items() if r.score is not None}
            error = None if scores else next((r.error for r in models.values() if r.error), None)
            out[dim_id].append(TurnScore(turn, scores, panel_score(list(scores.values()), how), error,
                                         not scores and error is None))
    return out
