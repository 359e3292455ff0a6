"""The value objects every module reads a rubric through."""

from rubrics.schema import Anchor, Dimension, Scale


def test_normalise_is_reval_formula_on_1_to_5() -> None:
    scale = Scale(1, 5, (1, 3, 5))
    assert scale.normalise(3) == 0.5
    assert scale.level_values() == (1, 3, 5)


def test_threshold_compares_on_normalised_scale() -> None:
    dim = Dimension(
        id="accuracy", name="Accuracy", description="Facts are right.", method="llm_judge",
        weight=1.0, threshold=70, scale=Scale(1, 10),
        anchors=(Anchor(1, 6, "weak"), Anchor(7, 10, "good")),
    )
    assert dim.threshold_raw == 1 + 0.7 * 9
    assert dim.passes(8.0) and not dim.passes(7.0)
    assert dim.anchor_for(6.5) is not None
