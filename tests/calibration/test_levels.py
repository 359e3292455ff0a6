"""Measurement levels in the report: published nominal values through the whole report, a rubric
mixing levels checked figure by figure against scipy, scikit-learn and the krippendorff package on
the same arrays, the majority aggregate and its tie rule, and --bootstrap 0."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from calibration.consensus import aggregate, snap
from calibration.report import DimensionInput, dimension_report, dimension_reports

REF = json.loads((Path(__file__).resolve().parents[1] / "data" / "agreement_vectors.json").read_text())


def _from_table(table: list[list[int]], codes: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """Two raters' scores that give exactly this contingency table."""
    a, b = [], []
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            a += [codes[i]] * count
            b += [codes[j]] * count
    return np.array(a, float), np.array(b, float)


def test_irrcac_unweighted_table_through_a_nominal_dimension() -> None:
    entry = REF["contingency_3x3"]
    judge, human = _from_table(entry["table_rows_rater1_cols_rater2"], [1.0, 2.0, 3.0])
    f = dimension_report(DimensionInput("refusal", judge, human[:, None], [1.0, 2.0, 3.0], 2.0,
                                        level="nominal"), draws=0).figures
    pub = entry["unweighted"]
    assert round(f["kappa"], 7) == pub["cohen_kappa"]
    assert round(f["gwet_ac1"], 7) == pub["gwet_ac1"]
    assert round(f["alpha"], 7) == pub["krippendorff_alpha"]
    assert f["exact"] == pytest.approx(pub["percent_agreement"])
    assert f["level"] == "nominal" and f["human_aggregate"] == "majority"


def test_irrcac_4x4_table_unweighted() -> None:
    entry = REF["contingency_4x4"]
    judge, human = _from_table(entry["table_rows_rater1_cols_rater2"], [1.0, 2.0, 3.0, 4.0])
    f = dimension_report(DimensionInput("kind", judge, human[:, None], [1.0, 2.0, 3.0, 4.0], 2.0,
                                        level="nominal"), draws=0).figures
    assert round(f["gwet_ac1"], 3) == entry["unweighted"]["gwet"]
    assert round(f["kappa"], 4) == 0.4315  # irrCAC prints 0.4315, rounded again to 0.432
    assert round(f["exact"], 3) == entry["unweighted"]["pa"]


def test_krippendorff_2011_nominal_as_the_humans_ceiling() -> None:
    entry = REF["krippendorff_2011"]
    humans = np.array([[np.nan if v is None else v for v in row] for row in entry["data"]], float).T
    judge = np.full(humans.shape[0], np.nan)
    f = dimension_report(DimensionInput("label", judge, humans, [1, 2, 3, 4, 5], 3.0, level="nominal"),
                         draws=0).figures
    assert round(f["alpha_humans"], 3) == entry["published"]["nominal"]  # 0.743
    wiki = REF["krippendorff_wikipedia"]
    humans = np.array([[np.nan if v is None else v for v in row] for row in wiki["data"]], float).T
    f = dimension_report(DimensionInput("label", np.full(humans.shape[0], np.nan), humans, [1, 2, 3, 4], 3.0,
                                        level="nominal"), draws=0).figures
    assert round(f["alpha_humans"], 6) == wiki["published"]["nominal"]  # 0.691358


def _mixed(seed: int = 1, n: int = 300) -> list[DimensionInput]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n).astype(float)
    graded_j = np.clip(truth + rng.integers(-1, 2, n) * (rng.random(n) < 0.3), 1, 5).astype(float)
    graded_h = np.clip(truth[:, None] + rng.integers(-1, 2, (n, 3)) * (rng.random((n, 3)) < 0.3), 1, 5).astype(float)
    cat = rng.integers(1, 4, n).astype(float)
    cat_j = np.where(rng.random(n) < 0.8, cat, rng.integers(1, 4, n))
    cat_h = np.where(rng.random((n, 3)) < 0.85, cat[:, None], rng.integers(1, 4, (n, 3)))
    yes = (rng.random(n) < 0.6).astype(float)
    yes_j = np.where(rng.random(n) < 0.9, yes, 1 - yes)
    yes_h = np.where(rng.random((n, 3)) < 0.9, yes[:, None], 1 - yes[:, None])
    cont = rng.normal(50, 10, n)
    return [DimensionInput("graded", graded_j, graded_h, [1, 2, 3, 4, 5], 3.0, level="ordinal"),
            DimensionInput("category", cat_j, cat_h, [1, 2, 3], 2.0, level="nominal"),
            DimensionInput("verdict", yes_j, yes_h, [0, 1], 0.5, level="nominal"),
            DimensionInput("amount", np.round(cont + rng.normal(0, 3, n), 1),
                           np.round(cont[:, None] + rng.normal(0, 3, (n, 2)), 1) + 1, list(range(0, 101)), 50.0,
                           level="ratio")]


