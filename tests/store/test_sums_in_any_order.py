"""Calibrate's figures do not depend on the order rows are added in: the judge's totals over every
item (count, sum, sum of squares) counted by the database are each the correctly rounded sum of
the stored scores — what a database's own ``SUM`` is not (it adds in its scan order, and SQLite
and PostgreSQL round differently) — and the same figures as folding the items' columns, to the
last bit, on both backends."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

from reviewer.services.estimates import dimension_estimates
from reviewer.services.importing import import_file
from reviewer.store import Store

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")


def test_the_judges_totals_are_exact_sums_whatever_the_order(store: Store, tmp_path: Path) -> None:
    rnd = random.Random(7)
    # scores with every bit of a double used: added one by one, the order shows in the last digits;
    # some repeat, as levels do
    pool = [1 + 9 * rnd.random() for _ in range(40)] + [3.0, 7.5, 1 / 3 + 5]
    scores = {d: [rnd.choice(pool) for _ in range(300)] for d in DIMS}
    rows = [{"id": f"i{i}", "input": "q", "output": f"answer {i}",
             "judge": {"model": "m1", "scores": {d: {"score": scores[d][i]} for d in DIMS}}} for i in range(300)]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    import_file(store, path, REF, dataset="d")
    totals = store.ratings.judge_score_totals(REF)
    assert totals is not None
    for d in DIMS:
        assert totals[d] == (300, math.fsum(scores[d]), math.fsum(v * v for v in scores[d])), d
    rubric = store.rubrics.get_rubric(REF)
    counted = dimension_estimates(store, rubric, None, None, 0.95, None)
    folded = dimension_estimates(store, rubric, None, None, 0.95, None, count_in_db=False)
    assert counted == folded
    assert {d: counted[d]["judge_only"] for d in DIMS} == {d: math.fsum(scores[d]) / 300 for d in DIMS}


def test_judge_costs_are_exact_sums_whatever_the_order(demo_store: Store) -> None:
    """A run's cost (per dimension and in all) and the rubric's cost per dimension are the
    correctly rounded sum of the rows' costs: two runs given the same costs in opposite orders
    report the same figures, to the last bit, on both backends."""
    from rubrics.results import ScoreResult

    rnd = random.Random(11)
    ids = [f"gq-{i:03d}" for i in range(1, 31)]
    costs = {d: [rnd.random() * 10 ** rnd.randint(-6, -2) for _ in ids] for d in DIMS[:2]}

    def run(order: list[int]) -> int:
        run_id = demo_store.runs.create_judge_run(REF, "m1")
        demo_store.runs.record_results(run_id, [ScoreResult(ids[i], d, "llm", model="m1", score=3.0, cost_usd=costs[d][i])
                                                for i in order for d in costs])
        return run_id

    forwards = demo_store.runs.judge_run_report(run(list(range(len(ids)))))
    backwards = demo_store.runs.judge_run_report(run(list(reversed(range(len(ids))))))
    every = [c for d in costs for c in costs[d]]
    assert forwards["cost_usd"] == backwards["cost_usd"] == math.fsum(every)
    for d in costs:
        assert forwards["dimensions"][d]["cost_usd"] == backwards["dimensions"][d]["cost_usd"] == math.fsum(costs[d])
    by_dim = demo_store.ratings.judge_cost_by_dimension(REF)
    assert {d: by_dim[d]["cost_usd"] for d in costs} == {d: math.fsum(costs[d] * 2) for d in costs}
    assert {d: by_dim[d]["calls"] for d in costs} == {d: 63 + 2 * len(ids) for d in costs}  # (the import's 63, free)
