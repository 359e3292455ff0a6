"""Import from other tools' files: each format's converter and the one way a file is read as one.

:func:`read_source` gives a :class:`~reviewer.io.adapters.base.Converted` for a file in any
supported format, named or recognised by its shape; :class:`ConvertedSource` hands its records to
the store's import as checked rows, exactly as an item file's lines are checked
(:func:`reviewer.io.itemfile.check_objects`), so the import itself is today's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import orjson

from reviewer.domain.records import Row
from reviewer.io.adapters.base import AdapterError, Converted, load_json
from rubrics.schema import Rubric

#: The longest first line :func:`detect` reads (a native row may be 10 MB).
MAX_FIRST_LINE = 10_000_001
#: Every format ``--from`` names (``rubricate`` is the native item file).
FORMATS = ("rubricate", "promptfoo", "inspect", "judge-bench", "langfuse", "langsmith", "openai-evals")


class Adapter(Protocol):
    """What each format's module gives (a module satisfies this protocol)."""

    def looks_like(self, doc: Any) -> bool:
        """Whether a parsed JSON document (a JSON Lines file's first line) has the format's shape."""
        ...

    def read(self, data: bytes, src: str) -> Converted:
        """The whole file converted; :class:`AdapterError` in one line."""
        ...


def adapters() -> dict[str, Adapter]:
    """Each format's adapter, by the name ``--from`` gives it, in the order shapes are tried."""
    from reviewer.io.adapters import (
        inspect_log,
        judge_bench,
        langfuse,
        langsmith,
        openai_evals,
        promptfoo,
    )

    return {"promptfoo": promptfoo, "inspect": inspect_log, "judge-bench": judge_bench, "langfuse": langfuse,
            "langsmith": langsmith, "openai-evals": openai_evals}


def detect(path: Path) -> str | None:
    """The format a file has the shape of, or None (rubricate's own item file). Reads the first
    line; the whole file only when that line is not a JSON object by itself (a pretty-printed
    JSON document, which a JSON Lines file never is)."""
    from reviewer.io.adapters import inspect_log

    with path.open("rb") as fh:
        if inspect_log.is_eval_zip(fh.read(4)):
            return "inspect"
        fh.seek(0)
        first = fh.readline(MAX_FIRST_LINE)
    if path.suffix.lower() == ".csv" or first.lstrip()[:1] not in (b"{", b"["):
        return None  # (a JSON Lines item file starts with an object; an export may be a list)
    try:
        doc = orjson.loads(first)
    except orjson.JSONDecodeError:
        try:
            doc = load_json(path.read_bytes(), "")
        except AdapterError:
            return None  # a broken file: the native reader words what is wrong, line by line
    return next((name for name, adapter in adapters().items() if adapter.looks_like(doc)), None)


def read_source(data: bytes, fmt: str, src: str, traces: tuple[bytes, str] | None = None) -> Converted:
    """``data`` (a whole file) converted from format ``fmt`` (``traces``: a Langfuse traces file's
    bytes and name); :class:`AdapterError` in one line."""
    from reviewer.io.adapters import langfuse

    found = adapters()
    if fmt not in found:
        raise AdapterError(f"{src}: unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    if traces is not None:
        if fmt != "langfuse":
            raise AdapterError(f"{traces[1]}: --traces goes with --from langfuse (the file is read as {fmt})")
        return langfuse.read(data, src, traces)
    return found[fmt].read(data, src)


@dataclass
class ConvertedSource:
    """A converted file as the store's import reads it (an ``ItemSource``): its records checked
    against the rubric as an item file's lines are. A score on a dimension the rubric does not
    have is left out, and the import says so once (it has no home in this rubric)."""

    path: Path
    converted: Converted
    name: str

    def rows(self, rubric: Rubric, errs: list[str]) -> Iterator[Row]:
        """The good rows in order; each bad record appended to ``errs`` as ``FILE:PATH: what``."""
        from reviewer.io.itemfile import check_objects

        dims = {d.id for d in rubric.dimensions}
        numbered = ((n, where, _within(rec, dims))
                    for n, (where, rec) in enumerate(self.converted.records, start=1))
        return check_objects(numbered, rubric, errs, self.name, "record")

    def count_lines(self) -> int:
        """How many records there are."""
        return len(self.converted.records)


def _within(record: dict[str, Any], dims: set[str]) -> dict[str, Any]:
    """The record with only the rubric's dimensions (the import says which were left out, from
    the converted file's dimensions: this may run in the reader process)."""
    judge = record.get("judge")
    if isinstance(judge, dict) and not judge["scores"].keys() <= dims:
        record = {**record, "judge": {**judge, "scores": {k: v for k, v in judge["scores"].items() if k in dims}}}
    people = record.get("human")
    if isinstance(people, list) and any(not h["scores"].keys() <= dims for h in people):
        kept = [{**h, "scores": {k: v for k, v in h["scores"].items() if k in dims}} for h in people]
        record = {**record, "human": [h for h in kept if h["scores"]]}
    return record


__all__ = ["FORMATS", "AdapterError", "Converted", "ConvertedSource", "detect", "read_source"]
