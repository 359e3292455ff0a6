"""calibration.ranks (correlations with numpy alone) against scipy.stats on the same arrays, and
reviewers._pair_tables against the sparse one-hot product it replaced."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
import pytest
from scipy import sparse, stats

from calibration import ranks
from calibration.agreement import correlation, grouped_correlation
from calibration.reviewers import _pair_tables

Pair = tuple[np.ndarray, np.ndarray]


def _shapes(rng: np.random.Generator, n: int) -> list[Pair]:
    """Scales with few levels, means of a few raters, long runs of one value, continuous data."""
    graded = rng.integers(1, 6, n).astype(float)
    means = rng.integers(3, 16, n) / 3.0
    flips = graded.copy()
    flips[rng.random(n) < 0.3] = 3.0
    cont = rng.normal(size=n)
    binary = (rng.random(n) < 0.2).astype(float)
    return [(graded, rng.integers(1, 6, n).astype(float)), (graded, means), (graded, flips),
            (cont, cont + rng.normal(size=n)), (cont, graded), (binary, graded), (graded, -graded)]


Method = Literal["pearson", "spearman", "kendall"]
SCIPY: dict[Method, Callable[[np.ndarray, np.ndarray], float]] = {
    "pearson": lambda a, b: float(stats.pearsonr(a, b).statistic),
    "spearman": lambda a, b: float(stats.spearmanr(a, b).statistic),
    "kendall": lambda a, b: float(stats.kendalltau(a, b, variant="b").statistic),
}


@pytest.mark.parametrize("n", [3, 17, 400, 5000])
def test_every_correlation_matches_scipy(n: int) -> None:
    rng = np.random.default_rng(n)
    for a, b in _shapes(rng, n):
        if np.all(a == a[0]) or np.all(b == b[0]):
            continue
        for method, want in SCIPY.items():
            assert correlation(a, b, method) == pytest.approx(want(a, b), abs=1e-12), (method, n)


@pytest.mark.parametrize("n", [2, 9, 300, 4000])
def test_kendall_by_table_and_by_merge_agree_with_scipy(n: int) -> None:
    """Both ways of counting discordant pairs: the contingency table (few distinct values) and the
    merge (forced here with ``table_cells=0``); they are exact integers, so they agree exactly."""
    rng = np.random.default_rng(7 + n)
    for a, b in _shapes(rng, n):
        if np.unique(a).size < 2 or np.unique(b).size < 2:
            assert ranks.kendall_tau_b(a, b) is None
            continue
        by_table, by_merge = ranks.kendall_tau_b(a, b), ranks.kendall_tau_b(a, b, table_cells=0)
        assert by_table == by_merge
        assert by_table == pytest.approx(SCIPY["kendall"](a, b), abs=1e-12)


def test_inversions_counts_pairs_out_of_order() -> None:
    rng = np.random.default_rng(3)
    for n in (0, 1, 2, 3, 8, 33, 257):
        y = rng.integers(0, 5, n).astype(np.int64)
        want = sum(int(y[i] > y[j]) for i in range(n) for j in range(i + 1, n))
        assert ranks.inversions(y) == want


def test_average_ranks_are_scipys_rankdata() -> None:
    rng = np.random.default_rng(5)
    for x in (rng.integers(1, 4, 1000).astype(float), rng.normal(size=50), np.array([2.0, 2.0, 2.0]), np.array([1.0])):
        assert np.array_equal(ranks.average_ranks(x), stats.rankdata(x))


def test_pearson_of_huge_values_does_not_overflow() -> None:
    a = np.array([1e200, -3e200, 2e200, 5e199])
    b = np.array([2e200, -1e200, 4e200, 1e199])
    assert ranks.pearson(a, b) == pytest.approx(SCIPY["pearson"](a, b), abs=1e-12)
    assert ranks.pearson(a, b) == pytest.approx(ranks.pearson(a / 1e200, b / 1e200), abs=1e-12)


def test_constant_sides_give_none() -> None:
    a = np.array([1.0, 2.0, 3.0, 4.0])
    flat = np.full(4, 2.0)
    assert ranks.pearson(a, flat) is None and ranks.spearman(flat, a) is None and ranks.kendall_tau_b(a, flat) is None


def test_grouped_correlation_matches_scipy_group_by_group() -> None:
    rng = np.random.default_rng(11)
    a, b = rng.integers(1, 6, 600).astype(float), rng.integers(1, 6, 600).astype(float)
    groups = [f"g{i % 7}" for i in range(600)]
    for method, want in SCIPY.items():
        per = [want(a[[g == k for g in groups]], b[[g == k for g in groups]]) for k in sorted(set(groups))]
        got, kept = grouped_correlation(a, b, groups, method)
        assert kept == 7
        assert got == pytest.approx(float(np.mean(per)), abs=1e-12)


@pytest.mark.parametrize("chunk", [1, 5, 1 << 22])
def test_pair_tables_are_the_one_hot_product(chunk: int) -> None:
    """Reviewer pair tables counted unit by unit (in chunks of pairs) equal the sparse one-hot
    product; a unit with 70 raters is among them."""
    rng = np.random.default_rng(chunk)
    units, r_n, q = 120, 70, 4
    seen = rng.random((units, r_n)) < 0.06
    seen[17] = True
    u_idx, r_idx = np.nonzero(seen)
    cell = r_idx * q + rng.integers(0, q, u_idx.size)
    onehot = sparse.csr_matrix((np.ones(u_idx.size), (u_idx, cell)), shape=(units, r_n * q))
    want = np.asarray((onehot.T @ onehot).todense())
    assert np.array_equal(_pair_tables(u_idx.astype(np.int64), cell.astype(np.int64), r_n * q, chunk), want)
