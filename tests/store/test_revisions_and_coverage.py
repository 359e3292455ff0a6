"""Scores belong to a content revision; human scores at import lie on the scale's levels; every
review counts towards coverage, imported or entered, and an item is done for a person only when
they have scored every dimension a person scores. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlmodel import col

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.store.tables import Assignment, Item
from rubrics.loader import load_rubric_text

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")


def _write(path: Path, *rows: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _item(store: Store, item_id: str) -> Any:
    with store.db.read() as conn:
        return conn.execute(select(Item).where(col(Item.item_id) == item_id)).one()


def test_update_with_new_content_is_a_new_revision_with_no_scores_of_its_own(store: Store, tmp_path: Path) -> None:
    """Before revisions, the corrected answer below kept the old answer's judge verdict and
    stayed human-approved at 10/10 in export, the queue and calibration."""
    store.roles.add_reviewer("lee", "lead")  # the OS user leads: it enters the imported people's work
    right = {"id": "cap", "input": "Capital of France?", "output": "Paris is the capital of France.",
             "judge": {"model": "j", "scores": dict.fromkeys(DIMS, 10)},
             "human": [{"reviewer": "ana", "scores": dict.fromkeys(DIMS, 10)}]}
    import_file(store, _write(tmp_path / "v1.jsonl", right), REF)
    first = _item(store, "cap")
    assert (first.revision, first.n_reviewed, first.judge_passed) == (1, 1, True)
    store.scores.add_human_score(first.pk, "accuracy", "bo", 9)
    wrong = {**right, "output": "Paris is the capital of Germany."}
    del wrong["judge"], wrong["human"]
    import_file(store, _write(tmp_path / "v2.jsonl", wrong), REF, update_existing=True)

    now = _item(store, "cap")
    assert now.revision == 2 and now.output == "Paris is the capital of Germany."
    assert (now.judge_overall, now.judge_band, now.judge_passed, now.judge_spread) == (None, None, None, None)
    assert (now.n_reviewed, now.n_errors, now.flagged) == (0, 0, False)
    [row] = [r for r in store.items.export_rows(REF) if r["id"] == "cap"]
    assert all(not d["human"] and d["judge"] is None for d in row["dimensions"].values())
    assert row["passed"] is not True
    view = store.items.item_view(now.pk)
    assert view.human == {} or all(not v for v in view.human.values())
    assert all(not recs for recs in view.judge.values())
    # the history is kept: every earlier row is still there, with the revision it was given on
    history = store.scores.human_rows(now.pk)
    assert len(history) == len(DIMS) + 1
    [current] = store.ratings.rating_rows(REF)
    assert current["human"] == {} or all(not v for v in current["human"].values())
    [everything] = store.ratings.rating_rows(REF, all_revisions=True)
    assert everything["human"]["accuracy"] == {"ana": 10, "bo": 9}
    # back in the queue, for the people who reviewed the old text too
    claim = store.queue.claim_next("triage", "ana")
    assert claim is not None and claim.item_pk == now.pk
    with store.db.read() as conn:
        assert conn.execute(select(col(Assignment.revision)).where(col(Assignment.item_pk) == now.pk)).scalar() == 2


def test_calibrate_uses_the_current_revision_unless_asked_for_all(store: Store, tmp_path: Path) -> None:
    from reviewer.services.calibrate_service import calibrate

    rows: list[dict[str, Any]] = [{"id": f"c{i}", "output": f"answer {i}", "judge": {"model": "j", "scores": {"accuracy": 1 + i % 10}},
             "human": [{"reviewer": "ana", "scores": {"accuracy": 1 + i % 10}}]} for i in range(12)]
    import_file(store, _write(tmp_path / "a.jsonl", *rows), REF)
    changed = [{"id": r["id"], "output": r["output"] + " (edited)"} for r in rows[:5]]
    import_file(store, _write(tmp_path / "b.jsonl", *changed), REF, update_existing=True)
    current = {d["dimension"]: d for d in calibrate(store, REF, draws=0, estimates=False)["dimensions"]}
    history = calibrate(store, REF, draws=0, estimates=False, all_revisions=True)
    assert history["revisions"] == "all"
    every = {d["dimension"]: d for d in history["dimensions"]}
    assert current["accuracy"]["n"] == 7 and every["accuracy"]["n"] == 12


def test_human_scores_off_the_scale_levels_are_refused_at_import(store: Store, tmp_path: Path) -> None:
    ok = {"id": "a", "output": "x", "human": [{"reviewer": "ana", "scores": {"accuracy": 7}}]}
    half = {"id": "b", "output": "y", "human": [{"reviewer": "ana", "scores": {"accuracy": 7.5}}]}
    path = _write(tmp_path / "half.jsonl", ok, half)
    with pytest.raises(UserError) as err:
        import_file(store, path, REF)
    [line] = str(err.value).splitlines()
    assert line.startswith(f"{path}:2: item b: ana accuracy: score 7.5 is not a level of the scale (1, 2, …, 10)")
    assert store.queue.queue_count("triage") == 0  # nothing half-written
    # REVAL's 1–3–5 scale: 2 lies on the range but is not one of its levels
    reval: dict[str, Any] = {"id": "r", "output": "z", "human": [{"reviewer": "ana", "scores": {"framing": 2}}]}
    rubric = store.rubrics.get_rubric("reval-issue-framing")
    dim = next(d for d in rubric.dimensions if d.scale.levels and len(d.scale.levels) == 3)
    reval["human"][0]["scores"] = {dim.id: 2}
    with pytest.raises(UserError, match="score 2 is not a level of the scale \\(1, 3, 5\\)"):
        import_file(store, _write(tmp_path / "reval.jsonl", reval), rubric.ref)
    # a published mean of several people says so, and is taken as it is
    mean = {"id": "m", "output": "w", "human": [{"reviewer": "panel", "aggregate": True, "scores": {"accuracy": 7.5}}]}
    import_file(store, _write(tmp_path / "mean.jsonl", mean), REF)


def test_imported_reviews_count_and_half_scored_items_stay_in_progress(store: Store, tmp_path: Path) -> None:
    store.roles.add_reviewer("lee", "lead")  # the OS user leads: it enters the imported people's work
    full = dict.fromkeys(DIMS, 6)
    rows: list[dict[str, Any]] = [
        {"id": "done", "output": "a", "human": [{"reviewer": "ana", "scores": full},
                                                {"reviewer": "bo", "scores": {"accuracy": 6}}]},
        {"id": "open", "output": "b"}]
    import_file(store, _write(tmp_path / "r.jsonl", *rows), REF)
    pages = store.queue.queue_page("triage", REF)
    reviewed = {r.item_id: r.reviewed for r in pages}
    open_pk = next(r.item_pk for r in pages if r.item_id == "open")
    assert reviewed == {"done": 1, "open": 0}  # ana's full review counts; bo's one score does not
    # one reviewer per item: "done" is covered, so it is not served as new
    served = store.queue.claim_next("triage", "cy")
    assert served is not None and served.item_id == "open"
    store.queue.release(served)
    store.queue.set_queue_settings("triage", REF, reviewers_per_item=2)
    # ana reviewed "done" in the import: it is not served to her again
    mine = store.queue.claim_next("triage", "ana")
    assert mine is not None and mine.item_id == "open"
    store.queue.release(mine)
    # cy scores two of five dimensions and leaves: not done, the assignment stays in progress
    claim = store.queue.claim_next("triage", "cy", exclude=[open_pk])
    assert claim is not None and claim.item_id == "done"
    for dim in DIMS[:2]:
        store.scores.add_human_score(claim.item_pk, dim, "cy", 5)
    assert store.queue.complete(claim) is False
    with store.db.read() as conn:
        states = conn.execute(select(col(Assignment.state)).where(col(Assignment.item_pk) == claim.item_pk,
                                                             col(Assignment.reviewer) == "cy")).scalars().all()
    assert states == ["active"] and _item(store, "done").n_reviewed == 1
    # the queue does not hand it to cy again (another reviewer gets it); cy reopens it to finish
    assert store.queue.claim_next("triage", "cy", exclude=[open_pk]) is None
    again = store.queue.claim_item(claim.item_pk, "triage", "cy")
    assert again is not None
    for dim in DIMS[2:]:
        store.scores.add_human_score(again.item_pk, dim, "cy", 5)
    assert store.queue.complete(again) is True
    assert _item(store, "done").n_reviewed == 2
    assert store.queue.claim_next("triage", "eve", exclude=[open_pk]) is None  # two complete reviews: covered


PARTIAL = """\
id: partial-review
version: 1.0.0
name: Partial review
owner: tests
description: Two dimensions; a review with either one counts.
scale: {min: 1, max: 5}
review: {partial: true}
dimensions:
  - id: accuracy
    description: Whether the answer is right.
    method: llm_judge
    weight: 0.5
    threshold: 50
    prompt: Is {output} right?
    anchors: [{range: [1, 2], label: Wrong}, {range: [3, 5], label: Right}]
  - id: tone
    description: Whether the answer is polite.
    method: llm_judge
    weight: 0.5
    threshold: 50
    prompt: Is {output} polite?
    anchors: [{range: [1, 2], label: Rude}, {range: [3, 5], label: Polite}]
