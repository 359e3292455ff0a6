"""Pair-verdict figures against values worked out by hand (calibration.pair_verdicts)."""

from __future__ import annotations

import pytest

from calibration.pair_verdicts import JudgedPair, verdict_figures

#: Five pairs of items 1–10 (module docstring of calibration.pair_verdicts):
#: (1, 2) people 1, 1, 2 (majority 1), judged in both orders, the first shown picked each time: a flip;
#: (3, 4) people tie, tie; the judge a tie: agreement on a tie;
#: (5, 6) people 6; the judge 5: disagreement;
#: (7, 8) people split 7 / 8: not compared;
#: (9, 10) nobody; judged a tie in both orders: no flip.
VERDICTS = [
    JudgedPair(1, 2, 1, [1, 1, 2]),
    JudgedPair(2, 1, 2, [1, 1, 2]),
    JudgedPair(3, 4, None, [None, None]),
    JudgedPair(5, 6, 5, [6]),
    JudgedPair(7, 8, 7, [7, 8]),
    JudgedPair(9, 10, None, []),
    JudgedPair(10, 9, None, []),
]


def test_figures_match_the_hand_computed_values() -> None:
    f = verdict_figures(VERDICTS, draws=0)
    assert (f["n_verdicts"], f["n_compared"], f["split"], f["unjudged"]) == (7, 4, 1, 2)
    # agreement: (1,2)→1 agrees, (2,1)→2 does not, the tie agrees, 5 for 6 does not: 2 of 4
    assert f["agreement"] == 0.5
    # Wilson 95 % for 2 of 4: centre 0.5, half-width 1.96·√(1/16 + 1.96²/64) / (1 + 1.96²/4) = 0.34996
    assert f["agreement_ci"] == pytest.approx([0.15004, 0.84996], abs=1e-4)
    # κ in shown order (judge row, people column): (a,a), (a,b), (tie,tie), (a,b)
    # po = 2/4; judge margins a 3, b 0, tie 1; people a 1, b 2, tie 1; pe = (3·1 + 0·2 + 1·1)/16 = 1/4
    # κ = (1/2 − 1/4) / (1 − 1/4) = 1/3
    assert f["kappa"] == pytest.approx(1 / 3)
    assert f["kappa_ci"] is None  # no draws asked for
    # ties: (3,4), (9,10), (10,9) of 7
    assert f["tie_rate"] == pytest.approx(3 / 7)
    # position: the 4 verdicts that pick an item all pick the one shown first
    assert (f["n_decisive"], f["a_share"]) == (4, 1.0)
    assert f["a_share_ci"] == pytest.approx([0.5101, 1.0], abs=1e-4)  # Wilson for 4 of 4
    # both orders: (1,2) flipped (1, then 2), (9,10) did not (tie both times)
    assert (f["n_both_orders"], f["flips"], f["flip_rate"]) == (2, 1, 0.5)


def test_kappa_interval_is_seeded_and_holds_the_estimate() -> None:
    many = VERDICTS * 10
    f = verdict_figures(many, draws=500, seed=3)
    assert f["kappa"] == pytest.approx(1 / 3)  # the same table ten times over
    lo, hi = f["kappa_ci"]
    assert lo < 1 / 3 < hi
    assert verdict_figures(many, draws=500, seed=3)["kappa_ci"] == [lo, hi]


def test_perfect_agreement_and_a_judge_without_people() -> None:
    same = [JudgedPair(1, 2, 1, [1]), JudgedPair(3, 4, 4, [4]), JudgedPair(5, 6, None, [None])]
    f = verdict_figures(same, draws=0)
    assert (f["agreement"], f["kappa"]) == (1.0, 1.0)
    assert f["a_share"] == 0.5
    alone = verdict_figures([JudgedPair(1, 2, 2, [])], draws=0)
    assert (alone["n_compared"], alone["agreement"], alone["kappa"], alone["a_share"]) == (0, None, None, 0.0)


def test_a_flip_is_any_change_of_verdict_between_the_two_orders() -> None:
    """The same winner both ways is no flip; a tie one way and a pick the other is one."""
    steady = verdict_figures([JudgedPair(1, 2, 2, []), JudgedPair(2, 1, 2, [])], draws=0)
    assert (steady["n_both_orders"], steady["flips"], steady["a_share"]) == (1, 0, 0.5)
    wavering = verdict_figures([JudgedPair(1, 2, None, []), JudgedPair(2, 1, 1, [])], draws=0)
    assert (wavering["n_both_orders"], wavering["flips"], wavering["flip_rate"]) == (1, 1, 1.0)
