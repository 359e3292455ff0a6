"""PPI++ estimates: equal to the authors' ppi-python package, and intervals that cover the truth."""

from __future__ import annotations

import numpy as np
import pytest

from calibration import ppi

ppi_py = pytest.importorskip("ppi_py", reason="ppi-python is a dev dependency (pyproject [dev])")


def _data(seed: int, n: int = 150, big_n: int = 3000, bias: float = 0.4, noise: float = 0.7,
          discrete: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.normal(3.0, 1.0, n + big_n)
    judge = truth + bias + rng.normal(0.0, noise, n + big_n)
    if discrete:
        truth, judge = np.clip(np.rint(truth), 1, 5), np.clip(np.rint(judge), 1, 5)
    return truth[:n], judge[:n], judge[n:]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("discrete", [False, True])
def test_point_estimate_and_interval_equal_the_package(seed: int, discrete: bool) -> None:
    y, yhat, yu = _data(seed, discrete=discrete)
    assert ppi.ppi_mean(y, yhat, yu) == pytest.approx(
        float(ppi_py.ppi_mean_pointestimate(y, yhat, yu)[0]), abs=1e-9)
    for confidence in (0.95, 0.9):
        lo, hi = ppi.ppi_mean_interval(y, yhat, yu, confidence)
        plo, phi = ppi_py.ppi_mean_ci(y, yhat, yu, alpha=1 - confidence)
        assert (lo, hi) == pytest.approx((float(plo[0]), float(phi[0])), abs=1e-9)
    hlo, hhi = ppi.classical_interval(y)
    clo, chi = ppi_py.classical_mean_ci(y, alpha=0.05)
    assert (hlo, hhi) == pytest.approx((float(clo), float(chi)), abs=1e-9)


def test_binary_pass_rates_equal_the_package() -> None:
    rng = np.random.default_rng(7)
    truth = rng.random(4000) < 0.62
    judge = np.where(rng.random(4000) < 0.85, truth, ~truth) | (rng.random(4000) < 0.1)
    y, yhat, yu = truth[:300].astype(float), judge[:300].astype(float), judge[300:].astype(float)
    lo, hi = ppi.ppi_mean_interval(y, yhat, yu)
    plo, phi = ppi_py.ppi_mean_ci(y, yhat, yu, alpha=0.05)
    assert lo == pytest.approx(float(plo[0]), abs=1e-9) and hi == pytest.approx(float(phi[0]), abs=1e-9)


def test_lambda_is_zero_for_an_uninformative_judge_and_clipped_to_one() -> None:
    rng = np.random.default_rng(1)
    y = rng.normal(size=200)
    assert ppi.tuned_lambda(y, -y, rng.normal(size=2000)) == 0.0  # anti-correlated: clipped at 0
    assert ppi.tuned_lambda(y, 3 * y, 3 * rng.normal(size=10)) <= 1.0
    const = np.full(200, 4.0)
    assert ppi.tuned_lambda(y, const, np.full(50, 4.0)) == 0.0  # a constant judge carries nothing


def test_coverage_of_a_thousand_synthetic_datasets() -> None:
    """A biased, noisy judge: the 95% intervals cover the true mean 93-97% of the time, and PPI's
    interval is narrower than the humans' own whenever the judge follows people."""
    truth_mean, covered, covered_h, widths, widths_h = 3.0, 0, 0, [], []
    judge_mean: list[float] = []
    for seed in range(1000):
        y, yhat, yu = _data(10_000 + seed, n=120, big_n=2000, bias=0.6, noise=0.6)
        e = ppi.estimate_mean(y, yhat, yu)
        assert e.ppi_ci is not None and e.humans_ci is not None
        covered += e.ppi_ci[0] <= truth_mean <= e.ppi_ci[1]
        covered_h += e.humans_ci[0] <= truth_mean <= e.humans_ci[1]
        widths.append(e.ppi_ci[1] - e.ppi_ci[0])
        widths_h.append(e.humans_ci[1] - e.humans_ci[0])
        assert e.judge_only is not None
        judge_mean.append(e.judge_only)
    print(f"coverage ppi {covered / 10:.1f}%  humans {covered_h / 10:.1f}%  "
          f"mean width ppi {np.mean(widths):.4f}  humans {np.mean(widths_h):.4f}")
    assert 930 <= covered <= 970
    assert 930 <= covered_h <= 970
    assert np.mean(widths) < 0.8 * np.mean(widths_h)
    # The judge alone is biased by exactly its error: its "estimate" misses the truth.
    assert abs(np.mean(judge_mean) - truth_mean - 0.6) < 0.02


def test_effective_labels_and_labels_for_a_width() -> None:
    y, yhat, yu = _data(3, n=200, big_n=20_000, bias=0.2, noise=0.3)
    e = ppi.estimate_mean(y, yhat, yu)
    assert e.effective_labels is not None and e.effective_labels > 2 * e.n_labelled
    assert e.ppi_ci is not None
    width = e.ppi_ci[1] - e.ppi_ci[0]
    assert ppi.labels_for_width(y, yhat, yu, width * 1.01) == 0
    more = ppi.labels_for_width(y, yhat, yu, width / 2)
    assert more is not None and more > 2 * e.n_labelled  # halving a width takes about 4x the labels
    # With few unlabelled items the judge's term is a floor; the plan falls back towards lam = 0,
    # where the humans' own interval shrinks as 1/sqrt(n).
    tiny = ppi.labels_for_width(y, yhat, yu[:5], 0.01)
    assert tiny is not None and (y.size + tiny) == pytest.approx(
        (2 * 1.959963984540054 * np.std(y) / 0.01) ** 2, rel=0.05)
    assert ppi.labels_for_width(np.ones(10), np.ones(10), yu, 0.01) is None  # nothing to plan with


def test_small_samples_are_estimated_with_a_warning_and_tiny_ones_refused() -> None:
    y, yhat, yu = _data(5, n=20)
    e = ppi.estimate_mean(y, yhat, yu)
    assert e.ppi is not None and e.warning is not None and "fewer than 30" in e.warning
    e1 = ppi.estimate_mean(y[:1], yhat[:1], yu)
    assert e1.ppi is None and e1.ppi_ci is None and e1.warning and "at least 2" in e1.warning
    e0 = ppi.estimate_mean(y, yhat, [])
    assert e0.ppi is None and e0.warning and "no unlabelled" in e0.warning
    assert set(e.as_json()) == {"judge_only", "humans_only", "humans_ci", "ppi", "ppi_ci", "n_labelled",
                                "n_unlabelled", "lambda", "effective_labels", "warning"}


def test_ranking_changes_where_the_judge_is_biased_per_group() -> None:
    rng = np.random.default_rng(11)
    groups = {}
    for name, true_mean, judge_bias in (("a", 3.0, 0.8), ("b", 3.5, 0.0), ("c", 2.0, 0.0)):
        truth = rng.normal(true_mean, 0.8, 3000)
        judge = truth + judge_bias + rng.normal(0, 0.4, 3000)
        groups[name] = (truth[:300], judge[:300], judge[300:])
    ranked = ppi.rank_groups(groups)
    assert [r.group for r in ranked] == ["b", "a", "c"]
    assert {r.group: r.judge_rank for r in ranked} == {"a": 1, "b": 2, "c": 3}
    assert ranked[2].rank_probability > 0.99 and 0.9 < ranked[0].rank_probability <= 1.0


def test_moments_from_sums_give_the_same_estimate_as_the_array() -> None:
    """A store can hand the unlabelled side over as count, sum and sum of squares (SQL)."""
    y, yhat, yu = _data(21, big_n=50_000, discrete=True)
    m = ppi.Moments.from_sums(yu.size, float(yu.sum()), float((yu * yu).sum()))
    a, b = ppi.estimate_mean(y, yhat, yu), ppi.estimate_mean(y, yhat, m)
    for key in ("judge_only", "ppi", "lam", "effective_labels"):
        assert getattr(b, key) == pytest.approx(getattr(a, key), rel=1e-9, abs=1e-12)
    assert b.ppi_ci == pytest.approx(a.ppi_ci, rel=1e-9)
    assert ppi.labels_for_width(y, yhat, m, 0.02) == ppi.labels_for_width(y, yhat, yu, 0.02)
