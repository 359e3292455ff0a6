"""Read an item file (JSON Lines or CSV) and check every row against a rubric, before any write.

Every bad line is collected as ``FILE:LINE: what is wrong``; the caller refuses the whole file
if there is one. Nothing is guessed: a score off its dimension's scale is an error, not a clip.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reviewer.domain.itemlimits import (
    MAX_DEPTH,
    MAX_ID_CHARS,
    conversation_problem,
    name_problem,
    structure_problem,
    tags_problem,
    text_or_none,
)
from reviewer.domain.records import JudgeEntry, Row
from reviewer.errors import MAX_ERRORS_SHOWN, FileErrors
from rubrics.schema import Dimension, Rubric, Scale

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
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                yield n, "not valid UTF-8; save the file as UTF-8"
                continue
            if not text.strip():
                continue
            try:
                obj = _DECODER.decode(text)
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


# Made once: building a decoder or encoder per line costs as much as using it.
_DECODER = json.JSONDecoder(parse_constant=_no_constant)
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


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
                obj[key] = json.loads(value, parse_constant=_no_constant)
            except (ValueError, RecursionError):
                yield line, f"column {key!r} must hold JSON text"
                return
        else:
            obj[key] = value
    problem = structure_problem("\n".join(str(v) for v in row.values()), obj)
    yield line, obj if problem is None else problem


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _check_score(scale: Scale, value: Any, where: Callable[[], str],
                 labels: Dimension | None = None) -> tuple[float | None, list[float], str | None]:
    """(score, samples, error message) for one score entry; ``where`` names it, only on error.
    A score given as text is one of ``labels``' anchor labels (exact, then ignoring case)."""
    samples: list[float] = []
    # the common case first: a plain number on the scale
    if (type(value) is int or type(value) is float) and math.isfinite(value) and scale.min <= value <= scale.max:
        return float(value), samples, None
    label = value.get("score") if isinstance(value, dict) else value
    if isinstance(label, str):
        if labels is None:
            return None, [], f"{where()}: score {label!r} is text; give a number (labels stand only for scores on the rubric's own scale)"
        code, problem = labels.score_for_label(label)
        if problem is not None:
            return None, [], f"{where()}: {problem}"
        value = {**value, "score": code} if isinstance(value, dict) else code
    if isinstance(value, dict):
        raw_samples = value.get("samples") or []
        if not isinstance(raw_samples, list):
            return None, [], f"{where()}: samples must be a list of numbers"
        for s in raw_samples:
            num = _number(s)
            if num is None:
                return None, [], f"{where()}: sample {s!r} is not a finite number"
            if not scale.contains(num):
                return None, [], f"{where()}: sample {num:g} is off the scale {scale.min:g}–{scale.max:g}"
            samples.append(num)
        value = value.get("score", sum(samples) / len(samples) if samples else None)
    num = _number(value)
    if num is None:
        return None, [], f"{where()}: score {value!r} is not a finite number"
    if not scale.contains(num):
        return None, [], f"{where()}: score {num:g} is off the scale {scale.min:g}–{scale.max:g}"
    return num, samples, None


def _extra_problem(extra: dict[str, Any]) -> str | None:
    """A judge score's rationale, evidence and confidence have the types they are stored as."""
    problem = text_or_none(extra.get("rationale"), "'rationale'")
    if problem:
        return problem
    if extra.get("evidence") is not None and not isinstance(extra["evidence"], list):
        return "'evidence' must be a list"
    conf = extra.get("confidence")
    if conf is not None and _number(conf) is None:
        return f"'confidence' must be a number, not {conf!r}"[:120]
    return None


@dataclass(frozen=True)
class _Scales:
    """Each dimension's scale for judge scores and for human scores, looked up once per file."""

    judge: dict[str, Scale]
    human: dict[str, Scale]
    #: The dimension whose anchor labels a score may be given as (the judge's: only on the same scale).
    judge_labels: dict[str, Dimension]
    human_labels: dict[str, Dimension]

    @classmethod
    def of(cls, rubric: Rubric) -> _Scales:
        return cls({d.id: d.judge_scale or d.scale for d in rubric.dimensions},
                   {d.id: d.scale for d in rubric.dimensions},
                   {d.id: d for d in rubric.dimensions if d.judge_scale is None},
                   {d.id: d for d in rubric.dimensions})


def _levels(scale: Scale) -> str:
    """A scale's levels in a few words: ``1, 3, 5`` or ``1, 2, …, 10``."""
    levels = scale.level_values()
    if len(levels) <= 6:
        return ", ".join(f"{v:g}" for v in levels)
    return f"{levels[0]:g}, {levels[1]:g}, …, {levels[-1]:g}"