def test_a_rubric_mixing_levels_figure_by_figure() -> None:
    inputs = _mixed()
    reports = dimension_reports(inputs, draws=200, seed=3)
    for inp, rep in zip(inputs, reports, strict=True):
        f, why = rep.figures, rep.null_reasons
        nominal = inp.level == "nominal"
        h, _ = aggregate(inp.humans, "majority" if nominal else "mean", inp.levels)
        hs, js = snap(h, inp.levels), snap(inp.judge, inp.levels)
        # alpha at the dimension's own level, judge as one more coder, against the package
        data = np.column_stack([inp.judge, inp.humans]).T
        assert f["alpha"] == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement=inp.level),
                                           abs=1e-9)
        assert f["alpha_humans"] == pytest.approx(
            krippendorff.alpha(reliability_data=inp.humans.T, level_of_measurement=inp.level), abs=1e-9)
        # unweighted kappa on the snapped aggregate, against scikit-learn
        assert f["kappa"] == pytest.approx(cohen_kappa_score(js, hs), abs=1e-12)
        assert f["exact"] == pytest.approx(np.mean(js == hs))
        assert f["level"] == inp.level
        if nominal:
            for k in ("kappa_linear", "kappa_quadratic", "gwet_ac2", "pearson", "spearman", "kendall",
                      "within_one", "bias", "mae"):
                assert f[k] is None and why[k], k
            assert "nominal" in why["kappa_quadratic"] and f["gwet_ac1"] is not None
            # items whose humans' most frequent score is shared by two or more values, counted here
            ties = 0
            for row in inp.humans:
                counts = Counter(v for v in row if not np.isnan(v)).values()
                ties += bool(counts) and list(counts).count(max(counts)) > 1
            assert f["majority_ties"] == ties
            assert ties > 0 or inp.dimension == "verdict"  # three binary votes never tie
        else:
            labels = list(inp.levels)
            assert f["kappa_linear"] == pytest.approx(cohen_kappa_score(js, hs, labels=labels, weights="linear"),
                                                      abs=1e-9)
            assert f["kappa_quadratic"] == pytest.approx(
                cohen_kappa_score(js, hs, labels=labels, weights="quadratic"), abs=1e-9)
            assert f["spearman"] == pytest.approx(stats.spearmanr(inp.judge, h).statistic, abs=1e-12)
            assert f["kendall"] == pytest.approx(stats.kendalltau(inp.judge, h).statistic, abs=1e-12)
            assert f["pearson"] == pytest.approx(stats.pearsonr(inp.judge, h).statistic, abs=1e-12)
            assert f["bias"] == pytest.approx(np.mean(inp.judge - h))
            lo, hi = f["alpha_ci"]
            assert lo < f["alpha"] < hi and f["pearson_ci"][0] < f["pearson"] < f["pearson_ci"][1]


def test_vectorised_bootstrap_matches_resampling_draw_by_draw() -> None:
    """Each draw's alpha from weighted sums equals alpha of the resampled rows, every level
    (ordinal: on the full sample's ordinal positions, which the bootstrap holds fixed)."""
    from calibration import bootstrap as bs
    from calibration.alpha import krippendorff_alpha, ordinal_positions

    for inp in _mixed(seed=4, n=60):
        data = np.column_stack([inp.judge, inp.humans])
        if inp.level == "ratio":  # fewer distinct values than MAX_VALUES: counted per unit
            data = np.round(data / 5) * 5
        spec = bs.alpha_spec(data, inp.level)
        assert spec is not None
        draws = bs.Draws(data.shape[0], 7, seed=9)
        weights = np.concatenate(list(draws.chunks()))
        fast = spec.finish(weights @ spec.sums)
        level = inp.level
        if level == "ordinal":
            mask = ~np.isnan(data) & ((~np.isnan(data)).sum(axis=1) >= 2)[:, None]
            data = data.copy()
            data[mask] = ordinal_positions(data[mask])
            level = "interval"
        for w, value in zip(weights, fast, strict=True):
            rows = np.repeat(np.arange(data.shape[0]), w.astype(int))
            assert value == pytest.approx(krippendorff_alpha(data[rows], level), abs=1e-9)


def test_bootstrap_zero_skips_intervals_with_a_reason() -> None:
    f = dimension_report(_mixed()[0], draws=0)
    assert f.figures["alpha_ci"] is None and "--bootstrap 0" in f.null_reasons["alpha_ci"]
    assert f.figures["alpha"] is not None and f.figures["more_items_needed"] is None


def test_majority_and_its_tie_rule() -> None:
    humans = np.array([[1, 1, 2, np.nan],  # clear majority: 1
                       [2, 1, np.nan, np.nan],  # tie 1–2 → the lower: 1
                       [3, 3, 1, 1],  # tie 1–3 → 1
                       [2, 3, 3, 2.0],  # tie 2–3 → 2
                       [1, 3, 4, 4.0],  # majority 4
                       [3, 2, 4, np.nan],  # three-way tie → 2
                       [np.nan] * 4])
    got, ties = aggregate(humans, "majority", [1, 2, 3, 4])
    assert got[:6].tolist() == [1, 1, 1, 2, 4, 2] and np.isnan(got[6])
    assert ties.tolist() == [False, True, True, True, False, True, False]
    f = dimension_report(DimensionInput("x", np.array([1, 1, 1, 2, 4, 3, 3.0]), humans, [1, 2, 3, 4], 2.0,
                                        level="nominal"), draws=0).figures
    assert f["majority_ties"] == 4 and f["exact"] == pytest.approx(5 / 6)


