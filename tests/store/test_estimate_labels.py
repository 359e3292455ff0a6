"""The audit items' labels for the corrected estimates read from calibration's columns equal the
ones read from each item's fold (reviewer.domain), on a random history of scores, undos,
adjudications, a second judge model, a content revision and a safety flag — on both backends,
with each human aggregate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reviewer.services import estimates
from reviewer.services.estimate_labels import labels_of_columns, labels_of_folds
from reviewer.store import Store
from tests.store.rating_history import DIMS, REF, rating_history


@pytest.mark.parametrize(("how", "seed"), [("mean", 3), ("median", 8), ("majority", 11)])
def test_labels_from_columns_equal_labels_from_folds(store: Store, tmp_path: Path, how: str, seed: int) -> None:
    rating_history(store, tmp_path, seed=seed)
    rubric = store.rubrics.get_rubric(REF)
    assert store.queue.create_audit_sample(REF, 18, seed=seed) == 18
    pks = sorted(store.queue.audit_pks(REF))
    rnd = np.random.default_rng(seed)
    for pk in pks[:10]:  # people complete the overall on some: a verdict to compare (pass or fail)
        for d in rubric.dimensions:
            if d.id not in DIMS:
                store.scores.add_human_score(pk, d.id, "bo", 10.0 if pk in pks[1:4] else float(rnd.integers(3, 11)),
                                      sample="audit")
    for pk in pks[1:4]:  # a lead settles these high: they pass
        for dim in DIMS:
            store.scores.add_human_score(pk, dim, "lee", 10, kind="adjudication")
    store.safety.flag_item(pks[0], "ana", "looks unsafe")  # capped: the pass verdict comes from its fold
    folds = estimates.audit_folds(store, rubric, None, how)
    assert folds is not None
    slow = labels_of_folds(rubric, folds)
    cols = store.ratings.rating_columns(REF, "cols", "audit")
    fast = labels_of_columns(store, rubric, cols, how)
    for dim in DIMS:
        (k1, y1, j1), (k2, y2, j2) = slow.dims[dim], fast.dims[dim]
        assert k1.tolist() == k2.tolist() and k1.size > 5
        np.testing.assert_allclose(y2, y1, rtol=1e-12)
        assert j2.tolist() == j1.tolist()
    assert slow.verdicts[0].tolist() == fast.verdicts[0].tolist()
    assert slow.verdicts[1].tolist() == fast.verdicts[1].tolist()
    assert len(slow.verdicts[0]) >= 3 and 0 < slow.verdicts[1].sum() < len(slow.verdicts[1])
    for which in (slow, fast):
        e = estimates.dimension_estimates(store, rubric, None, which, 0.95, None)
        p = estimates.pass_rate(store, rubric, None, which, 0.95)
        assert e["accuracy"]["n_labelled"] == slow.dims["accuracy"][0].size
        assert p["n_labelled"] == int(np.isin(slow.verdicts[0], list(store.ratings.judge_passed_of(pks))).sum())
