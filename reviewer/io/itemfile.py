"""Read an item file (JSON Lines or CSV) and check every row against a rubric (:mod:`.rowcheck`),
before any write.

Every bad line is collected as ``FILE:LINE: what is wrong``; the caller refuses the whole file
if there is one. Nothing is guessed: a score off its dimension's scale is an error, not a clip.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from reviewer.domain.itemlimits import (
    MAX_DEPTH,
    structure_problem,
)
from reviewer.domain.pairs import PairRecord
from reviewer.domain.records import JudgeEntry, Row
from reviewer.errors import MAX_ERRORS_SHOWN, FileErrors
from reviewer.io.fastjson import DuplicateKey, loads_line, unique_pairs
from reviewer.io.pairrow import is_pair, read_pairs
from reviewer.io.plainrow import PlainCheck
from reviewer.io.rowcheck import RubricScales, check_row
from rubrics.schema import Rubric

MAX_LINE_BYTES = 10_000_000
KNOWN_FIELDS = {"id", "input", "output", "context", "reference", "conversation", "group", "variant",
                "metadata", "judge", "human", "gold", "audit"}


def _raw_lines(path: Path) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(line number, parsed object or an error message) for each non-blank line."""
    if path.suffix.lower() == ".csv":
        yield from _csv_rows(path)
        return
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, start=1):
            if len(raw) > MAX_LINE_BYTES:
                yield n, f"line is {len(raw) // 1_000_000} MB; a row may be at most 10 MB"
                continue
            if n == 1 and raw.startswith(b"\xef\xbb\xbf"):  # a byte-order mark some editors write
                raw = raw[3:]
            fast = loads_line(raw)  # orjson where it reads what json reads (structure checked); else json below
            if fast is not None:
                yield n, fast
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                yield n, "not valid UTF-8; save the file as UTF-8"
                continue
            if not text.strip():
                continue
            try:
                obj = _DECODER.decode(text)
            except DuplicateKey as exc:
                yield n, str(exc)
                continue
            except ValueError as exc:
                cut = "" if raw.endswith(b"\n") else " (the file ends mid-line: truncated?)"
                yield n, f"not valid JSON ({exc}){cut}; one JSON object per line"
                continue
            except RecursionError:
                yield n, f"values nest too deeply; flatten the row (at most {MAX_DEPTH} levels)"
                continue
            if not isinstance(obj, dict):
                yield n, "each line must be a JSON object"
                continue
            problem = structure_problem(raw, obj)
            yield n, obj if problem is None else problem


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


# Made once: building a decoder per line costs as much as using it.
_DECODER = json.JSONDecoder(parse_constant=_no_constant, object_pairs_hook=unique_pairs)


def _csv_rows(path: Path) -> Iterator[tuple[int, dict[str, Any] | str]]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark (Excel writes one) is not part of 'id'
    except UnicodeDecodeError as exc:
        yield data[: exc.start].count(b"\n") + 1, "not valid UTF-8; save the file as UTF-8"
        return
    if csv.field_size_limit() < MAX_LINE_BYTES:  # the default 128 KB is less than one long output
        csv.field_size_limit(MAX_LINE_BYTES)
    reader = csv.DictReader(io.StringIO(text), strict=True)
    try:
        header = reader.fieldnames
    except csv.Error as exc:
        yield 1, f"the CSV header cannot be read ({exc}); fix the quoting"
        return
    if not header or "id" not in header or not ({"output", "conversation"} & set(header)):
        yield 1, "the CSV header needs an 'id' column and an 'output' (or 'conversation') column"
        return
    if len(set(header)) != len(header):
        yield 1, "the CSV header names a column twice; keep one"
        return
    ends_cut = not text.endswith(("\n", "\r"))
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield start, f"not valid CSV ({exc}); a field over {MAX_LINE_BYTES // 1_000_000} MB or an unclosed quote"
            return
        yield from _csv_row(row, reader.line_num, len(header), ends_cut)


def _csv_row(row: dict[str | None, Any], line: int, width: int,
             ends_cut: bool) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """One CSV record as a row object, or what is wrong with it."""
    if None in row or any(v is None for v in row.values()):
        have = width + len(row.get(None) or []) - sum(v is None for v in row.values())
        cut = " (the file ends mid-row: truncated?)" if ends_cut else ""
        yield line, f"the row has {have} fields; the header has {width}{cut}"
        return
    obj: dict[str, Any] = {}
    for key, value in row.items():
        if key is None or value in (None, ""):
            continue
        if key in ("conversation", "metadata", "judge", "human", "gold"):
            try:
                obj[key] = _DECODER.decode(value)
            except DuplicateKey as exc:
                yield line, f"column {key!r}: {exc}"
                return
            except (ValueError, RecursionError):
                yield line, f"column {key!r} must hold JSON text"
                return
        else:
            obj[key] = value
    problem = structure_problem("\n".join(str(v) for v in row.values()), obj)
    yield line, obj if problem is None else problem


