"""The columnar read (one query per table into numpy, folded by reviewer.domain.columns) gives the
same state as the per-row read, on a random history of scores, blind scores, revisions, undos,
adjudications and several judge models — on both backends."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from reviewer.domain.columns import RatingColumns
from reviewer.services.importing import import_file
from reviewer.store import Store
from rubrics.results import ScoreResult

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "clarity")
WHO = ("ana", "bo", "cy", "lee")


def _history(store: Store, tmp_path: Path, seed: int) -> None:
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


@pytest.mark.parametrize(("sample", "seed"), [("all", 3), ("blind", 3), ("all", 8), ("blind", 11), ("audit", 5)])
def test_columns_fold_like_the_rows(store: Store, tmp_path: Path, sample: str, seed: int) -> None:
    _history(store, tmp_path, seed=seed)
    if sample == "audit":  # people's labels only (reviewer.domain.labels), on both paths
        store.queue.create_audit_sample(REF, 20, seed=seed)
    rows = store.ratings.rating_rows(REF, "cols", sample)
    cols = store.ratings.rating_columns(REF, "cols", sample)
    checked = assert_reads_agree(rows, cols, DIMS)
    assert checked > 20  # the history left plenty of current scores to compare
    if sample == "audit":  # the labels only: scores given in triage or outside a queue left out
        assert cols.reviewers and len(cols.item_pk) == 20
        return
    assert "m2" not in rows[4]["judge"].get("accuracy", {})  # its latest call failed: no score from m2
    assert rows[0]["human"].get("accuracy", {}) == {}  # revision 1's scores left out
    if sample == "all":
        assert rows[0]["human"]["clarity"] == {"ana": 9.0}


@pytest.mark.parametrize(("sample", "how", "seed"), [("all", "mean", 3), ("blind", "median", 8), ("all", "majority", 11)])
def test_confusion_tables_from_columns_equal_the_per_row_tables(store: Store, tmp_path: Path, sample: str, how: str,
                                                                 seed: int) -> None:
    """The HTML report's and the TUI's judge × human tables (now read from the columns) hold the
    counts the per-row read gives: the panel and the domain's consensus of each row."""
    from calibration.agreement import table
    from calibration.detail import reliability
    from reviewer.domain import consensus
    from reviewer.services.calibrate_service import confusions
    from rubrics.aggregate import panel_score

    _history(store, tmp_path, seed=seed)
    rubric = store.rubrics.get_rubric(REF)
    got = confusions(store, {"rubric": REF, "dataset": "cols", "sample": sample, "human_aggregate": how})
    rows = store.ratings.rating_rows(REF, "cols", sample)
    for dim in DIMS:
        pairs = [(panel_score(list(r["judge"][dim].values()), rubric.judge.panel_aggregate),
                  consensus(list(r["human"][dim].values()), how))
                 for r in rows if r["judge"].get(dim) and r["human"].get(dim)]
        levels = list(rubric.dimension(dim).scale.level_values())
        j, h = np.array(pairs).T
        assert got[dim] == {"levels": levels, "table": table(j, h, levels).tolist(), "n": len(pairs),
                            "reliability": reliability(j, h, levels)}
        assert sum(map(sum, got[dim]["table"])) == len(pairs) > 5


def test_the_judge_side_alone_is_the_judge_side_of_the_whole_read(store: Store, tmp_path: Path) -> None:
    """``rating_columns(humans=False)`` (what the corrected estimates' ranking by group reads of
    every item) holds the same items, groups, judge scores and spreads as the whole read, and no
    human row."""
    _history(store, tmp_path, seed=4)
    whole = store.ratings.rating_columns(REF, "cols", "all", "metadata.k")
    judge = store.ratings.rating_columns(REF, "cols", "all", "metadata.k", humans=False)
    assert whole.reviewers and judge.reviewers == []
    assert judge.item_pk.tolist() == whole.item_pk.tolist() and judge.models == whole.models == ["m1", "m2"]
    assert judge.groups is not None and whole.groups is not None
    assert judge.groups.per_item() == whole.groups.per_item() == [None] * 25
    for dim in DIMS:
        a, b = whole.dims[dim], judge.dims[dim]
        assert np.array_equal(a.judge, b.judge, equal_nan=True) and np.array_equal(a.judge_std, b.judge_std, equal_nan=True)
        assert b.humans.shape == (25, 0) and np.isnan(b.adjudicated).all()
        assert (~np.isnan(a.judge)).sum() > 20
