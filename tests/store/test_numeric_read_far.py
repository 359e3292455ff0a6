"""A NULL real has no finite stand-in on the streamed read (PostgreSQL): a score as far out as a
rubric's scale may reach (a declared level of -1e300 is a valid scale) comes back as itself, not
as "no score" — beside a failed call's NULL, which stays missing. On both backends."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from reviewer.services.importing import import_file
from reviewer.store import Store
from rubrics.results import ScoreResult

REF = "general-quality@1.0.0"
FAR: list[float | None] = [-1.0e300, -5.0e299, -1.7976931348623157e308, None, 3.0]


def test_far_scores_and_nulls_come_back_as_stored(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "far.jsonl"
    path.write_text("".join(json.dumps({"id": f"f{i}", "output": "o"}) + "\n" for i in range(len(FAR))))
    import_file(store, path, REF, dataset="far")
    run = store.runs.create_judge_run(REF, "m1", dataset="far")
    store.runs.record_results(run, [ScoreResult(f"f{i}", "accuracy", "llm_judge", "m1", s, std=None if s is None else -s,
                                           error=None if s is not None else "no reply") for i, s in enumerate(FAR)])
    dc = store.ratings.rating_columns(REF, "far").dims["accuracy"]
    for i, s in enumerate(FAR):
        if s is None:
            assert np.isnan(dc.judge[i, 0]) and np.isnan(dc.judge_std[i, 0])
        else:
            assert dc.judge[i, 0] == s and dc.judge_std[i, 0] == -s, (i, dc.judge[i, 0])
