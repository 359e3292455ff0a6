"""Trust status, reasons in words, and nulls with their reasons."""

from __future__ import annotations

import numpy as np

from calibration.report import DimensionInput, TrustBounds, dimension_report
from calibration.routing import DimSignal, item_priority

LEVELS = list(range(1, 11))


def _make(noise_judge: float, noise_human: float, n: int = 200, seed: int = 0) -> DimensionInput:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 11, n).astype(float)
    judge = np.clip(np.round(truth + rng.normal(0, noise_judge, n)), 1, 10)
    humans = np.clip(np.round(truth[:, None] + rng.normal(0, noise_human, (n, 2))), 1, 10)
    return DimensionInput("accuracy", judge, humans, LEVELS, threshold_raw=7.3)


def test_a_good_judge_is_trusted() -> None:
    rep = dimension_report(_make(0.3, 0.3))
    assert rep.figures["status"] == "trusted"
    assert rep.figures["alpha_ci"][0] >= 0.8


def test_gwet_ac1_and_ac2_sit_beside_kappa() -> None:
    from calibration.agreement import gwet_from_table, table

    inp = _make(0.3, 0.3)
    f = dimension_report(inp).figures
    t = table(inp.judge, inp.humans.mean(axis=1), LEVELS)
    assert f["gwet_ac1"] == gwet_from_table(t, "unweighted") and f["gwet_ac2"] == gwet_from_table(t, "quadratic")
    assert f["gwet_ac1"] is not None and f["gwet_ac1"] < f["gwet_ac2"]  # near misses count in AC2


def test_a_noisy_judge_with_agreeing_humans_is_the_problem() -> None:
    rep = dimension_report(_make(4.0, 0.3))
    assert rep.figures["status"] == "low_confidence"
    assert "the judge is the problem" in rep.figures["reason"]


def test_the_judge_is_blamed_only_when_humans_are_ahead_by_the_margin() -> None:
    from calibration.report import HUMANS_AHEAD_BY, _status

    figures = {"n": 100, "alpha": 0.7, "alpha_ci": [0.65, 0.75]}
    _, ahead = _status({**figures, "alpha_humans": 0.7 + 1.5 * HUMANS_AHEAD_BY}, TrustBounds())
    _, close = _status({**figures, "alpha_humans": 0.7 + 0.5 * HUMANS_AHEAD_BY}, TrustBounds())
    assert ahead.endswith("the judge is the problem")
    assert close.endswith(f"humans agree at {0.7 + 0.5 * HUMANS_AHEAD_BY:.2f}")


def test_too_few_items_is_insufficient_data() -> None:
    rep = dimension_report(_make(0.3, 0.3, n=12), TrustBounds(min_n=30))
    assert rep.figures["status"] == "insufficient_data"
    assert "fewer than 30" in rep.figures["reason"]


def test_no_pairs_gives_nulls_with_reasons() -> None:
    inp = DimensionInput("x", np.array([5.0, 6.0]), np.full((2, 1), np.nan), LEVELS, 7.0)
    rep = dimension_report(inp)
    assert rep.figures["alpha"] is None and "no item has both" in rep.null_reasons["alpha"]


def test_other_scale_keeps_correlations_drops_alpha() -> None:
    inp = _make(0.3, 0.3)
    inp.comparable = False
    inp.judge = inp.judge / 10.0
    rep = dimension_report(inp)
    assert rep.figures["alpha"] is None and "another scale" in rep.null_reasons["alpha"]
    assert rep.figures["spearman"] > 0.8


def test_bootstrap_is_seeded() -> None:
    a = dimension_report(_make(1.0, 0.5), seed=5).figures["alpha_ci"]
    b = dimension_report(_make(1.0, 0.5), seed=5).figures["alpha_ci"]
    assert a == b


def test_routing_puts_errors_first() -> None:
    calm = {"a": DimSignal("trusted", 0.9, 0.7, 0.0, 0.95)}
    near = {"a": DimSignal("low_confidence", 0.7, 0.7, 0.2, 0.5)}
    assert item_priority(near) > item_priority(calm)
    assert item_priority({"a": DimSignal("trusted", error=True)}) > item_priority(near)
