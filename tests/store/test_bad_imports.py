"""Every bad import file: one clear line naming file and line, exit 1, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.store import open_store
from tests.cli import run_cli

BAD = Path(__file__).resolve().parents[1] / "bad_imports"
EXPECTED = {
    "malformed_json.jsonl": ":1: not valid JSON",
    "missing_id.jsonl": ":1: missing 'id'",
    "duplicate_id.jsonl": ":2: duplicate id 'a' (first on line 1)",
    "unknown_dimension.jsonl": ":1: item a: judge accurcy: unknown dimension",
    "score_off_scale.jsonl": ":1: item a: judge accuracy: score 11 is off the scale 1–10",
    "sample_off_scale.jsonl": ":1: item a: judge accuracy: sample 12 is off the scale 1–10",
    # text is read as an anchor label (labels at import): 'high' is none of accuracy's
    "wrong_type_score.jsonl": ":1: item a: judge accuracy: 'high' is no anchor label of accuracy (labels: ",
    "wrong_type_score_list.jsonl": ":1: item a: judge accuracy: score [7] is not a finite number",
    "label_not_an_anchor.jsonl": ":1: item a: ana accuracy: 'Yes' is no anchor label of accuracy",
    "label_of_a_range.jsonl": ":1: item a: ana accuracy: 'completely ACCURATE' is the anchor for 9–10 on accuracy, not one score",
    "empty.jsonl": ":1: the file has no items",
    "missing_output.jsonl": ":1: item a: needs 'output' text",
    "not_an_object.jsonl": ":1: each line must be a JSON object",
    "nan_score.jsonl": ":1: not valid JSON (NaN is not a number JSON allows",
    "human_off_scale.jsonl": ":1: item a: ana clarity: score 0 is off the scale 1–10",
    "unknown_field.jsonl": ":1: unknown field 'scorez'",
    "metadata_not_object.jsonl": ":1: item a: 'metadata' must be an object",
    "human_without_reviewer.jsonl": ":1: item a: each human entry needs 'reviewer' and 'scores'",
    "missing_column.csv": ":1: the CSV header needs an 'id' column and an 'output'",
    "csv_judge_not_json.csv": ":2: column 'judge' must hold JSON text",
    "gold_off_scale.jsonl": ":1: item a: gold accuracy: score 14 is off the scale 1–10",
    "gold_not_object.jsonl": ":1: item a: gold: must be an object of dimension → expected score",
    # hostile files (issue 13): see tests/hostile/test_import_files.py for the unguarded behaviour
    "tags_string.jsonl": ":1: item a: ana accuracy: 'tags' must be a list of text",
    "id_trailing_newline.jsonl": ":1: the id 'a\\n' holds a control or invisible character",
    "evidence_int.jsonl": ":1: item a: judge accuracy: 'evidence' must be a list",
    "lone_surrogate.jsonl": ":1: text holds a lone surrogate",
    "csv_truncated.csv": ":3: the row has 2 fields; the header has 3 (the file ends mid-row: truncated?)",
    # a key written twice: orjson and json keep the last one silently (issue 23)
    "duplicate_key.jsonl": ":2: key 'output' appears twice in one object; keep one",
    "duplicate_key_nested.jsonl": ":1: key 'accuracy' appears twice in one object; keep one",
    "duplicate_key_escaped_colon.jsonl": ":1: key 'output' appears twice in one object; keep one",
    "csv_judge_duplicate_key.csv": ":2: column 'judge': key 'accuracy' appears twice in one object; keep one",
}


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """The console entry point in-process; returns (exit code, stderr)."""
    code, _, err = run_cli(argv, capsys)
    return code, err


def _assert_refused(path: Path, fragment: str, db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run(["import", str(path), "--rubric", "general-quality@1.0.0", "--db", str(db)], capsys)
    lines = err.strip().splitlines()
    assert code == 1
    assert len(lines) == 1, err
    assert str(path) + fragment in lines[0], lines[0]
    assert "Traceback" not in err
    assert open_store(str(db)).queue.queue_count("triage") == 0  # nothing written


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_file_is_one_clear_line(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (BAD / name).exists()
    _assert_refused(BAD / name, EXPECTED[name], tmp_path / "db.sqlite", capsys)


def test_invalid_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"id": "a", "output": "caf\xe9"}\n')
    _assert_refused(path, ":1: not valid UTF-8", tmp_path / "db.sqlite", capsys)


def test_fifty_megabyte_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("w") as fh:
        fh.write('{"id": "a", "output": "' + "x" * 50_000_000 + '"}\n')
    _assert_refused(path, ":1: line is 50 MB; a row may be at most 10 MB", tmp_path / "db.sqlite", capsys)


def test_unknown_rubric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run(["import", str(BAD / "missing_id.jsonl"), "--rubric", "nope@1.0.0",
                     "--db", str(tmp_path / "db.sqlite")], capsys)
    assert code == 1 and "unknown rubric nope@1.0.0" in err and len(err.strip().splitlines()) == 1


def test_one_bad_line_refuses_the_good_ones_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text('{"id": "ok", "output": "fine"}\n{"id": "bad", "output": "x", "judge": {"scores": {"accuracy": 99}}}\n')
    _assert_refused(path, ":2: item bad: judge accuracy: score 99", tmp_path / "db.sqlite", capsys)
