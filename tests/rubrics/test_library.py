"""The bundled rubrics load, validate, and say what the seeds say."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubrics.errors import RubricError
from rubrics.library import bundled, bundled_paths, find_bundled, parse_ref
from rubrics.loader import load_rubric_file, load_rubric_text


@pytest.mark.parametrize("path", bundled_paths(), ids=lambda p: p.stem)
def test_every_bundled_rubric_validates(path: Path) -> None:
    rubric = load_rubric_file(path)
    # ID.yaml, or ID@VERSION.yaml for a later version shipped beside a released one
    assert path.stem in (rubric.id, rubric.ref)
    assert abs(sum(d.weight for d in rubric.dimensions if d.weighted) - 1) <= 0.001
    for dim in rubric.dimensions:
        if dim.anchors:
            for level in dim.scale.level_values():
                assert sum(a.covers(level) for a in dim.anchors) == 1


def test_general_quality_is_adr016_post_review() -> None:
    r = find_bundled("general-quality", "1.0.0")
    assert {d.id: d.weight for d in r.dimensions} == {
        "accuracy": 0.35, "relevance": 0.10, "completeness": 0.20, "conciseness": 0.15, "clarity": 0.20}
    assert r.dimension("accuracy").ceiling[0].cap == 4.0
    assert r.safety_cap == 0.0 and "pii_exposure" in r.safety_gates


def test_at_least_the_seed_rubrics_ship() -> None:
    ids = {r.id for r in bundled()}
    assert {"general-quality", "rag-answer", "reval-issue-framing", "reval-figure-treatment",
            "shadow-daily-reflection", "booking-assistant", "ai-planner", "customer-support",
            "flexeval-choice"} <= ids


def test_hash_ignores_layout_and_key_order() -> None:
    path = bundled_paths()[0]
    text = path.read_text()
    a = load_rubric_text(text, "a.yaml")
    b = load_rubric_text("\n\n" + text.replace("owner: eval-team\n", "") + "owner: eval-team\n", "b.yaml")
    assert a.content_hash == b.content_hash
    c = load_rubric_text(text.replace("threshold: 70", "threshold: 71", 1), "c.yaml")
    assert c.content_hash != a.content_hash


def test_refs() -> None:
    assert parse_ref("general-quality@1.0.0") == ("general-quality", "1.0.0")
    assert parse_ref("rag-answer") == ("rag-answer", None)
    with pytest.raises(RubricError, match="unknown-rubric"):
        find_bundled("nope")


@pytest.mark.parametrize("ref", ["general-quality@1.0.0\n", "general-quality\n", "general-quality@01.0.0",
                                 "general-quality@1.0", "general-quality@1.0.0 ", " general-quality",
                                 "General-Quality", "g" * 65, "general-quality@1.0.0-rc.01", "@1.0.0",
                                 "general-quality@", "general-quality@1.0.0\x1b[31m"])
def test_a_ref_is_held_to_the_rubric_file_rules(ref: str) -> None:
    """The CLI's ID@VERSION: a trailing newline, a space, a leading zero or an over-long id is
    refused in one line (the repr shows what was typed), never stripped or found anyway."""
    with pytest.raises(RubricError, match="bad-ref") as exc:
        parse_ref(ref)
    assert "\n" not in str(exc.value) and "\x1b" not in str(exc.value)
    assert parse_ref("general-quality@1.0.0-rc.1") == ("general-quality", "1.0.0-rc.1")