def _check_gold(gold: Any, scales: dict[str, Scale], errs: list[str], where: str) -> None:
    """A gold item's expected scores: an object of dimension → a number on that dimension's scale."""
    if not isinstance(gold, dict) or not gold:
        errs.append(f"{where}: must be an object of dimension → expected score, e.g. {{\"accuracy\": 7}}")
        return
    for dim_id, value in gold.items():
        if dim_id not in scales:
            errs.append(f"{where}: unknown dimension {dim_id!r}")
            continue
        def gwhere(d: str = dim_id) -> str:
            return f"{where} {d}"
        _, _, err = _check_score(scales[dim_id], value, gwhere)
        if err:
            errs.append(err)


def check_row(rubric: Rubric, n: int, obj: dict[str, Any], errs: list[str], src: str,
              scales: _Scales | None = None) -> Row | None:
    """Check one row; append messages to ``errs`` and return None when it is wrong."""
    scales = scales or _Scales.of(rubric)
    at = f"{src}:{n}"
    before = len(errs)
    item_id = obj.get("id")
    if not isinstance(item_id, (str, int)) or isinstance(item_id, bool) or str(item_id) == "":
        errs.append(f"{at}: missing 'id' (every item needs a unique id)")
        return None
    bad_id = name_problem(item_id, "the id", MAX_ID_CHARS)
    if bad_id is not None:
        errs.append(f"{at}: {bad_id}")
        return None
    if not isinstance(obj.get("output"), str) and not isinstance(obj.get("conversation"), list):
        errs.append(f"{at}: item {item_id}: needs 'output' text (or a 'conversation' list)")
    for key in ("input", "context", "reference", "group", "variant"):
        if key in obj and obj[key] is not None and (
                isinstance(obj[key], bool) or not isinstance(obj[key], (str, int, float))):
            errs.append(f"{at}: item {item_id}: {key!r} must be text")
    problem = conversation_problem(obj.get("conversation"))
    if problem:
        errs.append(f"{at}: item {item_id}: {problem}")
    if "metadata" in obj and not isinstance(obj["metadata"], dict):
        errs.append(f"{at}: item {item_id}: 'metadata' must be an object")
    dims = scales.human
    if obj.get("gold") is not None:
        _check_gold(obj["gold"], dims, errs, f"{at}: item {item_id}: gold")
    judge: dict[str, JudgeEntry] = {}
    model = None
    if "judge" in obj:
        j = obj["judge"]
        scores = j.get("scores") if isinstance(j, dict) else None
        if not isinstance(scores, dict):
            errs.append(f"{at}: item {item_id}: 'judge' must be an object with 'scores'")
        else:
            model = j.get("model")
            if model is not None and name_problem(model, "the judge model") is not None:
                errs.append(f"{at}: item {item_id}: judge: {name_problem(model, 'the judge model')}")
                model = None
            jscales = scales.judge
            for dim_id, value in scores.items():
                kind = type(value)
                if (kind is int or kind is float) and dim_id in jscales:  # a plain score: the common case
                    sc = jscales[dim_id]
                    if sc.min <= value <= sc.max:  # NaN fails this; infinity lies off every scale
                        judge[dim_id] = JudgeEntry(float(value), [])
                        continue

                def where(dim_id: str = dim_id) -> str:
                    return f"{at}: item {item_id}: judge {dim_id}"
                if dim_id not in dims:
                    errs.append(f"{where()}: unknown dimension for {rubric.ref}")
                    continue
                if isinstance(value, dict) and "error" in value and "score" not in value:
                    problem = (text_or_none(value["error"], "'error'")
                               or text_or_none(value.get("raw_reply"), "'raw_reply'"))
                    if problem:
                        errs.append(f"{where()}: {problem}")
                        continue
                    judge[dim_id] = JudgeEntry(None, [], error=str(value["error"]),
                                               raw_reply=value.get("raw_reply"))
                    continue
                score, samples, err = _check_score(scales.judge[dim_id], value, where, scales.judge_labels.get(dim_id))
                extra = value if isinstance(value, dict) else {}
                err = err or _extra_problem(extra)
                if err:
                    errs.append(err if err.startswith(at) else f"{where()}: {err}")
                    continue
                judge[dim_id] = JudgeEntry(
                    score, samples, str(extra.get("rationale", "")), list(extra.get("evidence") or []),
                    _number(extra.get("confidence")),
                )
    human: list[tuple[str, str, float, str | None, list[str], bool]] = []
    entries = obj.get("human") or []
    if not isinstance(entries, list):
        errs.append(f"{at}: item {item_id}: 'human' must be a list of {{reviewer, scores}}")
        entries = []
    for h in entries:
        if not isinstance(h, dict) or not isinstance(h.get("reviewer"), str) or not isinstance(h.get("scores"), dict):
            errs.append(f"{at}: item {item_id}: each human entry needs 'reviewer' and 'scores'")
            continue
        problem = name_problem(h["reviewer"], "the reviewer name")
        if problem is None and not isinstance(h.get("blind", False), bool):
            problem = "'blind' must be true or false"
        if problem is None and not isinstance(h.get("aggregate", False), bool):
            problem = "'aggregate' must be true or false"
        if problem:
            errs.append(f"{at}: item {item_id}: {problem}")
            continue
        who, blind = h["reviewer"], bool(h.get("blind", False))
        aggregate = h.get("aggregate") is True  # a mean of several people may lie between levels
        for dim_id, value in h["scores"].items():
            kind = type(value)
            if (kind is int or kind is float) and dim_id in dims:  # a plain score: the common case
                sc = dims[dim_id]
                if sc.min <= value <= sc.max and (aggregate or sc.is_level(value)):  # NaN fails this
                    human.append((who, dim_id, float(value), None, [], blind))
                    continue

            def hwhere(who: str = who, dim_id: str = dim_id) -> str:
                return f"{at}: item {item_id}: {who} {dim_id}"
            if dim_id not in dims:
                errs.append(f"{hwhere()}: unknown dimension for {rubric.ref}")
                continue
            score, _, err = _check_score(scales.human[dim_id], value, hwhere, scales.human_labels[dim_id])
            if err or score is None:
                errs.append(err or f"{hwhere()}: no score")
                continue
            if not aggregate and not scales.human[dim_id].is_level(score):
                errs.append(f"{hwhere()}: score {score:g} is not a level of the scale "
                            f"({_levels(scales.human[dim_id])}); a person scores a level, as in the "
                            "review screen: give one (a mean of several people: mark the entry "
                            "\"aggregate\": true)")
                continue
            extra = value if isinstance(value, dict) else {}
            problem = text_or_none(extra.get("reason"), "'reason'") or tags_problem(extra.get("tags"))
            if problem:
                errs.append(f"{hwhere()}: {problem}")
                continue
            human.append((h["reviewer"], dim_id, score, extra.get("reason"), list(extra.get("tags") or []),
                          bool(h.get("blind", False))))
    audit = _audit_flag(obj.get("audit"))
    if audit is None:
        errs.append(f"{at}: item {item_id}: 'audit' must be true or false (true: the item was drawn "
                    "at random for an unbiased estimate)")
    if len(errs) > before:
        return None
    # Membership of the audit sample is not content: marking an item later changes no revision.
    content = {k: v for k, v in obj.items() if k != "audit"}
    digest = hashlib.sha256(_CANONICAL.encode(content).encode()).hexdigest()
    return Row(n, str(item_id), obj, digest, model, judge, human, bool(audit))  # audit is not None here


