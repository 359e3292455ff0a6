"""Hostile import files through the real ``rubricate import``: one ``FILE:LINE: what — what to do``
line, exit 1, nothing written — and, for each case, what happened without the guard.

A case is (id, what it proves, file name, file bytes, the fragment the error line holds, a check
of the unguarded behaviour). Files that must be *accepted* (a CSV with a byte-order mark, a long
CSV field) are checked for what was stored.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reviewer.io.itemfile import iter_rows
from reviewer.store import open_store
from rubrics.library import find_bundled
from tests.cli import run_cli
from tests.hostile.harness import unguarded_raises, unguarded_true

RUBRIC = "general-quality@1.0.0"


def line(obj: Any) -> bytes:
    return (json.dumps(obj) + "\n").encode()


def item(**extra: Any) -> dict[str, Any]:
    return {"id": "a", "output": "fine", **extra}


def judged(**score: Any) -> dict[str, Any]:
    return item(judge={"model": "m", "scores": {"accuracy": {"score": 7, **score}}})


def reviewed(**extra: Any) -> dict[str, Any]:
    entry = {"reviewer": "ana", "scores": {"accuracy": {"score": 7, **extra.pop("score", {})}}, **extra}
    return item(human=[entry])


def deep(levels: int) -> bytes:
    return b'{"id": "a", "output": "x", "metadata": {"k": ' + b"[" * levels + b"]" * levels + b"}}\n"




CASES: list[tuple[str, str, str, bytes, str, Callable[[], None]]] = [
    ("deep-100k", "100 000 nested lists are one line, not a RecursionError traceback",
     "deep.jsonl", deep(100_000), ":1: values nest too deeply",
     unguarded_raises(RecursionError, lambda: json.loads(deep(100_000)))),
    ("deep-40", "40 levels (under Python's limit) are still over the row's limit of 32",
     "deep40.jsonl", deep(40), ":1: values nest more than 32 levels deep",
     unguarded_true(json.loads(deep(40))["id"] == "a")),
    ("surrogate-output", "a lone surrogate in the output is refused (UTF-8 cannot store it)",
     "surrogate.jsonl", b'{"id": "a", "output": "bad \\ud800 text"}\n', ":1: text holds a lone surrogate",
     unguarded_raises(UnicodeEncodeError, lambda: json.loads('"\\ud800"').encode("utf-8"))),
    ("surrogate-metadata-key", "a lone surrogate in a metadata key is refused too",
     "surrogate-key.jsonl", b'{"id": "a", "output": "x", "metadata": {"\\udc00": 1}}\n',
     ":1: text holds a lone surrogate", unguarded_true("\udc00" in json.loads('{"\\udc00": 1}'))),
    ("rationale-object", "an object where the rationale text belongs is refused",
     "rationale.jsonl", line(judged(rationale={"a": 1})), ":1: item a: judge accuracy: 'rationale' must be text",
     unguarded_true(str({"a": 1}) == "{'a': 1}")),
    ("reason-object", "an object where a reason belongs is refused",
     "reason.jsonl", line(reviewed(score={"reason": {"why": 1}})), ":1: item a: ana accuracy: 'reason' must be text",
     unguarded_true(True)),
    ("evidence-int", "an int where the evidence list belongs is refused (list(5) raised TypeError)",
     "evidence.jsonl", line(judged(evidence=5)), ":1: item a: judge accuracy: 'evidence' must be a list",
     unguarded_raises(TypeError, lambda: list(5))),  # type: ignore[call-overload]  # on purpose: the unguarded call
    ("confidence-text", "confidence 'high' is refused, not stored as null",
     "confidence.jsonl", line(judged(confidence="high")), ":1: item a: judge accuracy: 'confidence' must be a number",
     unguarded_true(True)),
    ("tags-string", "tags: \"abc\" is refused, not stored as three tags",
     "tags.jsonl", line(reviewed(score={"tags": "abc"})), ":1: item a: ana accuracy: 'tags' must be a list",
     unguarded_true(list("abc") == ["a", "b", "c"])),
    ("tags-control", "a tag with an escape character is refused",
     "tags-esc.jsonl", line(reviewed(score={"tags": ["ok", "\x1b[31mred"]})), "holds a control or invisible character",
     unguarded_true(True)),
    ("tags-object", "a tag that is an object is refused",
     "tags-obj.jsonl", line(reviewed(score={"tags": [{"a": 1}]})), "a tag must be text", unguarded_true(True)),
    ("id-trailing-newline", "an id with a trailing newline is refused (it was a second item beside 'a')",
     "id-newline.jsonl", line({"id": "a\n", "output": "x"}), ":1: the id 'a\\n' holds a control",
     unguarded_true(len({"a\n", "a"}) == 2)),
    ("id-trailing-space", "an id with a trailing space is refused",
     "id-space.jsonl", line({"id": "a ", "output": "x"}), ":1: the id 'a ' starts or ends with a space",
     unguarded_true(len({"a ", "a"}) == 2)),
    ("id-escape", "an id holding a terminal escape is refused",
     "id-esc.jsonl", line({"id": "\x1b[2Ja", "output": "x"}), ":1: the id '\\x1b[2Ja' holds a control",
     unguarded_true(True)),
    ("id-zero-width", "an id with a zero-width space is refused (two ids that look the same)",
     "id-zw.jsonl", line({"id": "a\u200b", "output": "x"}), "holds a control or invisible character", unguarded_true(True)),
    ("id-huge", "a 10 000-character id is refused",
     "id-huge.jsonl", line({"id": "x" * 10_000, "output": "x"}), "the id is 10000 characters; at most 512",
     unguarded_true(True)),
    ("reviewer-control", "a reviewer name with a newline is refused",
     "reviewer.jsonl", line(item(human=[{"reviewer": "ana\nbob", "scores": {"accuracy": 7}}])),
     "the reviewer name 'ana\\nbob' holds a control", unguarded_true(True)),
    ("reviewer-empty", "an empty reviewer name is refused",
     "reviewer-empty.jsonl", line(item(human=[{"reviewer": "", "scores": {"accuracy": 7}}])),
     "the reviewer name is empty", unguarded_true(True)),
    ("blind-text", "blind: \"no\" is refused, not read as true",
     "blind.jsonl", line(reviewed(blind="no")), "'blind' must be true or false", unguarded_true(bool("no"))),
    ("conversation-ints", "a conversation of numbers is refused",
     "conversation.jsonl", line({"id": "a", "conversation": [1, 2]}), "each 'conversation' turn must be an object",
     unguarded_true(True)),
    ("conversation-content-object", "a turn whose content is an object is refused",
     "conversation2.jsonl", line({"id": "a", "conversation": [{"role": "user", "content": {"x": 1}}]}),
     "each 'conversation' turn must be an object with 'role' and 'content' text", unguarded_true(True)),
    ("judge-model-object", "a judge model that is an object is refused",
     "model.jsonl", line(item(judge={"model": {"x": 1}, "scores": {"accuracy": 7}})),
     "judge: the judge model must be text", unguarded_true(True)),
    ("judge-error-object", "a recorded judge error that is an object is refused",
     "error.jsonl", line(item(judge={"model": "m", "scores": {"accuracy": {"error": {"x": 1}}}})),
     "judge accuracy: 'error' must be text", unguarded_true(True)),
    ("input-bool", "input: true is refused (true is not text)",
     "input.jsonl", line(item(input=True)), "'input' must be text", unguarded_true(isinstance(True, int))),
    ("jsonl-truncated", "a last line cut mid-object (no newline) is refused whole, saying so",
     "cut.jsonl", line(item()) + b'{"id": "b", "output": "hal', ":2: not valid JSON",
     unguarded_true(True)),
    ("csv-short-row-cut", "a CSV cut mid-row (fewer fields, no final newline) is refused whole",
     "cut.csv", b"id,output,input\na,fine,q\nb,hal", ":3: the row has 2 fields; the header has 3 (the file ends mid-row",
     unguarded_true(next(csv.DictReader(io.StringIO("id,output,input\nb,hal")))["input"] is None)),
    ("csv-unclosed-quote", "a CSV whose last quoted field never closes is refused (plain csv accepts it)",
     "quote.csv", b'id,output\na,fine\nb,"never closed', ":3: not valid CSV",
     unguarded_true(list(csv.reader(io.StringIO('b,"never closed')))[0][1] == "never closed")),
    ("csv-extra-fields", "a CSV row with more fields than the header is refused",
     "extra.csv", b"id,output\na,fine,surplus\n", ":2: the row has 3 fields; the header has 2",
     unguarded_true(None in next(csv.DictReader(io.StringIO("id,output\na,fine,surplus\n"))))),
    ("csv-duplicate-column", "a CSV header naming a column twice is refused (the last would win)",
     "dupcol.csv", b"id,output,output\na,one,two\n", ":1: the CSV header names a column twice",
     unguarded_true(next(csv.DictReader(io.StringIO("id,output,output\na,one,two\n")))["output"] == "two")),
    ("csv-deep-json", "deep JSON inside a CSV column is refused like in JSON Lines",
     "deep.csv", b'id,output,metadata\na,x,"{""k"": ' + b"[" * 40 + b"]" * 40 + b'}"\n', ":2: values nest more than 32",
     unguarded_true(True)),
    ("csv-over-10mb", "a CSV field over 10 MB is one line, not a csv.Error traceback",
     "huge.csv", b'id,output\na,"' + b"x" * 10_500_000 + b'"\n', ":2: not valid CSV (field larger than field limit",
     lambda: _default_csv_limit_raises()),
]


def _default_csv_limit_raises() -> None:
    """With the csv module's default field limit (128 kB) a 200 kB field raised csv.Error."""
    old = csv.field_size_limit(131_072)
    try:
        with pytest.raises(csv.Error, match="field larger than field limit"):
            list(csv.reader(io.StringIO('a,"' + "x" * 200_000 + '"\n')))
    finally:
        csv.field_size_limit(old)


