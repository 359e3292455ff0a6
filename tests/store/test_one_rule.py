"""Rules read once, from the domain fold, by the store's coverage count and by import's judge
overall (issue 12: these two still derived the rule themselves). On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import text

from reviewer.domain import HumanRow, ItemRows, JudgeRow, fold_item, judge_only, scored_by
from reviewer.services.importing import import_file
from reviewer.store import Store
from rubrics.loader import load_rubric_text

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")

TONE = """\
id: tone-check
version: 1.0.0
name: Tone check
owner: tests
description: The judge scores accuracy; only people score tone.
scale: {min: 1, max: 5}
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
    method: human
    weight: 0.5
    threshold: 50
    anchors: [{range: [1, 2], label: Rude}, {range: [3, 5], label: Polite}]
"""


def _n_reviewed(store: Store, pk: int) -> int:
    with store.db.read() as conn:
        return int(conn.execute(text("SELECT n_reviewed FROM item WHERE pk = :pk"), {"pk": pk}).scalar_one())


def test_coverage_counts_the_votes_the_fold_keeps(store: Store, tmp_path: Path) -> None:
    """A lead who reviewed an item, then adjudicated one dimension and took the adjudication back
    (undo withdraws the latest standing row: the adjudication) still has a full review. The old
    coverage count re-derived votes itself: its undo dropped the lead's vote on that dimension
    too, so ``n_reviewed`` fell to 0 while export still showed the vote."""
    src = tmp_path / "one.jsonl"
    src.write_text(json.dumps({"id": "a", "output": "x"}) + "\n")
    import_file(store, src, REF)
    pk = store.queue.queue_page("triage")[0].item_pk
    store.roles.add_reviewer("lee", "lead")
    for dim in DIMS:
        store.scores.add_human_score(pk, dim, "lee", 7)
    assert _n_reviewed(store, pk) == 1
    store.scores.add_human_score(pk, "accuracy", "lee", 9, kind="adjudication")
    store.scores.add_human_score(pk, "accuracy", "lee", None, kind="undo")
    [row] = store.items.export_rows(REF)
    assert row["dimensions"]["accuracy"]["human"] == {"lee": 7} and row["dimensions"]["accuracy"]["adjudication"] is None
    assert _n_reviewed(store, pk) == 1
    # what the old count did with the same rows: every undo discards the dimension
    old: set[str] = set()
    for dim, kind in [*((d, "score") for d in DIMS), ("accuracy", "adjudication"), ("accuracy", "undo")]:
        if kind == "undo":
            old.discard(dim)
        elif kind != "adjudication":
            old.add(dim)
    assert not store.rubrics.get_rubric(REF).review_complete(old)
    # and what the fold makes of them, which coverage now reads
    rows = [HumanRow(i, d, "lee", 7, "score") for i, d in enumerate(DIMS)]
    rows += [HumanRow(10, "accuracy", "lee", 9, "adjudication"), HumanRow(11, "accuracy", "lee", None, "undo")]
    fold = fold_item(store.rubrics.get_rubric(REF), ItemRows(pk, human=rows))
    assert scored_by({d: f.human for d, f in fold.dims.items()}) == {"lee": set(DIMS)}


def test_import_counts_people_on_human_only_dimensions_into_the_judge_overall(store: Store, tmp_path: Path) -> None:
    """The queue's judge overall of an imported item is the one a judge run's refresh writes
    (:func:`reviewer.domain.judge_only`: people's scores count on dimensions only people score).
    Import used to fold the file's judge scores alone, so an item whose tone a person had scored
    in the file stayed incomplete (no overall, no band) in the queue until something else
    refreshed it."""
    rubric = load_rubric_text(TONE, "tone.yaml")
    store.rubrics.add_rubric(rubric, TONE)
    src = tmp_path / "t.jsonl"
    src.write_text(json.dumps({"id": "t", "output": "x", "judge": {"model": "j", "scores": {"accuracy": 5}},
                               "human": [{"reviewer": "ana", "scores": {"tone": 1}}]}) + "\n")
    import_file(store, src, rubric.ref)
    with store.db.read() as conn:
        pk, overall, band, passed = conn.execute(
            text("SELECT pk, judge_overall, judge_band, judge_passed FROM item")).one()
    [(_, fold)] = list(store.items.item_folds(rubric.ref))
    expected = judge_only(rubric, fold)
    assert expected.overall is not None
    assert (overall, band, passed) == (expected.overall, expected.band.label if expected.band else None,
                                       expected.passed)
    # a judge run's refresh of the same item writes the same numbers
    with store.db.write() as conn:
        store.runs.refresh_summaries(conn, rubric.ref, {pk})
    with store.db.read() as conn:
        assert tuple(conn.execute(text("SELECT judge_overall, judge_band, judge_passed FROM item")).one()) == (
            overall, band, passed)
    # the old import folded the judge rows alone: incomplete, waiting for a person
    judge_alone = judge_only(rubric, fold_item(rubric, ItemRows(0, judge=[JudgeRow(0, "accuracy", None, 5.0)])))
    assert judge_alone.overall is None


def test_a_turns_panel_score_follows_the_rubrics_panel_rule() -> None:
    """Export's per-turn score is the panel's, by the rubric's ``panel_aggregate`` (one rule:
    :func:`rubrics.aggregate.panel_score`). It used to be the mean whatever the rubric said: 4.0
    here, where a median panel says 2.0."""
    from types import SimpleNamespace

    from reviewer.store.importer import turn_rows

    def judged(score: float | None, error: str | None = None) -> SimpleNamespace:
        return SimpleNamespace(score=score, error=error)

    by_turn = {("a", 0): judged(1.0), ("b", 0): judged(2.0), ("c", 0): judged(9.0),
               ("a", 1): judged(None, "timeout"), (None, 2): judged(5.0)}
    median = turn_rows(by_turn, "median")
    assert [r["score"] for r in median] == [2.0, None, 5.0]
    assert median[1]["error"] == "timeout" and median[2]["scores"] == {"judge": 5.0}
    assert turn_rows(by_turn, "mean")[0]["score"] == 4.0
