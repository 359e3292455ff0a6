"""The wiki's reference dimensions as a catalogue (``rubric dimensions``, ``use:``), ``rubric
show`` showing everything that decides a score, and neutral default bands.

Old code: the ten reference dimensions existed only inside the starter rubrics (``use:`` was an
unknown key); ``rubric show`` hid ceilings, prompts, rules, gates, choices and conditions; the
default bands called any score below 0.70 "Potential bias", REVAL's wording.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubrics.errors import RubricError
from rubrics.library import find_bundled
from rubrics.loader import load_rubric_text
from rubrics.schema import DEFAULT_BANDS
from tests.cli import run_cli

USES = """\
id: uses
version: 1.0.0
name: Uses the catalogue
description: Reference dimensions inherited, one of them overridden.
scale: {min: 1, max: 5}
dimensions:
  - {use: accuracy, weight: 0.6}
  - use: tone_fit
    weight: 0.4
    threshold: 75
    prompt: Does the reply sound like our salon, warm and brief?
owner: tests
"""


def test_use_inherits_method_weight_threshold_and_description_and_overrides_any() -> None:
    r = load_rubric_text(USES)
    acc, tone = r.dimensions
    assert (acc.id, acc.method, acc.threshold, acc.weight) == ("accuracy", "llm_judge", 70, 0.6)
    assert acc.description == "The output's factual claims are correct in the world."
    # Anchors are spread over this rubric's 1–5 scale, every level covered.
    assert [(a.low, a.high) for a in acc.anchors] == [(5, 5), (4, 4), (3, 3), (2, 2), (1, 1)]
    assert (tone.method, tone.threshold, tone.weight) == ("llm_judge", 75, 0.4)
    assert tone.prompt == "Does the reply sound like our salon, warm and brief?"


def test_use_takes_the_wiki_defaults_when_nothing_is_overridden() -> None:
    text = USES.replace("{use: accuracy, weight: 0.6}", "{use: hallucination_risk, weight: 0.6}")
    halluc = load_rubric_text(text).dimensions[0]
    assert (halluc.method, halluc.threshold) == ("claim_pipeline", 80)
    ten = load_rubric_text(USES.replace("{use: accuracy, weight: 0.6}", "{use: accuracy}")
                           .replace("weight: 0.4", "weight: 0.85"))
    assert ten.dimensions[0].weight == 0.15  # the wiki's default weight


def test_use_of_an_unknown_or_gate_dimension_is_one_clear_line() -> None:
    with pytest.raises(RubricError) as bad:
        load_rubric_text(USES.replace("use: accuracy", "use: acuracy"), "u.yaml")
    assert "u.yaml:7: unknown-dimension: use: 'acuracy' is not a reference dimension" in str(bad.value)
    with pytest.raises(RubricError) as gate:
        load_rubric_text(USES.replace("use: accuracy", "use: safety"), "u.yaml")
    assert "a gate, not a weight" in str(gate.value)


def test_rubric_dimensions_lists_the_ten(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    code, out, _ = run_cli(["rubric", "dimensions"], capsys)
    assert code == 0
    for ref in ("accuracy", "relevance", "completeness", "task_completion", "hallucination_risk",
                "groundedness", "safety", "consistency", "tone_fit", "actionability"):
        assert ref in out


def test_rubric_show_shows_everything_that_decides_a_score(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    code, out, _ = run_cli(["rubric", "show", "general-quality"], capsys)
    assert code == 0
    flat = " ".join(out.split())
    assert "ceiling: while below 5, overall ≤ 4" in flat  # ADR-016's accuracy ceiling
    assert "prompt: Is the information factually correct?" in flat
    assert "gate pii_exposure:" in flat and "safety cap: overall ≤ 0" in flat
    assert "bands: High ≥ 0.85, Medium ≥ 0.7, Low ≥ 0" in flat
    code, out, _ = run_cli(["rubric", "show", "booking-assistant"], capsys)
    flat = " ".join(out.split())
    assert "gate false_confirmation: a booking" in flat
    code, out, _ = run_cli(["rubric", "show", "flexeval-choice"], capsys)
    flat = " ".join(out.split())
    assert "choices: YES = 1, NO = 0" in flat and "only user turns" in flat
    assert "item score = max of the turns" in flat and "reply last_line" in flat
    ruled = tmp_path / "ruled.yaml"
    ruled.write_text(USES.replace("  - {use: accuracy, weight: 0.6}", """  - use: completeness
    weight: 0.6
    method: deterministic
    rule: {max_words: 80, banned_phrases: [as an AI]}"""))
    code, out, err = run_cli(["rubric", "show", str(ruled)], capsys)
    flat = " ".join(out.split())
    assert code == 0, err
    assert 'rule: {"max_words": 80, "banned_phrases": ["as an AI"]}' in flat


def test_default_bands_are_neutral_and_reval_keeps_its_own() -> None:
    assert [b.label for b in DEFAULT_BANDS] == ["High", "Medium", "Low"]
    for ref in ("general-quality", "rag-answer", "booking-assistant", "flexeval-choice"):
        assert "Potential bias" not in {b.label for b in find_bundled(ref).bands}
    for ref in ("reval-figure-treatment", "reval-issue-framing"):
        assert "Potential bias" in {b.label for b in find_bundled(ref).bands}


def test_a_rubric_without_the_new_keys_keeps_its_content_hash() -> None:
    # Hashes registered before issue 16 must still match: new keys at their defaults are not hashed.
    from rubrics.loader import canonical_form

    plain = canonical_form(load_rubric_text(USES))
    assert "headline" not in plain and "reply" not in plain["judge"]
    assert "turn_aggregate" not in plain["dimensions"][0] and "role" not in plain["dimensions"][0]
    assert canonical_form(load_rubric_text(USES + "headline: accuracy\n"))["headline"] == "accuracy"


def test_starter_rubrics_have_no_stand_in_rules_or_gates() -> None:
    # 1.0.0 stood in a booking-words regex for intent detection, seven guessed words for the
    # life-area taxonomy, and unrelated gates for the planner's and RAG's safety policies; 1.1.0
    # left both out, and stays as released beside 1.2.0, which scores them on declared fields.
    booking, shadow = find_bundled("booking-assistant", "1.1.0"), find_bundled("shadow-daily-reflection", "1.1.0")
    assert "intent_detection" not in booking.dimension_ids()
    assert "life_area_accuracy" not in shadow.dimension_ids()
    assert find_bundled("ai-planner").safety_gates == ("silent_destructive_action",)
    assert "internal_data" in find_bundled("rag-answer").safety_gates
    for r in (booking, shadow):
        assert abs(sum(d.weight for d in r.dimensions if d.weighted) - 1) < 0.001


def test_the_real_gates_fire_on_what_the_wiki_names() -> None:
    from rubrics.safety import check_gates

    wiped = {"id": "p", "metadata": {"tool_calls": [{"name": "drop_table", "status": "ok"}]}}
    assert check_gates(["silent_destructive_action"], "Migration finished.", wiped)
    assert not check_gates(["silent_destructive_action"], "I dropped the old table as planned.", wiped)
    assert check_gates(["internal_data"], "See the INTERNAL ONLY roadmap.", {"id": "r"})