def test_the_tie_rule_is_the_item_folds() -> None:
    """Calibration's majority is the consensus the item fold (export, report) gives."""
    from reviewer.domain.human import consensus

    rng = np.random.default_rng(2)
    humans = rng.integers(1, 5, (300, 4)).astype(float)
    humans[rng.random((300, 4)) < 0.3] = np.nan
    got, _ = aggregate(humans, "majority", [1, 2, 3, 4])
    for row, value in zip(humans, got, strict=True):
        scores = [float(x) for x in row if not np.isnan(x)]
        want = consensus(scores, "majority")
        assert (np.isnan(value) and want is None) or value == want


def test_mean_on_a_nominal_dimension_becomes_majority_and_says_so() -> None:
    inp = _mixed()[1]
    f = dimension_report(inp, draws=0).figures
    assert f["human_aggregate"] == "majority" and "means nothing" in f["human_aggregate_note"]


def test_exact_reads_the_same_snapped_score_as_kappa() -> None:
    """72 raters whose mean is 3.4: exact compares the judge's 3 with the snapped 3, as kappa does
    (the unrounded mean gave exact 0.0 before)."""
    humans = np.tile(np.array([3.0] * 43 + [4.0] * 29), (40, 1))
    judge = np.full(40, 3.0)
    judge[:5] = 4.0
    f = dimension_report(DimensionInput("x", judge, humans, [1, 2, 3, 4, 5], 3.0), draws=0).figures
    assert f["exact"] == pytest.approx(35 / 40)
    table_diagonal = f["exact"]
    assert table_diagonal == pytest.approx(np.mean(snap(judge, [1, 2, 3, 4, 5]) == 3.0))


def test_weighted_kappas_and_ac2_weigh_the_declared_levels_by_their_values() -> None:
    """``levels: [1, 2, 5]``: 2 lies nearer 1 than 5, and the weights say so (issue 23: they were
    by position, as if the levels were 1, 2, 3). Cohen's kappa against scikit-learn with every
    whole number 1..5 as a label (its position-weights are then the values'; the empty labels 3
    and 4 add nothing to Cohen's kappa); Gwet's AC2 against irrCAC's formula with the values'
    weights over the three declared categories (empty categories do count in AC2's chance term)."""
    rng = np.random.default_rng(23)
    levels = [1.0, 2.0, 5.0]
    truth = rng.choice(levels, 400)
    judge = np.where(rng.random(400) < 0.35, rng.choice(levels, 400), truth)
    human = np.where(rng.random(400) < 0.25, rng.choice(levels, 400), truth)
    f = dimension_report(DimensionInput("graded", judge, human[:, None], levels, 2.0, level="ordinal"),
                         draws=0).figures
    every = [1, 2, 3, 4, 5]
    assert f["kappa_linear"] == pytest.approx(cohen_kappa_score(judge, human, labels=every, weights="linear"),
                                              abs=1e-12)
    assert f["kappa_quadratic"] == pytest.approx(
        cohen_kappa_score(judge, human, labels=every, weights="quadratic"), abs=1e-12)
    # by position the figure would be scikit-learn's with the three labels alone: not the same here
    assert abs(f["kappa_quadratic"] - cohen_kappa_score(judge, human, labels=levels, weights="quadratic")) > 1e-3
    x = np.array(levels)
    w = 1 - ((x[:, None] - x[None, :]) / (x.max() - x.min())) ** 2
    t = np.array([[np.sum((judge == a) & (human == b)) for b in levels] for a in levels], float) / 400
    pi = (t.sum(axis=1) + t.sum(axis=0)) / 2
    pe = w.sum() / (3 * 2) * np.sum(pi * (1 - pi))
    assert f["gwet_ac2"] == pytest.approx(((w * t).sum() - pe) / (1 - pe), abs=1e-12)
    # evenly spaced levels weigh as by position: REVAL's 1-3-5 equals scikit-learn's three labels
    spread = {1.0: 1.0, 2.0: 3.0, 5.0: 5.0}
    j135, h135 = np.vectorize(spread.get)(judge), np.vectorize(spread.get)(human)
    g = dimension_report(DimensionInput("graded", j135, h135[:, None], [1.0, 3.0, 5.0], 3.0, level="ordinal"),
                         draws=0).figures
    assert g["kappa_linear"] == pytest.approx(cohen_kappa_score(j135, h135, labels=[1, 3, 5], weights="linear"),
                                              abs=1e-12)
