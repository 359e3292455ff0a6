"""A seeded rating history, and the check that its rows and columns read alike (test modules
import these, never one another)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from reviewer.domain.columns import RatingColumns
from reviewer.services.importing import import_file
from reviewer.store import Store
from rubrics.results import ScoreResult

WHO = ("ana", "bo", "cy", "lee")
REF = "general-quality@1.0.0"


DIMS = ("accuracy", "clarity")


def rating_history(store: Store, tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    for who in ("lee", *WHO):  # any of them adjudicates below: an adjudication needs the lead role
        store.roles.add_reviewer(who, "lead")
    rows = []
    for i in range(25):
        judge = {d: {"score": rnd.randint(1, 10), "samples": [5, 6]} for d in DIMS if rnd.random() < 0.9}
        rows.append({"id": f"c{i}", "input": "q", "output": f"answer {i}", "judge": {"model": "m1", "scores": judge}})
    path = tmp_path / "cols.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_file(store, path, REF, dataset="cols")
    pks = [r.item_pk for r in store.queue.queue_page("triage", REF, "cols", limit=50)]
    run = store.runs.create_judge_run(REF, "m2", dataset="cols")  # a second model; a failed call; a rescore
    store.runs.record_results(run, [ScoreResult(f"c{i}", "accuracy", "llm_judge", "m2", float(rnd.randint(1, 10)))
                               for i in range(0, 25, 2)])
    store.runs.record_results(run, [ScoreResult("c1", "accuracy", "llm_judge", "m2", None, error="no reply"),
                               ScoreResult("c2", "accuracy", "llm_judge", "m2", 3.0, std=0.5),
                               ScoreResult("c4", "accuracy", "llm_judge", "m2", None, error="later call failed")])
    queues = random.Random(seed + 1)  # the queue each score was given in (own stream: same history)
    for _ in range(220):
        pk, dim, who = rnd.choice(pks), rnd.choice(DIMS), rnd.choice(WHO)
        roll = rnd.random()
        q = queues.choice(("audit", "audit", "triage", None))
        if roll < 0.12:
            store.scores.add_human_score(pk, dim, who, None, kind="undo", sample=q)
        elif roll < 0.2:  # lee both scores and adjudicates: an undo may withdraw either
            store.scores.add_human_score(pk, dim, "lee", rnd.randint(1, 10), kind="adjudication")
        elif roll < 0.35:
            store.scores.add_human_score(pk, dim, who, rnd.randint(1, 10), kind="revision", sample=q)
        else:
            store.scores.add_human_score(pk, dim, who, rnd.randint(1, 10), blind=rnd.random() < 0.5, sample=q)
    # c0's content changes: its earlier scores belong to revision 1 and stop counting
    rows[0]["output"] = "answer 0, rewritten"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_file(store, path, REF, dataset="cols", update_existing=True)
    store.scores.add_human_score(pks[0], "clarity", "ana", 9)


def assert_reads_agree(rows: list[dict[str, Any]], cols: RatingColumns, dims: tuple[str, ...]) -> int:
    """The per-item read's ``rows`` and the columnar read's ``cols`` hold the same items, names,
    current human scores, judge scores and spreads, adjudications and revised blind scores on
    ``dims``; returns how many human scores were compared."""
    assert [r["item_pk"] for r in rows] == cols.item_pk.tolist()
    assert cols.models == sorted({m for r in rows for d in r["judge"].values() for m in d})
    assert cols.reviewers == sorted({w for r in rows for d in r["human"].values() for w in d})
    checked = 0
    for dim in dims:
        dc = cols.dims[dim]
        for i, r in enumerate(rows):
            humans = {w: dc.humans[i, k] for k, w in enumerate(cols.reviewers) if not np.isnan(dc.humans[i, k])}
            assert humans == r["human"].get(dim, {}), (dim, r["item_id"])
            judge = {m: dc.judge[i, k] for k, m in enumerate(cols.models) if not np.isnan(dc.judge[i, k])}
            assert judge == r["judge"].get(dim, {}), (dim, r["item_id"])
            stds = {m: dc.judge_std[i, k] for k, m in enumerate(cols.models) if not np.isnan(dc.judge_std[i, k])}
            assert stds == {m: v for m, v in r["judge_std"].get(dim, {}).items() if v is not None}
            settled = r["adjudicated"].get(dim)
            assert (np.isnan(dc.adjudicated[i]) if settled is None else dc.adjudicated[i] == settled)
            checked += len(humans)
        moves = sorted((i, b, v) for i, r in enumerate(rows) for b, v in r["revised"].get(dim, {}).values())
        assert sorted(map(tuple, dc.revised.tolist())) == moves
    return checked
