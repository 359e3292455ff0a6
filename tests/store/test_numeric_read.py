"""The aggregated numeric read (reviewer.store.numeric_read): every real exactly as stored, whatever
its value (levels, thirds, a spread, tiny and huge numbers, NULL), rows in key order, and the same
columns however the read is cut into chunks — on both backends (PostgreSQL streams the rows)."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from reviewer.services.importing import import_file
from reviewer.store import Store, numeric_read, open_store
from reviewer.store.numeric_read import in_key_order
from rubrics.results import ScoreResult

REF = "general-quality@1.0.0"
#: Judge scores as stored: levels, halves, a mean of three samples, 0.1 + 0.2 (no short decimal
#: gives it back), a subnormal, one past 2**33 (no exact code), a failed call (NULL).
SCORES: list[float | None] = [7.0, 2.5, 20 / 3, 0.1 + 0.2, 5e-324, 2.0**40 + 0.5, None, 1.0 + 2.0**-40, 3.25]
STDS: list[float | None] = [None, 0.5, math.sqrt(2.0), 1 / 3, None, 0.0, None, 2.0**-30, 1e-17]


def _judged(store: Store, tmp_path: Path) -> list[int]:
    rows = [{"id": f"n{i}", "input": "q", "output": f"answer {i}"} for i in range(len(SCORES))]
    path = tmp_path / "numeric.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_file(store, path, REF, dataset="num")
    run = store.runs.create_judge_run(REF, "m1", dataset="num")
    store.runs.record_results(run, [ScoreResult(f"n{i}", "accuracy", "llm_judge", "m1", s, std=d,
                                           error=None if s is not None else "no reply")
                               for i, (s, d) in enumerate(zip(SCORES, STDS, strict=True))])
    cols = store.ratings.rating_columns(REF, "num")
    return [int(p) for p in cols.item_pk]


def test_every_real_comes_back_exactly(store: Store, tmp_path: Path) -> None:
    _judged(store, tmp_path)
    cols = store.ratings.rating_columns(REF, "num")
    dc = cols.dims["accuracy"]
    got_scores, got_stds = dc.judge[:, 0], dc.judge_std[:, 0]
    for i, (s, d) in enumerate(zip(SCORES, STDS, strict=True)):
        if s is None:  # the failed call leaves the model without a score on that item
            assert np.isnan(got_scores[i])
            continue
        assert got_scores[i].hex() == s.hex(), (i, got_scores[i], s)  # bit for bit, not "close"
        assert (np.isnan(got_stds[i]) if d is None else got_stds[i].hex() == d.hex()), (i, got_stds[i], d)


def test_chunks_give_the_same_columns(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _judged(store, tmp_path)
    for i, who in enumerate(("ana", "bo", "cy")):
        for pk in store.ratings.rating_columns(REF, "num").item_pk[i::2]:
            store.scores.add_human_score(int(pk), "clarity", who, 3.5 + i)
    whole = store.ratings.rating_columns(REF, "num")
    monkeypatch.setattr(numeric_read, "CHUNK", 2)  # many small aggregates instead of one
    cut = store.ratings.rating_columns(REF, "num")
    for d in ("accuracy", "clarity"):
        np.testing.assert_array_equal(whole.dims[d].judge, cut.dims[d].judge)
        np.testing.assert_array_equal(whole.dims[d].judge_std, cut.dims[d].judge_std)
        np.testing.assert_array_equal(whole.dims[d].humans, cut.dims[d].humans)
    assert whole.reviewers == cut.reviewers == ["ana", "bo", "cy"]
    assert not np.isnan(whole.dims["clarity"].humans).all()


def test_columns_are_put_in_key_order() -> None:
    """SQLite documents no order for what group_concat aggregates: the keys travel with the
    values and the columns are sorted by them when they did not come in order."""
    pk = np.array([5, 1, 9, 3], dtype=np.int64)
    cols = {"pk": pk, "v": np.array([50.0, 10.0, 90.0, 30.0])}
    out = in_key_order(cols)
    assert out["pk"].tolist() == [1, 3, 5, 9]
    assert out["v"].tolist() == [10.0, 30.0, 50.0, 90.0]
    ordered = {"pk": np.array([1, 2, 3], dtype=np.int64), "v": np.array([1.0, 2.0, 3.0])}
    assert in_key_order(ordered) is ordered  # already in order: nothing copied


def test_the_judge_side_read_beside_keeps_one_snapshot(store: Store, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """On SQLite the judge rows are read on a second connection while the first reads the human
    rows; a write landing between the two snapshots (here: a new judge score, committed just as
    the second connection starts) must not reach the columns — the judge side is then read again
    on the first connection. Without the stamp check the new score came through (checked below
    by reading with the check switched off)."""
    from reviewer.store import rating_columns as rc

    pks = _judged(store, tmp_path)
    before = store.ratings.rating_columns(REF, "num").dims["accuracy"].judge.copy()
    real = rc._stamp
    calls: list[str] = []

    def stamp_after_a_write(conn: Any, ref: str) -> Any:
        calls.append(ref)
        if len(calls) == 2:  # the second connection, before its first read: someone writes now
            run = store.runs.create_judge_run(REF, "m1", dataset="num")
            store.runs.record_results(run, [ScoreResult("n0", "accuracy", "llm_judge", "m1", 1.0)])
        return real(conn, ref)  # the real stamp, of that connection

    monkeypatch.setattr(rc, "_stamp", stamp_after_a_write)
    got = store.ratings.rating_columns(REF, "num").dims["accuracy"].judge
    if store.db.engine.dialect.name == "sqlite":
        assert len(calls) == 2  # a second connection was used, and its stamp differed
        np.testing.assert_array_equal(got, before)  # the first snapshot's scores, n0 still 7.0
    after = store.ratings.rating_columns(REF, "num").dims["accuracy"].judge  # a later read sees the write
    assert after[0, 0] == 1.0 and pks[0] == int(store.ratings.rating_columns(REF, "num").item_pk[0])
    if store.db.engine.dialect.name != "sqlite":
        return  # PostgreSQL reads both tables on one connection
    # the same write between the snapshots with the check switched off (every stamp alike): the
    # second connection's newer score comes through beside the first snapshot's rows
    calls.clear()

    def no_check(conn: Any, ref: str) -> Any:
        calls.append(ref)
        if len(calls) == 2:
            run = store.runs.create_judge_run(REF, "m1", dataset="num")
            store.runs.record_results(run, [ScoreResult("n0", "accuracy", "llm_judge", "m1", 2.0)])
        return (ref,)

    monkeypatch.setattr(rc, "_stamp", no_check)
    unchecked = store.ratings.rating_columns(REF, "num").dims["accuracy"].judge
    assert unchecked[0, 0] == 2.0  # written after the first snapshot began: what the check prevents


def _rated(store: Store, tmp_path: Path) -> list[int]:
    """The judged items, each scored by three people on clarity."""
    pks = _judged(store, tmp_path)
    for who in ("ana", "bo", "cy"):
        for i, pk in enumerate(pks):
            store.scores.add_human_score(pk, "clarity", who, 1.0 + (i + len(who)) % 5)
    return pks


def test_human_rows_read_in_two_halves_give_the_same_columns(store: Store, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Many human rows are read as two key ranges at once (SQLite, one connection each); the
    columns are those of one read, cut into chunks or not."""
    from reviewer.store import rating_columns as rc

    _rated(store, tmp_path)
    whole = store.ratings.rating_columns(REF, "num")
    calls: list[str] = []
    real = rc._stamp

    def counted(conn: Any, ref: str) -> Any:
        calls.append(ref)
        return real(conn, ref)

    monkeypatch.setattr(rc, "_stamp", counted)
    monkeypatch.setattr(rc, "SPLIT_ROWS", 1)
    for chunk in (numeric_read.CHUNK, 2):
        monkeypatch.setattr(numeric_read, "CHUNK", chunk)
        calls.clear()
        halves = store.ratings.rating_columns(REF, "num")
        if store.db.engine.dialect.name == "sqlite":
            assert len(calls) == 3  # the first connection, the judge side's and the second half's
        for d in ("accuracy", "clarity"):
            np.testing.assert_array_equal(whole.dims[d].humans, halves.dims[d].humans)
            np.testing.assert_array_equal(whole.dims[d].judge, halves.dims[d].judge)
        assert whole.reviewers == halves.reviewers