"""


def test_review_partial_lets_one_dimension_complete_a_review(store: Store, tmp_path: Path) -> None:
    rubric = load_rubric_text(PARTIAL, "partial.yaml")
    assert rubric.review.partial and not store.rubrics.get_rubric(REF).review.partial
    store.rubrics.add_rubric(rubric, PARTIAL)
    import_file(store, _write(tmp_path / "p.jsonl", {"id": "p", "output": "x",
                                                     "human": [{"reviewer": "ana", "scores": {"tone": 4}}]}),
                       rubric.ref)
    assert _item(store, "p").n_reviewed == 1
    store.queue.set_queue_settings("triage", rubric.ref, reviewers_per_item=2)
    claim = store.queue.claim_next("triage", "bo")
    assert claim is not None
    store.scores.add_human_score(claim.item_pk, "accuracy", "bo", 3)
    assert store.queue.complete(claim) is True and _item(store, "p").n_reviewed == 2


def test_a_pair_choice_belongs_to_the_content_both_sides_had(store: Store, tmp_path: Path) -> None:
    """A choice made between two answers is not a choice between their replacements: once either
    side is updated, the choice is history (``pair_choices`` leaves it out unless asked)."""
    store.roles.add_reviewer("lee", "lead")  # the OS user leads: it enters the imported people's work
    from tests.store.conftest import DEMO

    ref = "reval-issue-framing@1.0.0"
    import_file(store, DEMO / "reval-issue-framing.jsonl", ref, dataset="demo")
    (a, _, _), (b, _, _) = store.scores.group_overalls(ref)["frame-01"]
    store.scores.add_pair_choice(a, "ana", b)
    assert store.scores.pair_choices(ref, "frame-01") == {"frame-01": {"ana": b}}
    lines = (DEMO / "reval-issue-framing.jsonl").read_text().splitlines()
    row = next(json.loads(line) for line in lines if json.loads(line)["id"] == store.items.item_view(b).item_id)
    row["output"] = row["output"] + " Edited."
    row.pop("human", None)
    row.pop("judge", None)
    import_file(store, _write(tmp_path / "edit.jsonl", row), ref, dataset="demo", update_existing=True)
    assert store.scores.pair_choices(ref, "frame-01") == {}
    assert store.scores.pair_choices(ref, "frame-01", all_revisions=True) == {"frame-01": {"ana": b}}
    store.scores.add_pair_choice(a, "ana", a)  # chosen again, between the current answers
    assert store.scores.pair_choices(ref, "frame-01") == {"frame-01": {"ana": a}}


def test_a_database_from_before_counts_its_imported_reviews_when_opened(db_url: str, tmp_path: Path) -> None:
    from sqlalchemy import text

    from reviewer.store import open_store

    store = open_store(db_url)
    import_file(store, _write(tmp_path / "old.jsonl", {"id": "o", "output": "x", "human": [
        {"reviewer": "ana", "scores": dict.fromkeys(DIMS, 5)}, {"reviewer": "bo", "scores": dict.fromkeys(DIMS, 6)}]}),
        REF)
    with store.db.engine.begin() as conn:  # what an older release left: imported reviews counted nowhere
        conn.execute(text("UPDATE item SET n_reviewed = 0"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0007b_coverage'"))
    store.close()
    again = open_store(db_url)
    assert _item(again, "o").n_reviewed == 2
    assert again.queue.claim_next("triage", "cy") is None  # covered: not served as new
    again.close()
