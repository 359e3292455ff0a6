"""The ratings are read two ways — per item through the domain fold (``rating_rows``) and as
numpy columns for calibration at scale (``rating_columns``, whose fold hands every key with an
undo to the domain's own rule) — and generated histories keep them equal: scores, blind scores,
revisions, undos, adjudications, a content revision, several judge models and failed calls, on
both backends. Each example is one small dataset of its own."""

from __future__ import annotations

import contextlib
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import Store
from rubrics.results import ScoreResult
from tests.store.rating_history import assert_reads_agree

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "clarity")
WHO = ("ana", "bo", "lee")
ITEMS = 4
_names = itertools.count()
HUMAN = st.tuples(st.integers(0, ITEMS - 1), st.sampled_from(DIMS), st.sampled_from(WHO),
                  st.sampled_from(["score", "score", "revision", "undo", "adjudication"]),
                  st.integers(1, 10), st.booleans())
JUDGE = st.tuples(st.integers(0, ITEMS - 1), st.sampled_from(DIMS), st.sampled_from(["m1", "m2"]),
                  st.one_of(st.none(), st.integers(1, 10)))


@pytest.mark.parametrize("sample", ["all", "blind"])
@settings(max_examples=10, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(humans=st.lists(HUMAN, min_size=1, max_size=25), judges=st.lists(JUDGE, max_size=8),
       revise=st.booleans())
def test_the_two_reads_of_the_ratings_agree(store: Store, tmp_path: Path, sample: str,
                                            humans: list[tuple[int, str, str, str, int, bool]],
                                            judges: list[tuple[int, str, str, int | None]], revise: bool) -> None:
    with contextlib.suppress(UserError):  # lee adjudicates below (the first role of a store: once)
        store.roles.add_reviewer("lee", "lead")
    dataset = f"h{next(_names)}"
    rows = [{"id": f"c{i}", "output": f"answer {i}", "judge": {"model": "m1", "scores": {"accuracy": 1 + i}}}
            for i in range(ITEMS)]
    path = tmp_path / f"{dataset}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_file(store, path, REF, dataset=dataset)
    pks = [r.item_pk for r in store.queue.queue_page("triage", REF, dataset, limit=50)]
    if judges:
        run = store.runs.create_judge_run(REF, "m2", dataset=dataset)
        store.runs.record_results(run, [ScoreResult(f"c{i}", dim, "llm_judge", model, None if s is None else float(s),
                                               error="no reply" if s is None else None)
                                   for i, dim, model, s in judges])
    for n, (i, dim, who, kind, score, blind) in enumerate(humans):
        if kind == "undo":
            store.scores.add_human_score(pks[i], dim, who, None, kind="undo")
        elif kind == "adjudication":
            store.scores.add_human_score(pks[i], dim, "lee", score, kind="adjudication")
        else:
            store.scores.add_human_score(pks[i], dim, who, score, kind=kind, blind=blind and kind == "score")
        if revise and n == len(humans) // 2:  # c0's content changes: what came before stops counting
            rows[0]["output"] = "answer 0, rewritten"
            path.write_text("".join(json.dumps(r) + "\n" for r in rows))
            import_file(store, path, REF, dataset=dataset, update_existing=True)
    want = store.ratings.rating_rows(REF, dataset, sample)
    cols = store.ratings.rating_columns(REF, dataset, sample)
    assert_reads_agree(want, cols, DIMS)