def iter_rows(path: Path, rubric: Rubric, errs: list[str], name: str | None = None) -> Iterator[Row]:
    """The file's good rows, in order, as they are read; every bad line is appended to ``errs``
    (the caller refuses the file when ``errs`` is not empty at the end). ``name`` is what the
    messages call the file (``-`` for standard input read into a spool file)."""
    src = name or str(path)
    if not path.exists():
        errs.append(f"{src}: no such file")
        return
    before = _size(path)
    numbered = ((n, str(n), obj) for n, obj in _raw_lines(path))
    yield from check_objects(numbered, rubric, errs, src, "line", pairs_apart=True)
    after = _size(path)
    if after != before:
        errs.append(f"{src}: the file changed while it was read ({before} → {after} bytes); "
                    "import it again once it is complete")


def check_objects(numbered: Iterable[tuple[int, str, dict[str, Any] | str]], rubric: Rubric,
                  errs: list[str], src: str, unit: str, pairs_apart: bool = False) -> Iterator[Row]:
    """Rows parsed from any source, each ``(number, where, object or problem)``, checked as an
    item file's lines are: ``where`` names the row in messages (``FILE:WHERE: …``: a line number,
    or a path in a JSON file such as ``results.results[3]``), ``unit`` what a row is called.
    ``pairs_apart``: pair records are read by :mod:`reviewer.io.pairrow` (a JSON Lines item
    file's), so they are passed over here; from any other source a pair record is refused as an
    unknown field."""
    seen: dict[str, str] = {}
    pair_lines = 0
    scales = RubricScales.of(rubric)
    plain = PlainCheck(scales)
    for n, where, obj in numbered:
        at = f"{src}:{where}"
        if isinstance(obj, str):
            errs.append(f"{at}: {obj}")
            continue
        if pairs_apart and is_pair(obj):  # a pair record: read and checked by reviewer.io.pairrow
            pair_lines += 1
            continue
        row = plain.row(n, obj)  # the common row, checked in a few steps; any other: the full check
        if row is None:
            unknown = set(obj) - KNOWN_FIELDS
            if unknown:
                errs.append(f"{at}: unknown field {sorted(unknown)[0]!r}; known: {', '.join(sorted(KNOWN_FIELDS))}")
                continue
            row = check_row(rubric, n, obj, errs, src, scales, at=at)
            if row is None:
                continue
        if row.item_id in seen:
            errs.append(f"{at}: duplicate id {row.item_id!r} (first on {unit} {seen[row.item_id]})")
            continue
        seen[row.item_id] = where
        yield row
    if not seen and not pair_lines and not errs:
        errs.append(f"{src}:1: the file has no items; one JSON object per line")


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def read_rows(path: Path, rubric: Rubric) -> list[Row]:
    """Every row of the file, checked; raises :class:`FileErrors` if any line is wrong."""
    errs: list[str] = []
    rows = list(iter_rows(path, rubric, errs))
    if errs:
        raise FileErrors(errs)
    return rows


class ItemFile:
    """An item file as the store's import reads it (:class:`reviewer.store.import_batches.ItemSource`):
    the store is handed checked rows and never opens or parses the file itself."""

    def __init__(self, path: str | Path, name: str | None = None) -> None:
        self.path = Path(path)
        #: what messages call the file (``-`` for standard input spooled to ``path``)
        self.name = name

    def rows(self, rubric: Rubric, errs: list[str]) -> Iterator[Row]:
        """The file's good rows (:func:`iter_rows`); bad lines go to ``errs``."""
        return iter_rows(self.path, rubric, errs, self.name)

    def pairs(self, errs: list[str]) -> list[PairRecord]:
        """The file's pair records (:func:`reviewer.io.pairrow.read_pairs`); bad ones go to ``errs``."""
        return read_pairs(self.path, errs, self.name)

    def count_lines(self) -> int:
        """Lines in the file, for a progress bar's total (a CSV's header counts; near enough)."""
        try:
            with self.path.open("rb") as fh:
                return sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b""))
        except OSError:
            return 0


__all__ = ["MAX_ERRORS_SHOWN", "FileErrors", "ItemFile", "JudgeEntry", "Row", "check_objects", "check_row", "iter_rows",
           "read_rows"]
