"""Pair agreement figures, computed by hand on small cases."""

from __future__ import annotations

import pytest

from calibration.pairs import (
    TIE,
    PairObservation,
    judge_preference,
    pair_figures,
    plurality,
    wilson,
)


def test_judge_preference_and_plurality() -> None:
    assert judge_preference(0.9, 0.5, 0.05) == 0
    assert judge_preference(0.5, 0.9, 0.05) == 1
    assert judge_preference(0.70, 0.74, 0.05) == TIE
    assert judge_preference(None, 0.9, 0.05) is None
    assert plurality([1, 1, 0]) == 1
    assert plurality([1, 0]) is None  # an even split has no plurality
    assert plurality([TIE, TIE, 1]) == TIE


def test_wilson_matches_the_textbook_interval() -> None:
    ci = wilson(8, 10)
    assert ci is not None
    lo, hi = ci
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    assert wilson(0, 0) is None


def test_pair_figures() -> None:
    pairs = [
        PairObservation(0.9, 0.4, [0, 0, 1]),  # judge A, humans A: agree
        PairObservation(0.3, 0.8, [0, 0]),  # judge B, humans A: disagree
        PairObservation(0.6, 0.62, [TIE]),  # judge tie, human tie: agree
        PairObservation(0.6, 0.9, [0, 1]),  # humans split: counted, not compared
        PairObservation(None, 0.9, [1]),  # no judge overall: not compared
        PairObservation(0.5, 0.1, []),  # nobody chose: ignored
    ]
    f = pair_figures(pairs)
    assert f["n_pairs"] == 3 and f["split"] == 1 and f["n_choices"] == 9
    assert f["agreement"] == pytest.approx(2 / 3)
    assert f["judge_ties"] == pytest.approx(1 / 3)
    assert f["human_ties"] == pytest.approx(1 / 9)
    # reviewer pairs: (0,0),(0,1),(0,1) in the first; (0,0) in the second; (0,1) in the fourth
    assert f["reviewer_agreement"] == pytest.approx(2 / 5)
    empty = pair_figures([])
    assert empty["agreement"] is None and empty["agreement_ci"] is None and empty["reviewer_agreement"] is None
