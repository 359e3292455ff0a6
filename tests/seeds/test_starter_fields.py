"""The wiki's starter rubrics carry its dimensions: intent detection (booking assistant) and
life-area classification (Shadow) scored deterministically on declared metadata fields, and the
RAG starter's citation correctness as a deterministic check beside the judge. Each is a new
version beside the released one, which stays as it was.

Old code: ``label_match`` and ``citations_in_context`` were unknown rule keys (every item an
error), and the starters had no such dimensions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from reviewer.store import Store
from rubrics.errors import RubricError
from rubrics.library import LIBRARY_DIR, find_bundled
from rubrics.loader import load_rubric_text
from rubrics.methods.deterministic import score_deterministic
from rubrics.schema import Scale
from tests.cli import run_cli
from tests.judge.helpers import dim, item, well_behaved
from tests.judge.loopback import LoopbackServer, Reply
from tests.store.conftest import db_url, store  # noqa: F401  (fixtures: SQLite and PostgreSQL)

LABEL = {"label_match": {"label": "intent", "expected": "expected_intent"}}
CITES = {"citations_in_context": r"\[([A-Za-z0-9_.:-]+)\]"}
CONTEXT = "[1] Opened items may be returned within 14 days.\n[doc-2] Refunds take 5 days."


def _label(metadata: Mapping[str, object]) -> tuple[float | None, str | None, str]:
    r = score_deterministic(item(metadata=metadata), dim(method="deterministic", rule=LABEL, scale=Scale(1, 10)))
    return r.score, r.error, r.rationale or ""


def test_label_match_right_wrong_and_missing() -> None:
    assert _label({"intent": "book", "expected_intent": "book"})[0] == 10
    assert _label({"intent": " Book ", "expected_intent": "book"})[0] == 10  # trimmed, case-folded
    score, error, why = _label({"intent": "cancel", "expected_intent": "book"})
    assert (score, error) == (1, None) and "['cancel'] does not match expected_intent ['book']" in why
    # a list (the Shadow classifier's life areas) compares as a set: order free, nothing extra
    assert _label({"intent": ["work", "health"], "expected_intent": ["health", "work"]})[0] == 10
    score, _, why = _label({"intent": ["work", "money"], "expected_intent": ["work"]})
    assert score == 1 and "not expected ['money']" in why
    # a missing field is an error routed to people, never a guessed score
    for metadata, says in (({"expected_intent": "book"}, "no 'intent' (the classifier's label)"),
                           ({"intent": "book"}, "no 'expected_intent' (the reference label)"),
                           ({"intent": None, "expected_intent": "book"}, "no 'intent'"),
                           ({"intent": 3, "expected_intent": "book"}, "must be text or a list of text")):
        score, error, _ = _label(metadata)
        assert score is None and error is not None and says in error, (metadata, error)


def _cites(output: str, context: str = CONTEXT) -> tuple[float | None, str | None, str]:
    r = score_deterministic(item(output=output, context=context),
                            dim(method="deterministic", rule=CITES, scale=Scale(1, 10)))
    return r.score, r.error, r.rationale or ""


def test_citations_in_context() -> None:
    assert _cites("Within 14 days [1]; refunds in 5 days [doc-2].")[0] == 10
    score, error, why = _cites("Within 14 days [1]; exchanges are free [3] [doc-9].")
    assert (score, error) == (1, None) and "cites 3, doc-9, not in the context" in why
    assert _cites("Within 14 days.")[0] == 10  # citing nothing misuses no citation; the judge asks the rest
    score, error, _ = _cites("Within 14 days [1].", context="")
    assert score is None and error is not None and "no context to check its citations against" in error


@pytest.mark.parametrize(("rule", "says"), [
    ("label_match: {label: intent}", "label_match names two metadata keys"),
    ("label_match: intent", "label_match names two metadata keys"),
    ("label_match: {label: intent, expected: ''}", "label_match names two metadata keys"),
    ("citations_in_context: ['\\[(\\d+)\\]']", "citations_in_context is one pattern"),
    ("citations_in_context: '\\[(\\w+)(\\d)\\]'", "at most one group"),
    ("citations_in_context: '(a+)+'", "regex-backtracking"),
])
def test_bad_declarations_are_refused_at_save_time(rule: str, says: str) -> None:
    text = (LIBRARY_DIR / "booking-assistant@1.2.0.yaml").read_text(encoding="utf-8")
    old = "    label_match:\n      label: intent\n      expected: expected_intent\n"
    assert old in text
    with pytest.raises(RubricError, match=r"\d+: rule-(type|key)|regex") as exc:
        load_rubric_text(text.replace(old, "    " + rule + "\n"), "b.yaml")
    assert says in str(exc.value)


def test_starters_carry_the_seed_dimensions_weights_and_thresholds() -> None:
    # The wiki's tables: weights over 0.90 (booking, Shadow) and 0.85 (RAG), safety a gate.
    booking = find_bundled("booking-assistant")
    assert booking.version == "1.2.0"
    seed = {"intent_detection": (0.20, 90), "booking_readiness": (0.15, 85), "proper_handoff": (0.10, 80),
            "clear_answer": (0.10, 75), "tone_fit": (0.10, 70), "hallucination_risk": (0.10, 85),
            "actionability": (0.10, 70), "consistency": (0.05, 70)}
    assert {d.id: (round(d.weight * 0.90, 3), d.threshold) for d in booking.dimensions} == seed
    assert booking.dimension("intent_detection").rule == LABEL
    shadow = find_bundled("shadow-daily-reflection")
    assert shadow.version == "1.2.0"
    seed = {"life_area_accuracy": (0.15, 80), "emotional_nuance": (0.10, 70), "non_judgmental_tone": (0.10, 75),
            "useful_next_step": (0.10, 65), "memory_relevance": (0.10, 70), "completeness": (0.10, 70),
            "hallucination_risk": (0.15, 80), "tone_fit": (0.05, 70), "consistency": (0.05, 70)}
    assert {d.id: (round(d.weight * 0.90, 2), d.threshold) for d in shadow.dimensions} == seed
    assert shadow.dimension("life_area_accuracy").method == "deterministic"
    rag = find_bundled("rag-answer")
    assert rag.version == "1.1.0"
    cited = {d.id: (d.method, round(d.weight * 0.85, 3), d.threshold) for d in rag.dimensions if "citation" in d.id}
    assert cited == {"citation_sources": ("deterministic", 0.05, 80), "citation_correctness": ("llm_judge", 0.05, 80)}
    # the released versions stay as they were
    assert "intent_detection" not in find_bundled("booking-assistant", "1.1.0").dimension_ids()
    assert "citation_sources" not in find_bundled("rag-answer", "1.0.0").dimension_ids()


@pytest.mark.parametrize(("old", "new"), [("booking-assistant", "1.2.0"), ("shadow-daily-reflection", "1.2.0"),
                                          ("rag-answer", "1.1.0")])
def test_validate_and_diff_report_the_bump(old: str, new: str, capsys: pytest.CaptureFixture[str]) -> None:
    new_path = LIBRARY_DIR / f"{old}@{new}.yaml"
    code, out, err = run_cli(["rubric", "validate", str(new_path)], capsys)
    assert code == 0, err
    code, out, err = run_cli(["rubric", "diff", str(LIBRARY_DIR / f"{old}.yaml"), str(new_path)], capsys)
    assert code == 0, err
    assert "dimension added" in out and "required bump: minor" in out and f"→ {new} is enough" in out


def test_a_database_that_registered_the_old_version_keeps_it(store: Store) -> None:  # noqa: F811
    old = store.rubrics.get_rubric("booking-assistant@1.1.0")
    assert "intent_detection" not in old.dimension_ids()
    new = store.rubrics.get_rubric("booking-assistant@1.2.0")  # registered beside it: the bump is enough
    assert "intent_detection" in new.dimension_ids()
    versions = {v: h for rid, v, h in store.rubrics.list_rubrics() if rid == "booking-assistant"}
    assert versions == {"1.1.0": old.content_hash, "1.2.0": new.content_hash}
    assert store.rubrics.get_rubric("booking-assistant@1.1.0").content_hash == old.content_hash


def _judge(tmp_path: Path, db_url: str,  # noqa: F811
           server: LoopbackServer, capsys: pytest.CaptureFixture[str],
           ref: str, rows: list[dict[str, object]]) -> dict[str, dict[str, Any]]:
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert run_cli(["import", str(items), "--rubric", ref, "--db", db_url], capsys)[0] == 0
    code, out, err = run_cli(["judge", "--rubric", ref, "--model", "openai/judge-x", "--api-base", server.url,
                              "--api-key", "k", "--db", db_url], capsys)
    assert code == 0, err + out
    return {r["id"]: r for r in map(json.loads, run_cli(["export", "--db", db_url], capsys)[1].splitlines())}


def test_booking_intent_end_to_end(
    tmp_path: Path, db_url: str, server: LoopbackServer, capsys: pytest.CaptureFixture[str],  # noqa: F811
) -> None:
    server.reset(default=Reply(well_behaved))
    base = {"input": "Can I get a cut with Sam on Friday at 3?",
            "output": "Sure: a cut with Sam on Friday at 3pm. Shall I book it?",
            "context": "Sam works Fridays, 9am to 5pm. A cut takes 45 minutes."}
    rows: list[dict[str, object]] = [
        {"id": "right", **base, "metadata": {"intent": "book_appointment", "expected_intent": "book_appointment"}},
        {"id": "wrong", **base, "metadata": {"intent": "cancel", "expected_intent": "book_appointment"}},
        {"id": "missing", **base, "metadata": {"expected_intent": "book_appointment"}},
    ]
    exported = _judge(tmp_path, db_url, server, capsys, "booking-assistant@1.2.0", rows)
    intent = {i: r["dimensions"]["intent_detection"] for i, r in exported.items()}
    assert {i: (d["judge"], d["state"]) for i, d in intent.items()} == {
        "right": (10.0, "scored"), "wrong": (1.0, "scored"), "missing": (None, "failed")}
    assert intent["missing"]["judge_error"] == (
        "the item's metadata has no 'intent' (the classifier's label); add it to the item")
    # every other dimension scored the top: the wrong intent alone costs its 0.2222 of the overall
    assert exported["right"]["overall"] == pytest.approx(1.0)
    assert exported["wrong"]["overall"] == pytest.approx(1 - 0.2222, abs=1e-3)
    code, out, _ = run_cli(["queue", "show", "missing", "--db", db_url], capsys)
    assert code == 0 and "no 'intent' (the classifier's label)" in out


def test_shadow_life_areas_and_rag_citations_end_to_end(
    tmp_path: Path, db_url: str, server: LoopbackServer, capsys: pytest.CaptureFixture[str],  # noqa: F811
) -> None:
    server.reset(default=Reply(well_behaved))
    day = {"input": "Long day at work, then a run.", "output": "Work took most of it; the run helped.",
           "context": "Yesterday: a run helped after work."}
    rows: list[dict[str, object]] = [
        {"id": "s-right", **day, "metadata": {"life_areas": ["health", "Work"], "expected_life_areas": ["work", "health"]}},
        {"id": "s-wrong", **day, "metadata": {"life_areas": ["work"], "expected_life_areas": ["work", "health"]}},
        {"id": "s-missing", **day, "metadata": {"life_areas": ["work"]}},
    ]
    shadow = _judge(tmp_path, db_url, server, capsys, "shadow-daily-reflection@1.2.0", rows)
    life = {i: (r["dimensions"]["life_area_accuracy"]["judge"], r["dimensions"]["life_area_accuracy"]["judge_error"])
            for i, r in shadow.items()}
    assert life == {"s-right": (10.0, None), "s-wrong": (1.0, None), "s-missing": (
        None, "the item's metadata has no 'expected_life_areas' (the reference label); add it to the item")}

    ask = {"input": "Can I return opened items?", "context": CONTEXT}
    rows = [{"id": "r-right", **ask, "output": "Yes, within 14 days [1]; refunds take 5 days [doc-2]."},
            {"id": "r-wrong", **ask, "output": "Yes, within 14 days [1], free of charge [4]."},
            {"id": "r-none", "input": "Can I return opened items?", "output": "Yes, within 14 days [1]."}]
    (tmp_path / "rag").mkdir()
    rag = _judge(tmp_path / "rag", db_url, server, capsys, "rag-answer@1.1.0", rows)
    rag = {i: r for i, r in rag.items() if i.startswith("r-")}
    sources = {i: (r["dimensions"]["citation_sources"]["judge"], r["dimensions"]["citation_sources"]["judge_error"])
               for i, r in rag.items()}
    assert sources == {"r-right": (10.0, None), "r-wrong": (1.0, None), "r-none": (
        None, "the item has no context to check its citations against; add the retrieved context")}
    # the judge still scores citation correctness beside the check
    assert all(r["dimensions"]["citation_correctness"]["judge"] == 10.0 for r in rag.values())
