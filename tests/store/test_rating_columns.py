"""The columnar read (one query per table into numpy, folded by reviewer.domain.columns) gives the
same state as the per-row read, on a random history of scores, blind scores, revisions, undos,
adjudications and several judge models — on both backends."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reviewer.store import Store
from tests.store.rating_history import DIMS, REF, assert_reads_agree, rating_history


@pytest.mark.parametrize(("sample", "seed"), [("all", 3), ("blind", 3), ("all", 8), ("blind", 11), ("audit", 5)])
def test_columns_fold_like_the_rows(store: Store, tmp_path: Path, sample: str, seed: int) -> None:
    rating_history(store, tmp_path, seed=seed)
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

    rating_history(store, tmp_path, seed=seed)
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
    rating_history(store, tmp_path, seed=4)
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
