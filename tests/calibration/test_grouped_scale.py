"""Grouped calibrate made fast without moving a figure: group keys coded once and sliced, the
bootstrap's weights streamed in chunks, the group key read in SQL."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlmodel import col, select

from calibration import bootstrap as bs
from calibration.agreement import _CORRELATIONS, grouped_correlation
from calibration.report import dimension_reports
from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store.core import Store
from reviewer.store.group_keys import group_values
from reviewer.store.tables import Item
from rubrics.loader import load_rubric_file
from tests.calibration.grouped_case import grouped_inputs, ranked_items
from tests.judge.helpers import RUBRIC
from tests.store.conftest import db_url, store  # noqa: F401  (fixtures)

FIGURES = Path(__file__).parent.parent / "data" / "grouped_calibrate_figures.json"


def test_grouped_figures_are_the_ones_recorded_before_the_change() -> None:
    """Every figure and interval of a fixed grouped case (seeded bootstrap) equals, to the last
    bit, what the report gave before keys were coded and weights streamed (recorded then)."""
    reports = dimension_reports(grouped_inputs(), draws=300, seed=5)
    got = json.loads(json.dumps([{"figures": r.figures, "null_reasons": r.null_reasons} for r in reports]))
    assert got == json.loads(FIGURES.read_text())


def _scan(a: np.ndarray, b: np.ndarray, groups: Sequence[object], method: str) -> tuple[float | None, int]:
    """The per-group correlation as it was written before: every key compared once per group."""
    keys = np.asarray([str(g) for g in groups])
    values = []
    for g in np.unique(keys):
        sel = keys == g
        if sel.sum() < 2 or np.all(a[sel] == a[sel][0]) or np.all(b[sel] == b[sel][0]):
            continue
        r = _CORRELATIONS[method](a[sel], b[sel])
        if r is not None:
            values.append(r)
    return (float(np.mean(values)) if values else None), len(values)


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_coded_groups_give_exactly_the_scan_of_every_key(method: Any) -> None:
    rng = np.random.default_rng(3)
    a, b = rng.integers(1, 6, 2000).astype(float), rng.integers(1, 6, 2000).astype(float)
    keys: list[object] = ["b", "a", 10, 9, "10", None, True, 1.5, "ä", "Z", "", "a "]
    groups = [keys[i] for i in rng.integers(0, len(keys), 2000)]
    assert grouped_correlation(a, b, groups, method) == _scan(a, b, groups, method)


def test_bootstrap_weights_stream_in_bounded_chunks_and_are_the_same_draws() -> None:
    n = 200_000
    draws = bs.Draws(n, 1000, seed=9)
    first = next(draws.chunks())
    assert first.nbytes <= bs.CHUNK_BYTES and first.shape == (draws.rows, n)
    # the rows are the seed's, whatever the chunk: one unit's worth of draws read both ways
    small = bs.Draws(300, 130, seed=9)
    rng = np.random.default_rng(9)
    whole = np.stack([np.bincount(rng.integers(0, 300, size=300, dtype=np.int32), minlength=300)
                      for _ in range(130)]).astype(float)
    assert np.array_equal(np.concatenate(list(small.chunks())), whole)
    assert np.array_equal(np.concatenate(list(small.chunks())), whole)  # a second pass draws them again


META = [{"k": "sys-a"}, {"k": 1e5}, {"k": 0.30000000000000004}, {"k": True}, {"k": None}, {},
        {"k": {"nested": [1, "x"]}}, {"k": 'quote " and é'}, {"k": 2**70}, {"k": 7}, {"other": 1},
        {"k": ""}, {"a.b": "dotted"}]


def test_group_key_read_in_sql_is_the_decoded_metadata_value(store: Store, tmp_path: Path) -> None:  # noqa: F811
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC)
    store.rubrics.add_rubric(load_rubric_file(rubric), RUBRIC)
    items = tmp_path / "items.jsonl"
    lines = [json.dumps({"id": f"i{n}", "input": "q", "output": "a", "metadata": m}) for n, m in enumerate(META)]
    lines[1] = lines[1].replace("100000.0", "1e5")  # a number as a person writes it
    items.write_text("\n".join(lines) + "\n")
    import_file(store, str(items), "judge-test@1.0.0")
    with store.db.read() as conn:
        rows = conn.execute(select(col(Item.pk), col(Item.meta)).order_by(col(Item.pk))).all()
        for key in ("k", "a.b", "missing"):
            pks, keys = group_values(conn, [], f"metadata.{key}")
            values = keys.per_item()
            assert list(pks) == [r[0] for r in rows]
            want = [(r[1] or {}).get(key) for r in rows]
            assert values == want and [type(v) for v in values] == [type(v) for v in want]
            # coded once: each distinct value once (decoded once), each item a number
            assert keys.codes.dtype == np.intp and sorted(map(repr, keys.values)) == sorted(set(map(repr, want)))
        assert [str(v) for v in group_values(conn, [], "metadata.k")[1].per_item()][:4] == ["sys-a", "100000.0",
                                                                                "0.30000000000000004", "True"]


def test_a_key_sqlite_cannot_name_is_one_clear_line(store: Store) -> None:  # noqa: F811
    with store.db.read() as conn:
        if conn.dialect.name != "sqlite":
            assert group_values(conn, [], 'metadata.a"b')[1].per_item() == []  # PostgreSQL reads any key
            return
        with pytest.raises(UserError, match='metadata.a"b: a key with a double quote cannot be read'):
            group_values(conn, [], 'metadata.a"b')


def test_group_and_variant_are_coded_like_metadata(store: Store, tmp_path: Path) -> None:  # noqa: F811
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC)
    store.rubrics.add_rubric(load_rubric_file(rubric), RUBRIC)
    groups = ["b", "a", None, "b", "line\nbreak", "a", ""]
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"i{n}", "input": "q", "output": "a", "variant": g,
                                         **({"group": g} if g is not None else {})}) + "\n"
                             for n, g in enumerate(groups)))
    import_file(store, str(items), "judge-test@1.0.0")
    with store.db.read() as conn:
        for field in ("group", "variant"):
            pks, keys = group_values(conn, [], field)
            assert pks.tolist() == sorted(pks.tolist()) and len(pks) == len(groups)
            assert keys.per_item() == groups and len(keys.values) == 5


def test_a_range_past_sqlites_string_limit_is_read_in_halves(store: Store, tmp_path: Path) -> None:  # noqa: F811
    """The items' JSON texts travel as one text per range of keys; where that text would pass
    SQLite's string limit, the range is read again in halves, never cut short or refused."""
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC)
    store.rubrics.add_rubric(load_rubric_file(rubric), RUBRIC)
    keys = [f"source-{n % 7}-" + "x" * 300 for n in range(40)]
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"i{n}", "input": "q", "output": "a", "metadata": {"doc": k}}) + "\n"
                             for n, k in enumerate(keys)))
    import_file(store, str(items), "judge-test@1.0.0")
    with store.db.read() as conn:
        if conn.dialect.name != "sqlite":
            return  # (rows through the driver: no aggregated text)
        import sqlite3

        raw = conn.connection.driver_connection
        assert isinstance(raw, sqlite3.Connection)
        before = raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 2_000)  # 40 texts of ~310 bytes: past it
        try:
            _, got = group_values(conn, [], "metadata.doc")
        finally:
            raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, before)
        assert got.per_item() == keys and len(got.values) == 7


