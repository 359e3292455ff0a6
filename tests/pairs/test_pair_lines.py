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
