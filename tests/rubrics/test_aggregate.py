"""Every worked number in the seeds, through the aggregation code."""

from __future__ import annotations

import pytest

from rubrics.aggregate import reval_normalised, score_item, treatment_parity, weighted_raw
from rubrics.library import find_bundled
from rubrics.loader import load_rubric_text

ADR_ORIGINAL = """
id: adr-016-original
version: 1.0.0
owner: tests
scale: {min: 1, max: 10}
dimensions:
""" + "".join(
    f"""  - id: {d}
    description: {d} as ADR-016 defines it before review
    method: llm_judge
    weight: {w}
    threshold: 70
    {"ceiling: [{below: 5, cap: 4.0}, {below: 7, cap: 7.0}]" if d == "accuracy" else ""}
    anchors: [{{range: [1, 5], label: low}}, {{range: [6, 10], label: high}}]
"""
    for d, w in (("accuracy", 0.35), ("completeness", 0.25), ("conciseness", 0.2), ("clarity", 0.2))
)
WEIGHTS = {"accuracy": 0.35, "completeness": 0.25, "conciseness": 0.2, "clarity": 0.2}


def test_adr016_response_a_is_8_15() -> None:
    rubric = load_rubric_text(ADR_ORIGINAL)
    scores = {"accuracy": 9, "completeness": 8, "conciseness": 7, "clarity": 8}
    assert weighted_raw(scores, WEIGHTS) == pytest.approx(8.15)
    result = score_item(rubric, scores)
    assert result.overall_raw == pytest.approx(8.15)
    assert result.capped_by == ()


def test_confident_lie_is_capped_at_4() -> None:
    """ADR-016 prints 7.35 for 3/9/9/9 uncapped, but its own weights give 3×0.35 + 9×0.65 = 6.90;
    the 7.35 is an arithmetic slip in the seed. The ceiling's 4.0 holds either way."""
    rubric = load_rubric_text(ADR_ORIGINAL)
    scores = {"accuracy": 3, "completeness": 9, "conciseness": 9, "clarity": 9}
    assert weighted_raw(scores, WEIGHTS) == pytest.approx(6.90)
    result = score_item(rubric, scores)
    assert rubric.scale.denormalise(result.uncapped or 0) == pytest.approx(6.90)
    assert result.overall_raw == pytest.approx(4.0)
    assert result.capped_by and "accuracy 3 < 5" in result.capped_by[0]


def test_accuracy_between_5_and_7_caps_at_7() -> None:
    rubric = load_rubric_text(ADR_ORIGINAL)
    result = score_item(rubric, {"accuracy": 6, "completeness": 10, "conciseness": 10, "clarity": 10})
    assert result.overall_raw == pytest.approx(7.0)


def test_reval_normalisation_matches_general_formula() -> None:
    rubric = find_bundled("reval-issue-framing")
    scores = {"perspective_coverage": 5, "framing_neutrality": 3, "evidence_balance": 3,
              "stakeholder_representation": 1}
    weighted_sum = 5 * 0.30 + 3 * 0.25 + 3 * 0.25 + 1 * 0.20
    assert reval_normalised(weighted_sum) == pytest.approx((weighted_sum - 1) / 4)
    assert score_item(rubric, scores).overall == pytest.approx(reval_normalised(weighted_sum))


def test_treatment_parity() -> None:
    assert treatment_parity(0.9, 0.6) == pytest.approx(0.7)
    assert treatment_parity(0.5, 0.5) == 1.0


def test_bands_and_safety_cap() -> None:
    rubric = find_bundled("general-quality")
    top = {d.id: 10.0 for d in rubric.dimensions}
    band = score_item(rubric, top).band
    assert band is not None and band.label == "High"
    capped = score_item(rubric, top, safety_failed=True)
    assert capped.overall == 0.0 and not capped.passed
    assert capped.band is not None and capped.band.label == "Low"  # REVAL's "Potential bias" only on REVAL rubrics


def test_missing_weighted_dimension_makes_the_overall_incomplete() -> None:
    """Issue 12: a weighted dimension with no score used to drop out and the rest was
    renormalised (8/10 on four dimensions passed as 0.78); now there is no overall, no band, no
    pass, and the reason names the dimension."""
    rubric = find_bundled("general-quality")
    scores = {d.id: 8.0 for d in rubric.dimensions}
    scores.pop("clarity")
    result = score_item(rubric, scores, why={"clarity": "judge error (timeout)"})
    assert result.missing == ("clarity",)
    assert result.overall is None and result.band is None and not result.passed
    assert result.reason == "clarity: judge error (timeout)"


def test_a_dimension_that_does_not_apply_is_left_out_and_the_rest_renormalised() -> None:
    rubric = find_bundled("general-quality")
    scores = {d.id: 8.0 for d in rubric.dimensions}
    scores.pop("clarity")
    result = score_item(rubric, scores, not_applicable=["clarity"])
    assert result.overall == pytest.approx(rubric.scale.normalise(8.0))


def test_unknown_ceiling_dimension_keeps_the_item_incomplete() -> None:
    """A ceiling's dimension with no score could cap the overall: no overall until it is known."""
    rubric = load_rubric_text(ADR_ORIGINAL.replace("weight: 0.35", "weight: 0.0").replace(
        "weight: 0.25", "weight: 0.6"))
    result = score_item(rubric, {"completeness": 9, "conciseness": 9, "clarity": 9})
    assert result.overall is None and result.missing == ("accuracy",)
    assert score_item(rubric, {"accuracy": 3, "completeness": 9, "conciseness": 9,
                               "clarity": 9}).overall_raw == pytest.approx(4.0)
