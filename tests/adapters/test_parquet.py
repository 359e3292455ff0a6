"""rubricate's own item records from a Parquet file: the same rows as the JSON Lines file on both
databases, JSON-text columns read as CSV's are, and a bad row named ``FILE:row N``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reviewer.errors import UserError
from reviewer.services.importing import import_opened, open_source
from reviewer.store import Store

REF = "general-quality@1.0.0"


def _write(path: Path, rows: Sequence[Mapping[str, object]]) -> Path:
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def test_parquet_rows_land_as_json_lines_rows_do(store: Store, tmp_path: Path) -> None:
    rows = [{"id": f"p{i}", "input": f"q{i}", "output": f"a{i}",
             "judge": json.dumps({"model": "m", "scores": {"accuracy": {"score": 3 + i, "rationale": f"r{i}"}}}),
             "human": json.dumps([{"reviewer": "ana", "scores": {"accuracy": 4}}]) if i == 1 else None,
             "metadata": json.dumps({"k": i})} for i in range(3)]
    path = _write(tmp_path / "items.parquet", rows)
    opened = open_source(path, None)
    assert opened.format == "rubricate"
    summary = import_opened(store, opened, REF)
    assert (summary.inserted, summary.judge_scores, summary.human_scores) == (3, 3, 1)
    (pk, _, _), = store.items.items_by_id("p1")
    view = store.items.item_view(pk)
    assert (view.input, view.output, view.metadata) == ("q1", "a1", {"k": 1})
    assert (view.judge["accuracy"][0].score, view.judge["accuracy"][0].rationale) == (4.0, "r1")
    assert view.human["accuracy"]["ana"].score == 4.0


def test_a_bad_parquet_row_is_named_by_its_number(store: Store, tmp_path: Path) -> None:
    rows = [{"id": "a", "output": "x", "judge": json.dumps({"model": "m", "scores": {"accuracy": 5}})},
            {"id": "b", "output": "y", "judge": json.dumps({"model": "m", "scores": {"accuracy": 50}})}]
    path = _write(tmp_path / "bad.parquet", rows)
    with pytest.raises(UserError) as err:
        import_opened(store, open_source(path, None), REF)
    assert str(err.value) == f"{path}:row 2: item b: judge accuracy: score 50 is off the scale 1–10"
    assert list(store.items.export_rows()) == []


def test_csv_from_standard_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    from tests.cli import run_cli

    rows = "id,output,judge\nc1,hello,\"{\"\"model\"\": \"\"m\"\", \"\"scores\"\": {\"\"accuracy\"\": 6}}\"\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(rows.encode())))
    code, out, err = run_cli(["import", "-", "--rubric", REF, "--db", str(tmp_path / "t.db")], capsys)
    assert code == 0, err
    assert "imported -: 1 rows: 1 new" in out
