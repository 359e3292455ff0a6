"""``rubricate import`` reads pair records as the service does: from a file, from standard input
(messages name ``-``), and from a file of pair lines alone naming stored items."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from tests.cli import run_cli
from tests.pairs.helpers import REF, items, pair, write


def test_import_reads_pair_records_from_a_file_and_from_stdin(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "t.db")
    src = write(tmp_path / "items.jsonl", [*items("x", "y"), pair("x", "y", human=[("ana", "a", None)])])
    code, out, err = run_cli(["import", str(src), "--rubric", REF, "--db", db], capsys)
    assert code == 0, err
    assert "1 people's and 0 judge pair verdicts" in out
    only_pairs = json.dumps(pair("y", "x", judge=("judge-m", "b", "x reads better"))) + "\n"
    code, out, err = run_cli(["import", str(write(tmp_path / "v.jsonl", [json.loads(only_pairs)])),
                              "--rubric", REF, "--db", db], capsys)
    assert code == 0, err
    assert "0 people's and 1 judge pair verdicts" in out
    bad = json.dumps({"pair": {"a": "y", "b": "x"}, "judge": {"model": "judge-m", "winner": "left"}}) + "\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(bad.encode())))
    code, out, err = run_cli(["import", "-", "--rubric", REF, "--db", db], capsys)
    assert code != 0
    assert "-:1: pair: judge: 'winner' is 'left'" in err
    code, out, err = run_cli(["calibrate", "--rubric", REF, "--db", db, "--format", "json"], capsys)
    assert code == 0, err
    assert json.loads(out)["pair_verdicts"]["judge-m"]["n_verdicts"] == 1
