"""Version diffs and the bump each change needs; FlexEval import."""

from __future__ import annotations

from pathlib import Path

from rubrics.flexeval import import_flexeval
from rubrics.library import bundled_paths
from rubrics.loader import load_rubric_text
from rubrics.schema import Rubric
from rubrics.versioning import check_bump, diff, version_bump

GQ = next(p for p in bundled_paths() if p.stem == "general-quality").read_text()


def _variant(*pairs: str, version: str = "1.0.1") -> Rubric:
    text = GQ.replace("version: 1.0.0", f"version: {version}")
    for a, b in zip(pairs[::2], pairs[1::2], strict=True):
        assert a in text
        text = text.replace(a, b, 1)
    return load_rubric_text(text, "v.yaml")


def test_wording_and_small_threshold_moves_are_patches() -> None:
    old = load_rubric_text(GQ)
    new = _variant("threshold: 70", "threshold: 75", "Factual correctness", "Factual accuracy")
    assert diff(old, new).required == "patch"
    assert check_bump(old, new) is None


def test_big_threshold_move_and_weights_need_minor() -> None:
    old = load_rubric_text(GQ)
    assert diff(old, _variant("threshold: 70", "threshold: 80")).required == "minor"
    reweighted = _variant("weight: 0.35", "weight: 0.30", "weight: 0.10", "weight: 0.15")
    assert "requires a minor bump" in (check_bump(old, reweighted) or "")


def test_method_change_is_major() -> None:
    old = load_rubric_text(GQ)
    new = _variant("method: llm_judge", "method: human", version="2.0.0")
    assert diff(old, new).required == "major"
    assert check_bump(old, new) is None
    assert version_bump("1.2.3", "1.3.0") == "minor" and version_bump("1.2.3", "1.2.3") == "none"


def test_flexeval_file_becomes_a_valid_rubric() -> None:
    src = Path(__file__).parent / "fixtures" / "flexeval_rubric_metrics.yaml"
    rubric = load_rubric_text(import_flexeval(src.read_text(), str(src), "tutor", owner="tutoring-team"))
    plot = rubric.dimension("is_request_for_plot")
    assert plot.choices == {"YES": 1.0, "NO": 0.0} and "{turn}" in (plot.prompt or "")
    assert rubric.dimension("is_pedagogically_appropriate").scale.levels == (0.0, 1.0, 2.0)
