"""The Python API on a store (issue 25 item 5): ``rubricate.open(DB).scores(RUBRIC)`` is the
table ``export --format parquet`` writes, read back with pyarrow, row for row and column for
column; ``calibrate(RUBRIC, **options)`` is ``calibrate --format json``'s report, value for value,
with the options passed through; a missing database is refused in one line; on SQLite and
PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rubricate
from reviewer.errors import UserError
from reviewer.store import Store
from tests.cli import run_cli

REF = "general-quality@1.0.0"


def _parquet(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> pd.DataFrame:
    out = tmp_path / "scores.parquet"
    code, _, err = run_cli(["export", "--format", "parquet", "--out", str(out), "--db", db, *extra], capsys)
    assert code == 0, err
    frame: pd.DataFrame = pq.read_table(out).to_pandas()
    return frame


def test_scores_are_the_parquet_exports_rows(demo_store: Store, db_url: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Same columns, same types, same rows in the same order as the exported file."""
    with rubricate.open(db_url) as store:
        frame = store.scores(REF)
        one = store.scores(REF, dataset="nope")
    exported = _parquet(db_url, tmp_path, capsys, "--rubric", REF)
    assert len(frame) == len(exported) > 500
    assert {"judge", "human"} <= set(frame["scorer_type"])
    pd.testing.assert_frame_equal(frame, exported)
    table = pq.read_table(tmp_path / "scores.parquet")  # and back to Arrow: every value as the file holds it
    assert pa.Table.from_pandas(frame, schema=table.schema, preserve_index=False).to_pylist() == table.to_pylist()
    assert list(one.columns) == list(frame.columns) and len(one) == 0


def test_calibrate_is_the_json_report(demo_store: Store, db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The report's values are the command's, with its options under their Python names."""
    with rubricate.open(db_url) as store:
        plain = store.calibrate(REF, bootstrap=50, seed=3)
        median = store.calibrate(REF, bootstrap=0, human_aggregate="median", sample="all", confidence=0.9)
    for report, args in ((plain, ["--bootstrap", "50", "--seed", "3"]),
                         (median, ["--bootstrap", "0", "--human-aggregate", "median", "--sample", "all",
                                   "--confidence", "0.9"])):
        code, out, err = run_cli(["calibrate", "--rubric", REF, "--format", "json", "--db", db_url, *args], capsys)
        assert code == 0, err
        assert json.dumps(report, sort_keys=True) == json.dumps(json.loads(out), sort_keys=True)
    assert median["human_aggregate"] == "median" and median["bootstrap"] == 0
    assert plain["dimensions"][0]["alpha_ci"] is not None and median["dimensions"][0]["alpha_ci"] is None
    assert isinstance(plain["dimensions"][0]["alpha"], float)


def test_a_missing_database_is_refused_and_not_made(tmp_path: Path) -> None:
    path = tmp_path / "none.db"
    with pytest.raises(UserError) as caught:
        rubricate.open(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)
    assert not path.exists()


def test_the_api_never_loads_the_command_line(demo_store: Store, db_url: str) -> None:
    """A notebook opening a store and calibrating loads neither typer nor any module of the
    command line: the report's JSON rule is read from the services, where the commands read it too."""
    import subprocess
    import sys

    script = ("import sys, rubricate\n"
              "with rubricate.open(sys.argv[1]) as store:\n"
              f"    report = store.calibrate({REF!r}, bootstrap=0)\n"
              "assert report['dimensions'], report\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] == 'typer' or m.startswith('reviewer.cli')))\n")
    done = subprocess.run([sys.executable, "-c", script, db_url], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
