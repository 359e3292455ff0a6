"""Pair lines found in a file by search (reviewer.io.pairrow.read_pairs): the right line numbers
past blank lines, a last line without a newline, and "pair" elsewhere in an item left alone."""

from __future__ import annotations

from pathlib import Path

from reviewer.domain.pairs import PairRecord, PairVerdict
from reviewer.io.pairrow import read_pairs


def test_pair_lines_are_found_with_their_line_numbers(tmp_path: Path) -> None:
    src = tmp_path / "mixed.jsonl"
    src.write_bytes(b'{"id": "x", "output": "a \\"pair\\"", "metadata": {"pair": 1}, "group": "pair"}\n\n'
                    b'{"pair": {"a": "x", "b": "y"}, "judge": {"model": "m", "winner": "a"}}\n'
                    b'{"id": "y", "output": "o"}\n'
                    b'{"pair": {"a": "x", "b": "y"}, "judge": {"model": "m", "winner": "q"}}')
    errs: list[str] = []
    assert read_pairs(src, errs) == [PairRecord(3, "x", "y", (), PairVerdict("m", "a"))]
    assert errs == [f"{src}:5: pair: judge: 'winner' is 'q'; give \"a\", \"b\" or \"tie\""]


def test_files_without_pairs(tmp_path: Path) -> None:
    empty, items = tmp_path / "empty.jsonl", tmp_path / "items.jsonl"
    empty.write_bytes(b"")
    items.write_text('{"id": "x", "output": "o"}\n')
    errs: list[str] = []
    assert read_pairs(empty, errs) == read_pairs(items, errs) == read_pairs(tmp_path / "none.jsonl", errs) == []
    assert errs == []


def test_the_documented_pair_record_is_read_as_documented() -> None:
    """docs/formats.md's example pair line is one the importer accepts, field for field."""
    import json

    from reviewer.io.pairrow import PAIR_FIELDS, check_pair

    doc = (Path(__file__).resolve().parents[2] / "docs" / "formats.md").read_text(encoding="utf-8")
    section = doc.split("### Pair records", 1)[1]
    example = section.split("```json", 1)[1].split("```", 1)[0]
    record = check_pair(1, json.loads(example))
    assert record == PairRecord(1, "frame-01a", "frame-01b",
                                (PairVerdict("ana", "a", "plainer wording"), PairVerdict("ben", "tie")),
                                PairVerdict("gpt-4o", "b", "B keeps both views"))
    assert all(f"`{f}`" in section for f in PAIR_FIELDS)