def test_a_half_read_beside_keeps_one_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A content revision committed as the second half's connection starts would turn that half's
    scores of the revised item into scores of earlier content, while the first snapshot still
    counts them: the stamp differs and the half is read again on the first connection. Without the
    check (every stamp alike) the columns mix the two snapshots."""
    from reviewer.store import rating_columns as rc

    store = open_store(str(tmp_path / "store.db"))  # SQLite alone: PostgreSQL reads on one connection
    pks = _rated(store, tmp_path)
    revise = tmp_path / "revise.jsonl"
    revise.write_text(json.dumps({"id": "n0", "input": "q", "output": "answer 0, corrected"}) + "\n")
    import_file(store, revise, REF, dataset="num", update_existing=True)  # some item revised: rows are checked
    last = len(pks) - 1
    before = store.ratings.rating_columns(REF, "num").dims["clarity"].humans.copy()
    assert not np.isnan(before[last]).any()
    later = tmp_path / "later.jsonl"
    later.write_text(json.dumps({"id": f"n{last}", "input": "q", "output": "a changed answer"}) + "\n")
    real = rc._stamp
    monkeypatch.setattr(rc, "SPLIT_ROWS", 1)

    def write_between(stamp: Any) -> Any:
        calls: list[str] = []
        one_at_a_time = threading.Lock()  # the other connection starts only once the write is in

        def hook(conn: Any, ref: str) -> Any:
            with one_at_a_time:
                calls.append(ref)
                if len(calls) == 2:  # a second connection is starting: the item is revised now
                    import_file(store, later, REF, dataset="num", update_existing=True)
            return stamp(conn, ref)

        return hook

    monkeypatch.setattr(rc, "_stamp", write_between(real))
    np.testing.assert_array_equal(store.ratings.rating_columns(REF, "num").dims["clarity"].humans, before)
    assert np.isnan(store.ratings.rating_columns(REF, "num").dims["clarity"].humans[last]).all()  # a later read sees it
    # the same with the check switched off: the newer snapshot's half comes through
    revise.write_text(json.dumps({"id": "n1", "input": "q", "output": "answer 1, corrected"}) + "\n")
    import_file(store, revise, REF, dataset="num", update_existing=True)
    again = store.ratings.rating_columns(REF, "num").dims["clarity"].humans.copy()
    later.write_text(json.dumps({"id": f"n{last - 1}", "input": "q", "output": "changed too"}) + "\n")
    monkeypatch.setattr(rc, "_stamp", write_between(lambda conn, ref: (ref,)))
    unchecked = store.ratings.rating_columns(REF, "num").dims["clarity"].humans
    # the first half (ana's scores, first snapshot) still counts them, the second half (bo's and
    # cy's, the newer snapshot) not: one item's row from two snapshots
    assert not np.isnan(again[last - 1]).any()
    assert not np.isnan(unchecked[last - 1, 0]) and np.isnan(unchecked[last - 1, 1:]).all()
    store.close()


def test_a_model_other_than_its_runs_is_read_too(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge rows are coded with the models of the rubric's runs (a small table) rather than
    the rows' own models (a lookup over every row): a row carrying another model reads as unknown
    and the rows are read again with their own models. Without that check the other model's
    scores were missing from the columns."""
    from reviewer.store import rating_columns as rc

    _judged(store, tmp_path)  # run "m1", rows of model m1
    run = store.runs.create_judge_run(REF, "m1", dataset="num")
    store.runs.record_results(run, [ScoreResult("n1", "clarity", "llm_judge", "m9", 4.0)])  # a row of another model
    cols = store.ratings.rating_columns(REF, "num")
    assert cols.models == ["m1", "m9"]
    assert cols.dims["clarity"].judge[1, 1] == 4.0 and cols.dims["accuracy"].judge[0, 0] == 7.0
    monkeypatch.setattr(rc, "_unknown_names", lambda rows, lay: False)
    unchecked = store.ratings.rating_columns(REF, "num")
    assert unchecked.models == ["m1"]  # m9's score was dropped as of no known model
