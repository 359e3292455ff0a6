"""The columnar read codes reviewers, models and dimensions in packed integer keys: at and past
every width a count can reach (4,095 / 4,096 / 4,100 names) it gives every score under its own
name and dimension, the same as the per-row read — on both backends. Each example is one small
dataset; only the count being pushed past its bound is large."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.store.rating_columns import Layout

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "clarity")
#: At and past the old 12-bit edge: 4,095 names fill 12 bits (with the code for "none of them"), 4,096 need 13.
COUNTS = (4095, 4096, 4100)
_names = itertools.count()
#: One generated history per count (every count runs: they are parameters, not drawn).
_PROPERTY = settings(max_examples=1, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _import(store: Store, tmp_path: Path, rows: list[dict[str, object]]) -> str:
    dataset = f"b{next(_names)}"
    path = tmp_path / f"{dataset}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_file(store, path, REF, dataset=dataset)
    return dataset


def _same_as_rows(store: Store, dataset: str) -> tuple[dict[tuple[str, str, str], float], dict[tuple[str, str, str], float]]:
    """(human, judge) scores by (item, dimension, name) from both reads, checked equal."""
    rows = store.ratings.rating_rows(REF, dataset)
    cols = store.ratings.rating_columns(REF, dataset)
    assert [r["item_pk"] for r in rows] == cols.item_pk.tolist()
    human, judge = {}, {}
    for dim in DIMS:
        dc = cols.dims[dim]
        for i, k in zip(*np.nonzero(~np.isnan(dc.humans)), strict=True):
            human[(rows[i]["item_id"], dim, cols.reviewers[k])] = float(dc.humans[i, k])
        for i, k in zip(*np.nonzero(~np.isnan(dc.judge)), strict=True):
            judge[(rows[i]["item_id"], dim, cols.models[k])] = float(dc.judge[i, k])
    assert human == {(r["item_id"], d, w): v for r in rows for d, by in r["human"].items() for w, v in by.items()}
    assert judge == {(r["item_id"], d, m): v for r in rows for d, by in r["judge"].items() for m, v in by.items()}
    return human, judge


@pytest.mark.parametrize("n", COUNTS)
@_PROPERTY
@given(seed=st.integers(0, 2**32 - 1))
def test_many_reviewers_each_under_their_own_name_and_dimension(store: Store, tmp_path: Path, n: int,
                                                                seed: int) -> None:
    rnd = random.Random(seed)
    want = {}
    entries = []
    for w in range(n):
        dim, score = rnd.choice(DIMS), rnd.randint(1, 10)
        want[("x", dim, f"r{w:05d}")] = float(score)
        entries.append({"reviewer": f"r{w:05d}", "scores": {dim: score}})
    dataset = _import(store, tmp_path, [{"id": "x", "output": "o", "human": entries},
                                        {"id": "y", "output": "o", "human": entries[:3]}])
    human, _ = _same_as_rows(store, dataset)
    assert {k: v for k, v in human.items() if k[0] == "x"} == want
    assert len(store.ratings.rating_columns(REF, dataset).reviewers) == n


@pytest.mark.parametrize("n", COUNTS)
@_PROPERTY
@given(seed=st.integers(0, 2**32 - 1))
def test_many_judge_models_each_under_their_own_name_and_dimension(store: Store, tmp_path: Path, n: int,
                                                                   seed: int) -> None:
    from rubrics.results import ScoreResult

    rnd = random.Random(seed)
    dataset = _import(store, tmp_path, [{"id": "x", "output": "o"}, {"id": "y", "output": "o"}])
    # one run whose rows carry many models (a row's model is its own): the read codes them all
    run = store.runs.create_judge_run(REF, "m00000", dataset=dataset)
    want, results = {}, []
    for m in range(n):
        dim, score = rnd.choice(DIMS), rnd.randint(1, 10)
        for item in ("x", "y") if m < 3 else ("x",):
            want[(item, dim, f"m{m:05d}")] = float(score)
            results.append(ScoreResult(item, dim, "llm_judge", f"m{m:05d}", float(score)))
    store.runs.record_results(run, results)
    _, judge = _same_as_rows(store, dataset)
    assert judge == want


@settings(max_examples=200, deadline=None)
@given(dims=st.one_of(st.integers(0, 12), st.sampled_from(COUNTS)),
       names=st.one_of(st.integers(0, 12), st.sampled_from((*COUNTS, 1 << 20, (1 << 20) + 5))),
       last_item=st.one_of(st.integers(1, 1 << 20), st.integers(1 << 30, (1 << 63) - 1)),
       data=st.data())
def test_layout_decodes_every_code_it_packs(dims: int, names: int, last_item: int, data: st.DataObject) -> None:
    """Every (item, dimension, name, flags) the layout for these counts packs — each code at
    most the count, where the count itself stands for a name not in the list — decodes to itself:
    dimension codes of 4,096 dimensions as much as reviewers' (the rubric allows 10 dimensions,
    a read codes whatever the rows hold)."""
    lay = Layout.of(dims, names, last_item)
    size = 50
    item = np.array(data.draw(st.lists(st.integers(1, last_item), min_size=size, max_size=size)), dtype=np.int64)
    dim = np.array(data.draw(st.lists(st.integers(0, dims), min_size=size, max_size=size)), dtype=np.int64)
    who = np.array(data.draw(st.lists(st.integers(0, names), min_size=size, max_size=size)), dtype=np.int64)
    flags = np.array(data.draw(st.lists(st.integers(0, 31), min_size=size, max_size=size)), dtype=np.int64)
    # the SQL codes a name outside the list as all bits set (Layout.codes); decoded, that is -1
    dim_code = np.where(dim == dims, (1 << lay.dim_bits) - 1, dim)
    who_code = np.where(who == names, (1 << lay.who_bits) - 1, who)
    key = lay.pack(item, dim_code, who_code, flags)
    rows = {"key": key, "item": item} if lay.apart else {"key": key}
    assert lay.item(rows).tolist() == item.tolist()
    assert lay.dim(key).tolist() == np.where(dim == dims, -1, dim).tolist()
    assert lay.who(key).tolist() == np.where(who == names, -1, who).tolist()
    assert (key & 31).tolist() == flags.tolist()
    assert (key >= 0).all()


def test_items_past_the_packed_width_travel_apart(tmp_path: Path) -> None:
    """SQLite item keys may be as large as 2**63 - 1: an item key that does not fit beside the
    codes is read as a column of its own, and its scores stay its own."""
    from sqlalchemy import text

    from reviewer.store import open_store

    store = open_store(str(tmp_path / "big.db"))
    try:
        with store.db.write() as conn:  # the next items take keys above 2**60
            conn.execute(text("INSERT INTO item (pk, item_id, dataset, rubric_ref, content_hash, revision, input, output,"
                              " context, reference, is_gold, flagged, n_errors, n_reviewed, safety, triage_key, created_at)"
                              " VALUES (:pk, 'seat', 'seat', :ref, '', 1, '', '', '', '', 0, 0, 0, 0, 'none', 0,"
                              " '2026-01-01 00:00:00')"),
                         {"pk": 1 << 60, "ref": REF})
        dataset = _import(store, tmp_path, [
            {"id": f"i{k}", "output": "o", "judge": {"model": "m", "scores": {"accuracy": k + 1}},
             "human": [{"reviewer": "ana", "scores": {"clarity": 10 - k}}]} for k in range(5)])
        human, judge = _same_as_rows(store, dataset)
        assert Layout.of(len(DIMS), 1, (1 << 60) + 5).apart
        assert judge == {(f"i{k}", "accuracy", "m"): float(k + 1) for k in range(5)}
        assert human == {(f"i{k}", "clarity", "ana"): float(10 - k) for k in range(5)}
    finally:
        store.close()


@pytest.mark.parametrize("names", [0, 1, 4094, 4095, 4096, 4100])
def test_each_width_holds_its_count_and_the_code_for_none(names: int) -> None:
    lay = Layout.of(10, names, 1)
    assert (1 << lay.who_bits) - 1 >= names  # every position, and one more code for "none of them"
    assert lay.who_bits == (12 if names in (4094, 4095) else 13 if names > 4095 else lay.who_bits)
