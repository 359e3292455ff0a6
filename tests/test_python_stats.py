"""``rubricate.stats`` (the Python API's statistics on plain lists) against the reference numbers
the calibration tests use: Krippendorff's published alphas at every level, irrCAC's published
kappas, scipy's correlations and the authors' ppi-python package for the corrected mean; bad
input refused in one line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import cast

import numpy as np
import pytest
from scipy import stats as scipy_stats

from rubricate import stats

REF = json.loads((Path(__file__).resolve().parent / "data" / "agreement_vectors.json").read_text())
ppi_py = pytest.importorskip("ppi_py", reason="ppi-python is a dev dependency (pyproject [dev])")


def _units(rows: list[list[float | None]]) -> list[list[float | None]]:
    """The file's rows are coders; the API takes one row per item (unit), as plain lists."""
    return [list(unit) for unit in zip(*rows, strict=True)]


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_is_krippendorffs_published_value(level: stats.Level) -> None:
    entry = REF["krippendorff_2011"]
    value = stats.alpha(_units(entry["data"]), level)
    assert value is not None and round(value, 3) == entry["published"][level]


@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_alpha_to_six_places(level: stats.Level) -> None:
    entry = REF["krippendorff_wikipedia"]
    value = stats.alpha(_units(entry["data"]), level)
    assert value is not None and round(value, 6) == entry["published"][level]


@pytest.mark.parametrize("kind", ["unweighted", "linear", "quadratic"])
def test_kappa_is_irrcacs_published_value(kind: stats.Weighting) -> None:
    """The published 3 × 3 table, spelled out as two raters' scores of each item."""
    entry = REF["contingency_3x3"]
    table = np.array(entry["table_rows_rater1_cols_rater2"], dtype=int)
    a = [i for i in range(3) for j in range(3) for _ in range(table[i, j])]
    b = [j for i in range(3) for j in range(3) for _ in range(table[i, j])]
    value = stats.kappa(a, b, levels=[0, 1, 2], weighting=kind)
    pub = entry[kind]
    published = pub.get("cohen", pub.get("cohen_kappa"))
    places = 7 if kind == "unweighted" else 3
    assert value is not None and round(value, places) == pytest.approx(published, abs=1e-12)
    assert stats.kappa(a, b, weighting=kind) == value  # the levels default to the values given


@pytest.mark.parametrize("seed", range(4))
def test_correlations_are_scipys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 6, 60).tolist()
    b = (np.array(a) + rng.integers(-1, 2, 60)).tolist()
    assert stats.pearson(a, b) == pytest.approx(scipy_stats.pearsonr(a, b)[0], abs=1e-12)
    assert stats.spearman(a, b) == pytest.approx(scipy_stats.spearmanr(a, b)[0], abs=1e-12)
    assert stats.kendall(a, b) == pytest.approx(scipy_stats.kendalltau(a, b)[0], abs=1e-12)


def test_corrected_mean_is_the_packages() -> None:
    rng = np.random.default_rng(11)
    truth = rng.normal(3.0, 1.0, 1200)
    judge = truth + 0.4 + rng.normal(0.0, 0.7, 1200)
    y, yhat, yu = truth[:150].tolist(), judge[:150].tolist(), judge[150:].tolist()
    est = stats.corrected_mean(y, yhat, yu, confidence=0.9)
    assert est.ppi == pytest.approx(float(ppi_py.ppi_mean_pointestimate(np.array(y), np.array(yhat),
                                                                         np.array(yu))[0]), abs=1e-9)
    lo, hi = ppi_py.ppi_mean_ci(np.array(y), np.array(yhat), np.array(yu), alpha=0.1)
    assert est.ppi_ci == pytest.approx([float(lo[0]), float(hi[0])], abs=1e-9)
    assert est.n_labelled == 150 and est.n_unlabelled == 1050 and est.warning is None and est.ppi_ci is not None
    more = stats.labels_needed(y, yhat, yu, target_width=(est.ppi_ci[1] - est.ppi_ci[0]) / 2)
    assert more is not None and more > 0


def test_undefined_figures_are_none() -> None:
    assert stats.alpha([[1, None], [2, None]]) is None  # no item has two ratings
    assert stats.pearson([1, 1, 1], [1, 2, 3]) is None  # a constant side
    assert stats.kendall([1, 2], [2, 1]) is None  # fewer than three values


@pytest.mark.parametrize(("call", "words"), [
    (lambda: stats.kappa([1, 2, 3], [1, 2]), "a has 3 values and b 2"),
    (lambda: stats.pearson([1, None, 3], [1, 2, 3]), "a[1] is missing"),
    (lambda: stats.alpha(np.array([1, 2, 3])), "one row per item"),
    (lambda: stats.alpha([[1, 2]], level=cast("stats.Level", "ordered")), "level 'ordered'"),
    (lambda: stats.corrected_mean([1, 2], [1, 2], [1], confidence=95), "confidence 95"),
])
def test_bad_input_is_one_line(call: Callable[[], object], words: str) -> None:
    with pytest.raises(ValueError) as caught:
        call()
    assert words in str(caught.value) and "\n" not in str(caught.value)
