"""The domain fold on plain rows (no database): each rule of docs/semantics.md once."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.domain import (
    DecisionRow,
    FlagRow,
    HumanRow,
    ItemRows,
    JudgeRow,
    bias,
    consensus,
    fold_human,
    fold_item,
    item_safety,
    spread,
    with_votes,
)
from rubrics.loader import load_rubric_text

RUBRIC = load_rubric_text((Path(__file__).parent / "fold-test.yaml").read_text(encoding="utf-8"))


def _judge(*scores: tuple[str, float | None], model: str = "m1", error: str | None = None) -> list[JudgeRow]:
    return [JudgeRow(i, d, model, s, None, error if s is None else None) for i, (d, s) in enumerate(scores, start=100)]


def test_undo_withdraws_the_latest_standing_row_and_restores_nothing() -> None:
    rows = [HumanRow(1, "accuracy", "lee", 2), HumanRow(2, "accuracy", "lee", 4, kind="adjudication"),
            HumanRow(3, "accuracy", "lee", None, kind="undo"), HumanRow(4, "accuracy", "ana", 3),
            HumanRow(5, "accuracy", "ana", 5), HumanRow(6, "accuracy", "ana", None, kind="undo")]
    dim = fold_human(rows)["accuracy"]
    assert dim.adjudication is None  # the undo took back the adjudication, the latest row
    assert {w: v.score for w, v in dim.votes.items()} == {"lee": 2.0}  # ana's 3 does not come back


def test_blind_score_revised_after_the_reveal() -> None:
    rows = [HumanRow(1, "clarity", "ana", 2, blind=True), HumanRow(2, "clarity", "ana", 4, kind="revision")]
    vote = fold_human(rows)["clarity"].votes["ana"]
    assert (vote.score, vote.first_blind, vote.kind) == (4.0, 2.0, "revision")


def test_consensus_mean_median_majority() -> None:
    assert consensus([1, 2, 2, 5]) == 2.5
    assert consensus([1, 2, 2, 5], "median") == 2.0
    assert consensus([1, 2, 2, 5, 5], "majority") == 2.0  # a tie goes to the lower score
    assert consensus([]) is None


def test_spread_is_normalised_and_bias_is_judge_minus_human() -> None:
    assert spread([0.25, 1.0, 0.5]) == 0.75 and spread([0.5]) is None
    assert bias(4.0, 3.0) == 1.0 and bias(None, 3.0) is None
    rows = ItemRows(1, judge=_judge(("accuracy", 5)) + _judge(("accuracy", 2), model="m2"),
                    human=[HumanRow(1, "accuracy", "ana", 4)])
    f = fold_item(RUBRIC, rows).dims["accuracy"]
    assert f.judge.panel == 3.5 and f.judge.spread == 0.75 and f.bias == -0.5


def test_adjudication_settles_and_is_not_a_vote() -> None:
    rows = ItemRows(1, judge=_judge(("accuracy", 5)), human=[
        HumanRow(1, "accuracy", "ana", 2), HumanRow(2, "accuracy", "ben", 3), HumanRow(3, "accuracy", "lee", 3),
        HumanRow(4, "accuracy", "lee", 3, kind="adjudication")])
    f = fold_item(RUBRIC, rows).dims["accuracy"]
    assert (f.effective, f.source) == (3.0, "adjudication") and f.consensus == pytest.approx(8 / 3)


def test_overall_incomplete_reasons_and_not_applicable() -> None:
    judged = _judge(("accuracy", 5), ("clarity", None), error="timeout")
    fold = fold_item(RUBRIC, ItemRows(1, judge=judged))
    assert fold.score.overall is None
    assert fold.score.reason == "clarity: judge error; empathy: waits for a person"
    na = [JudgeRow(9, "clarity", "m1", None, not_applicable=True)]
    fold = fold_item(RUBRIC, ItemRows(1, judge=_judge(("accuracy", 5)) + na,
                                      human=[HumanRow(1, "empathy", "ana", 5)]))
    assert fold.dims["clarity"].state == "not_applicable" and fold.score.overall == pytest.approx(1.0)


def test_a_later_error_leaves_the_model_without_a_score() -> None:
    rows = _judge(("accuracy", 4)) + [JudgeRow(200, "accuracy", "m1", None, error="timeout")]
    f = fold_item(RUBRIC, ItemRows(1, judge=rows)).dims["accuracy"]
    assert f.state == "failed" and f.effective is None


def test_rows_of_an_earlier_content_revision_do_not_count() -> None:
    rows = ItemRows(1, revision=2, judge=[JudgeRow(1, "accuracy", "m1", 5, revision=1)],
                    human=[HumanRow(1, "accuracy", "ana", 2, revision=1), HumanRow(2, "clarity", "ana", 3, revision=2)])
    fold = fold_item(RUBRIC, rows)
    assert fold.effective["accuracy"] is None and fold.effective["clarity"] == 3.0
    assert fold_item(RUBRIC, rows, all_revisions=True).effective["accuracy"] == 2.0


def test_item_safety_over_all_flags() -> None:
    flags = [FlagRow(1, "pii"), FlagRow(2, "pii")]
    confirm_one_clear_other = [DecisionRow(1, 1, "sam", "confirm"), DecisionRow(2, 2, "sam", "clear")]
    state = item_safety(flags, confirm_one_clear_other)
    assert state.status == "confirmed" and state.capped and not state.pending
    assert item_safety(flags, [DecisionRow(1, 1, "sam", "clear")]).status == "open"
    both = [DecisionRow(1, 1, "sam", "clear"), DecisionRow(2, 2, "sol", "clear")]
    assert item_safety(flags, both).status == "cleared" and not item_safety(flags, both).capped
    assert item_safety(flags, both, signoffs_needed=2).status == "open"  # one person per flag
    escalated = [DecisionRow(1, 1, "sam", "escalate"), DecisionRow(2, 1, "sam", "clear")]
    assert item_safety(flags[:1], escalated).status == "escalated"  # the escalator alone cannot clear
    assert item_safety([], []).status == "none"


def test_with_votes_is_the_fold_with_that_row_appended() -> None:
    base = ItemRows(1, judge=_judge(("accuracy", 5), ("clarity", 5)), human=[HumanRow(1, "empathy", "ben", 1)])
    fold = fold_item(RUBRIC, base)
    live = with_votes(RUBRIC, fold, "ana", {"accuracy": 2.0, "empathy": 5.0})
    appended = ItemRows(1, judge=base.judge, human=[*base.human, HumanRow(2, "accuracy", "ana", 2),
                                                     HumanRow(3, "empathy", "ana", 5)])
    assert live.score == fold_item(RUBRIC, appended).score and live.effective == fold_item(RUBRIC, appended).effective