def _import(path: Path, db: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code, _, err = run_cli(["import", str(path), "--rubric", RUBRIC, "--db", str(db)], capsys)
    return code, err


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_hostile_import_file(case: tuple[str, str, str, bytes, str, Callable[[], None]], tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    _, proves, name, data, fragment, unguarded = case
    path = tmp_path / name
    path.write_bytes(data)
    db = tmp_path / "db.sqlite"
    code, err = _import(path, db, capsys)
    lines = err.strip().splitlines()
    assert code == 1, proves
    assert len(lines) == 1 and "Traceback" not in err, err[:2000]
    assert str(path) in lines[0] and fragment in lines[0], (proves, lines[0][:500])
    assert open_store(str(db)).queue.queue_count("triage") == 0  # nothing written
    unguarded()


def test_csv_with_byte_order_mark_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Excel's UTF-8 CSV starts with a byte-order mark; it was refused as having no 'id' column
    (the header's first name was '\\ufeffid')."""
    assert csv.DictReader(io.StringIO("\ufeffid,output\n")).fieldnames == ["\ufeffid", "output"]
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbfid,output\nq1,fine\nq2,also fine\n")
    code, err = _import(path, tmp_path / "db.sqlite", capsys)
    assert code == 0, err
    assert sorted(r["id"] for r in open_store(str(tmp_path / "db.sqlite")).items.export_rows(RUBRIC)) == ["q1", "q2"]


def test_jsonl_with_byte_order_mark_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(json.JSONDecodeError):
        json.loads("\ufeff" + json.dumps(item()))  # plain json refuses the mark
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + line(item()))
    code, err = _import(path, tmp_path / "db.sqlite", capsys)
    assert code == 0, err


def test_csv_field_over_128_kb_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 200 kB output in a CSV imports (the csv module's default limit is 128 kB: it raised)."""
    path = tmp_path / "long.csv"
    path.write_text('id,output\na,"' + "y" * 200_000 + '"\n')
    code, err = _import(path, tmp_path / "db.sqlite", capsys)
    assert code == 0, err
    [row] = list(open_store(str(tmp_path / "db.sqlite")).items.export_rows(RUBRIC))
    assert row["id"] == "a"


def test_depth_at_the_limit_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """30 nested lists under metadata (32 levels with the row and metadata) are fine."""
    path = tmp_path / "ok.jsonl"
    path.write_bytes(deep(30))
    code, err = _import(path, tmp_path / "db.sqlite", capsys)
    assert code == 0, err


def test_tags_list_is_stored_as_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tags.jsonl"
    path.write_bytes(line(reviewed(score={"tags": ["wrong-fact", "tone"], "reason": "x"})))
    code, err = _import(path, tmp_path / "db.sqlite", capsys)
    assert code == 0, err


def test_a_file_that_grows_while_read_is_refused(tmp_path: Path) -> None:
    """A file still being written (or cut) while it is read is refused whole: the size it had
    when reading began is compared with its size at the end."""
    path = tmp_path / "growing.jsonl"
    path.write_bytes(line({"id": "a", "output": "x"}) + line({"id": "b", "output": "y"}))
    errs: list[str] = []
    rows = iter_rows(path, find_bundled("general-quality", "1.0.0"), errs)
    first = next(rows)
    with path.open("ab") as fh:
        fh.write(line({"id": "c", "output": "z"}))
    rest = list(rows)
    assert first.item_id == "a" and [r.item_id for r in rest] == ["b", "c"]
    assert errs and "the file changed while it was read" in errs[-1]


def test_every_bad_line_is_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Several hostile lines in one file: each named with its line."""
    path = tmp_path / "many.jsonl"
    path.write_bytes(line({"id": "a\n", "output": "x"}) + line(reviewed(score={"tags": "abc"}) | {"id": "b"})
                     + b'{"id": "c", "output": "\\udfff"}\n')
    code, err = _import(path, tmp_path / "db.sqlite", capsys)
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 3
    assert [ln.split(f"{path}:")[1].split(":")[0] for ln in lines] == ["1", "2", "3"]


def test_a_large_file_cut_at_the_end_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """25 000 good lines and a last one cut mid-object: the forked reader's path (large first
    imports) refuses the whole file too; not one of the good rows is written."""
    from reviewer.store.import_batches import PARALLEL_FROM_LINES

    n = PARALLEL_FROM_LINES + 5000
    path = tmp_path / "big.jsonl"
    with path.open("wb") as fh:
        for i in range(n):
            fh.write(line({"id": f"i{i}", "output": f"answer {i}"}))
        fh.write(b'{"id": "last", "output": "cut he')
    db = tmp_path / "db.sqlite"
    code, err = _import(path, db, capsys)
    assert code == 1 and f"{path}:{n + 1}: not valid JSON" in err and "ends mid-line" in err
    assert open_store(str(db)).queue.queue_count("triage") == 0