def test_the_ranking_by_group_on_an_audit_sample_is_the_whole_reads(store: Store, tmp_path: Path) -> None:  # noqa: F811
    """On the audit sample (the default), calibrate ranks groups from every item's judge side read
    alone, beside the figures: the ranking is the one the whole read of every item gives
    (``--sample all``), and each group's corrected mean is PPI's on its own items."""
    from calibration import ppi
    from reviewer.services.calibrate_service import calibrate

    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC)
    store.rubrics.add_rubric(load_rubric_file(rubric), RUBRIC)
    lines, truth = ranked_items(240, 90, "abc", ("accuracy",), lambda i: 2.5 + i % 3 * 0.5, spread=1.0, flatter=1.0,
                                noise=0.6, top=5, seed=11)
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join(lines) + "\n")
    import_file(store, str(items), "judge-test@1.0.0")
    audit = calibrate(store, "judge-test@1.0.0", group_by="metadata.model", draws=50)
    whole = calibrate(store, "judge-test@1.0.0", group_by="metadata.model", draws=50, sample="all")
    assert audit["sample"] == "audit" and audit["dimensions"][0]["n"] == 90
    ranking = audit["dimensions"][0]["estimate"]["ranking"]
    assert ranking == whole["dimensions"][0]["estimate"]["ranking"]
    by_group = {r["group"]: r for r in ranking}
    assert sorted(by_group) == ["a", "b", "c"]
    for m, t in truth.items():
        assert by_group[m]["ppi"] == pytest.approx(ppi.ppi_mean(t["y"], t["yhat"], t["yu"]), abs=1e-9)
