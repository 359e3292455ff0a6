"""One item's state: the fold every view reads (export, report, the TUI, calibrate, accuracy).

Per dimension the **effective** score is a lead's adjudication where one stands, else the human
consensus (mean of the reviewers' current scores by default), else the judge panel's score. The
**overall** is :func:`rubrics.aggregate.score_item` on the effective scores with the safety cap
when the item's safety status caps: a weighted (or ceiling) dimension whose judge failed with no
person's score, or that still waits for a person, makes it incomplete (no overall, no band, no
pass, a reason). Rows written for an earlier content revision of the item are left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from reviewer.domain.human import HumanDim, consensus, fold_human, with_vote
from reviewer.domain.judge import JudgeDim, bias, fold_judge
from reviewer.domain.rows import ItemRows
from reviewer.domain.safety import SafetyState, item_safety
from rubrics.aggregate import ItemScore, score_item
from rubrics.schema import Dimension, Rubric

#: Where an effective score came from.
SOURCES = ("adjudication", "human", "judge")


@dataclass(frozen=True)
class DimFold:
    """One dimension of one item."""

    dimension: str
    human: HumanDim
    judge: JudgeDim
    #: the people's consensus (None without a vote)
    consensus: float | None
    effective: float | None
    #: adjudication | human | judge, or None without an effective score
    source: str | None
    #: scored | failed (judge error, no person) | waiting (for a person or the judge) | not_applicable
    state: str
    #: judge panel minus human consensus (None unless both exist)
    bias: float | None

    @property
    def people(self) -> float | None:
        """People's score on the dimension, without the judge: the effective score when it comes
        from a lead's adjudication or the consensus (the human side of a corrected estimate)."""
        return self.effective if self.source in ("adjudication", "human") else None

    @property
    def why(self) -> str | None:
        """Why there is no effective score, in words (None when there is one)."""
        if self.state == "failed":
            return "judge error"
        if self.state == "waiting":
            return "waits for a person" if not self.judge.models else "not scored yet"
        return None


@dataclass(frozen=True)
class ItemFold:
    """An item's state."""

    item_pk: int
    revision: int
    dims: dict[str, DimFold]
    safety: SafetyState
    score: ItemScore
    human_aggregate: str = "mean"
    #: the inputs (for :func:`with_votes`)
    rows: ItemRows | None = field(default=None, repr=False, compare=False)

    @property
    def effective(self) -> dict[str, float | None]:
        """dimension → effective score."""
        return {d: f.effective for d, f in self.dims.items()}


def _dim(dim: Dimension, human: HumanDim, judge: JudgeDim, how: str) -> DimFold:
    cons = consensus(human.scores(), how)
    if human.adjudication is not None:
        eff, source = human.adjudication.score, "adjudication"
    elif cons is not None:
        eff, source = cons, "human"
    elif judge.panel is not None and dim.method != "human":
        eff, source = judge.panel, "judge"
    else:
        eff, source = None, None
    if eff is not None:
        state = "scored"
    elif judge.not_applicable:
        state = "not_applicable"
    elif judge.failed:
        state = "failed"
    else:
        state = "waiting"
    return DimFold(dim.id, human, judge, cons, eff, source, state, bias(judge.panel, cons))


def dim_folds(rubric: Rubric, humans: Mapping[str, HumanDim], judges: Mapping[str, JudgeDim],
              how: str = "mean") -> dict[str, DimFold]:
    """Per dimension of the rubric, its fold from the folded human and judge sides (no overall:
    what a caller needing only people's or the judge's score per dimension reads)."""
    return {d.id: _dim(d, humans.get(d.id) or HumanDim(), judges.get(d.id) or JudgeDim(), how)
            for d in rubric.dimensions}


def resolve(rubric: Rubric, humans: Mapping[str, HumanDim], judges: Mapping[str, JudgeDim],
            safety: SafetyState, item_pk: int = 0, revision: int = 1, how: str = "mean",
            rows: ItemRows | None = None) -> ItemFold:
    """Effective scores and the overall from folded human and judge sides and the safety state."""
    dims = dim_folds(rubric, humans, judges, how)
    score = score_item(rubric, {k: f.effective for k, f in dims.items()}, safety_failed=safety.capped,
                       not_applicable=[k for k, f in dims.items() if f.state == "not_applicable"],
                       why={k: f.why for k, f in dims.items() if f.why})
    return ItemFold(item_pk, revision, dims, safety, score, how, rows)


def fold_item(rubric: Rubric, rows: ItemRows, how: str = "mean", all_revisions: bool = False) -> ItemFold:
    """Fold an item's rows (each list oldest first) into its state under ``rubric``.

    ``how``: the human consensus, mean (default), median or majority. ``all_revisions``: count
    rows of every content revision, not only the item's current one."""
    rev = rows.revision
    humans, judges = sides(rubric, rows, all_revisions)
    flags = [f for f in rows.flags if all_revisions or f.revision == rev]
    safety = item_safety(flags, rows.decisions, rubric.review.safety_signoffs)
    return resolve(rubric, humans, judges, safety, rows.item_pk, rev, how, rows)


def sides(rubric: Rubric, rows: ItemRows, all_revisions: bool = False) -> tuple[dict[str, HumanDim], dict[str, JudgeDim]]:
    """The item's people and judge, folded per dimension (:func:`fold_human`, :func:`fold_judge`)
    from its rows of the current content revision (``all_revisions``: of every revision)."""
    rev = rows.revision
    keep = (lambda r: True) if all_revisions else (lambda r: r.revision == rev)
    humans = fold_human(r for r in rows.human if keep(r))
    judges = fold_judge((r for r in rows.judge if keep(r)), {d.id: d for d in rubric.dimensions},
                        rubric.judge.panel_aggregate)
    return humans, judges


def with_votes(rubric: Rubric, fold: ItemFold, reviewer: str, scores: Mapping[str, float | None]) -> ItemFold:
    """``fold`` as it would be with ``reviewer``'s current scores replaced by ``scores`` (a score
    being entered on screen, before the store has it)."""
    humans = {k: f.human for k, f in fold.dims.items()}
    for dim_id, score in scores.items():
        humans[dim_id] = with_vote(humans.get(dim_id), reviewer, score)
    judges = {k: f.judge for k, f in fold.dims.items()}
    return resolve(rubric, humans, judges, fold.safety, fold.item_pk, fold.revision, fold.human_aggregate,
                   fold.rows)


def judge_only(rubric: Rubric, fold: ItemFold) -> ItemScore:
    """The overall as the judge scores the item: the judge's scores on every dimension it
    scores, people's only on the dimensions only people score (``method: human``)."""
    humans = {d.id: fold.dims[d.id].human if d.method == "human" else HumanDim() for d in rubric.dimensions}
    return resolve(rubric, humans, {k: f.judge for k, f in fold.dims.items()}, fold.safety).score


def humans_only(rubric: Rubric, fold: ItemFold) -> ItemScore:
    """The overall as people alone score the item (a lead's adjudication where one stands): the
    human side of a corrected pass rate. Incomplete unless people scored every weighted dimension."""
    return resolve(rubric, {k: f.human for k, f in fold.dims.items()}, {k: JudgeDim() for k in fold.dims},
                   fold.safety).score