def _audit_flag(value: Any) -> bool | None:
    """``audit`` as a boolean: JSON true/false, or in CSV the text true/false (None: neither)."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def iter_rows(path: Path, rubric: Rubric, errs: list[str]) -> Iterator[Row]:
    """The file's good rows, in order, as they are read; every bad line is appended to ``errs``
    (the caller refuses the file when ``errs`` is not empty at the end)."""
    src = str(path)
    if not path.exists():
        errs.append(f"{src}: no such file")
        return
    seen: dict[str, int] = {}
    scales = _Scales.of(rubric)
    before = _size(path)
    for n, obj in _raw_lines(path):
        if isinstance(obj, str):
            errs.append(f"{src}:{n}: {obj}")
            continue
        unknown = set(obj) - KNOWN_FIELDS
        if unknown:
            errs.append(f"{src}:{n}: unknown field {sorted(unknown)[0]!r}; known: {', '.join(sorted(KNOWN_FIELDS))}")
            continue
        row = check_row(rubric, n, obj, errs, src, scales)
        if row is None:
            continue
        if row.item_id in seen:
            errs.append(f"{src}:{n}: duplicate id {row.item_id!r} (first on line {seen[row.item_id]})")
            continue
        seen[row.item_id] = n
        yield row
    after = _size(path)
    if after != before:
        errs.append(f"{src}: the file changed while it was read ({before} → {after} bytes); "
                    "import it again once it is complete")
    if not seen and not errs:
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

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def rows(self, rubric: Rubric, errs: list[str]) -> Iterator[Row]:
        """The file's good rows (:func:`iter_rows`); bad lines go to ``errs``."""
        return iter_rows(self.path, rubric, errs)

    def count_lines(self) -> int:
        """Lines in the file, for a progress bar's total (a CSV's header counts; near enough)."""
        try:
            with self.path.open("rb") as fh:
                return sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b""))
        except OSError:
            return 0


__all__ = ["MAX_ERRORS_SHOWN", "FileErrors", "ItemFile", "JudgeEntry", "Row", "check_row", "iter_rows", "read_rows"]
