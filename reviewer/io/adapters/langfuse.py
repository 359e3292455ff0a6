"""Langfuse: a scores export (the public API's score objects: ``GET /api/public/v2/scores``'s
``{"data": [...]}``, a plain list, or JSON Lines of them), with ``--traces FILE`` (the trace
objects, the same shapes) for the texts scored.

Each trace is an item (its ``id``; ``input`` and ``output`` as text). Each score is a score on
the dimension named by its ``name``: ``source`` ``ANNOTATION`` is a person's (reviewer
``authorUserId``, reason ``comment``), ``EVAL`` and ``API`` the judge's (rationale ``comment``).
``NUMERIC`` values are numbers; ``BOOLEAN`` 1/0 (labelled true/false); ``CATEGORICAL`` the
category's ``value`` when numeric, else its place among the categories in order of appearance,
labelled with ``stringValue`` (nominal). The mapping table is ``docs/integrations.md``.
"""

from __future__ import annotations

from typing import Any

import orjson

from reviewer.io.adapters.base import (
    AdapterError,
    Converted,
    json_lines,
    judge_score,
    number,
    person_score,
    slug,
    text,
)
from rubrics.draft import DraftDimension

#: The reviewer name of an annotation that names no author.
ANNOTATOR = "langfuse-annotator"


def _objects(data: bytes, src: str, what: str) -> list[tuple[str, Any]]:
    """The objects of an export: ``{"data": [...]}``, a list, or JSON Lines; each with its place."""
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        return [(str(n), o) for n, o in json_lines(data, src)]  # JSON Lines, or a line to name
    if isinstance(doc, dict) and isinstance(doc.get("data"), list):
        return [(f"data[{i}]", o) for i, o in enumerate(doc["data"])]
    if isinstance(doc, list):
        return [(f"[{i}]", o) for i, o in enumerate(doc)]
    if isinstance(doc, dict):
        return [("1", doc)]  # JSON Lines of one object
    raise AdapterError(f"{src}:data: missing; a Langfuse {what} export is {{\"data\": [...]}}, a list or JSON Lines")


def looks_like(doc: Any) -> bool:
    """Whether a parsed JSON document is a Langfuse scores export."""
    rows = doc.get("data", [doc]) if isinstance(doc, dict) else doc  # (a JSON Lines file: its first line)
    return isinstance(rows, list) and bool(rows) and isinstance(rows[0], dict) and "traceId" in rows[0] and (
        "dataType" in rows[0] or "source" in rows[0])


def read(data: bytes, src: str, traces: tuple[bytes, str] | None = None) -> Converted:
    """A scores export (and its traces) converted."""
    out = Converted("langfuse")
    texts: dict[str, dict[str, Any]] = {}
    if traces is None:
        out.no_home["no trace texts (give --traces FILE): items imported with empty input and output"] += 1
    else:
        for where, trace in _objects(traces[0], traces[1], "traces"):
            if not isinstance(trace, dict) or not isinstance(trace.get("id"), str) or not trace["id"]:
                raise AdapterError(f"{traces[1]}:{where}.id: missing; a trace has an id")
            texts[trace["id"]] = trace
    records: dict[str, dict[str, Any]] = {}
    places: dict[str, str] = {}
    stamps: dict[tuple[str, str, str], str] = {}
    for tid, trace in texts.items():
        records[tid], places[tid] = _item(tid, trace), f"trace {tid}"
    for where, score in _objects(data, src, "scores"):
        _score(score, where, src, out, records, places, stamps)
    out.records = [(places[tid], rec) for tid, rec in records.items()]
    if not out.records:
        raise AdapterError(f"{src}:data: no scores; export the scores again")
    return out


def _item(tid: str, trace: dict[str, Any] | None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"source": "langfuse", "trace_id": tid}
    trace = trace or {}
    for key, name in (("name", "trace_name"), ("sessionId", "session_id"), ("userId", "user_id"),
                      ("tags", "tags"), ("release", "release"), ("version", "version"),
                      ("environment", "environment"), ("metadata", "trace_metadata")):
        if trace.get(key) not in (None, "", [], {}):
            metadata[name] = trace[key]
    record: dict[str, Any] = {"id": tid, "output": "" if trace.get("output") is None else text(trace["output"]),
                              "metadata": metadata}
    if trace.get("input") is not None:
        record["input"] = text(trace["input"])
    return record


def _score(score: Any, where: str, src: str, out: Converted, records: dict[str, dict[str, Any]],
           places: dict[str, str], stamps: dict[tuple[str, str, str], str]) -> None:
    if not isinstance(score, dict):
        raise AdapterError(f"{src}:{where}: {type(score).__name__}, expected a score object")
    tid, name = score.get("traceId"), score.get("name")
    if not isinstance(tid, str) or not tid:
        out.no_home["a score on no trace (a session's or a dataset run's): not imported"] += 1
        return
    if not isinstance(name, str) or not name:
        raise AdapterError(f"{src}:{where}.name: missing; a score has a name")
    if score.get("observationId"):
        out.no_home["a score on an observation inside a trace: not imported (an item is a trace)"] += 1
        return
    if tid not in records:
        records[tid], places[tid] = _item(tid, None), f"{where} (trace {tid})"
    dim_id = slug(name)
    dim = out.dimensions.get(dim_id)
    if dim is None:
        dim = out.dimensions[dim_id] = DraftDimension(dim_id, name, origin=f"Langfuse score {name!r}")
    value = _value(score, dim, where, src)
    source = score.get("source")
    comment = score.get("comment") if isinstance(score.get("comment"), str) and score.get("comment") else None
    record = records[tid]
    stamp = str(score.get("timestamp") or score.get("createdAt") or "")
    if source == "ANNOTATION":
        who = score.get("authorUserId")
        if not isinstance(who, str) or not who:
            who = ANNOTATOR
            out.no_home[f"an annotation naming no author: stored as reviewer {ANNOTATOR!r}"] += 1
        if not _latest(stamps, (tid, dim_id, who), stamp, out):
            return
        person_score(record, who, dim_id, value, comment)
    elif source in ("EVAL", "API"):
        if not _latest(stamps, (tid, dim_id, ""), stamp, out):
            return
        judge_score(record, "langfuse", dim_id, value, comment)
    else:
        raise AdapterError(f"{src}:{where}.source: {source!r}; Langfuse's sources are ANNOTATION, EVAL and API")
    if score.get("id"):
        record["metadata"].setdefault("score_ids", {})[f"{dim_id}:{source}"] = score["id"]


def _latest(stamps: dict[tuple[str, str, str], str], key: tuple[str, str, str], stamp: str, out: Converted) -> bool:
    """Whether a score is the latest so far of its trace, dimension and scorer (an earlier one is
    replaced, and said)."""
    if key in stamps:
        out.no_home["a trace scored twice by one scorer on one name: the later score kept"] += 1
        if stamp < stamps[key]:
            return False
    stamps[key] = stamp
    return True


def _value(score: dict[str, Any], dim: DraftDimension, where: str, src: str) -> float:
    kind = score.get("dataType", "NUMERIC")
    if kind == "BOOLEAN":
        num = number(score.get("value"))
        if num not in (0.0, 1.0):
            raise AdapterError(f"{src}:{where}.value: {score.get('value')!r}, a boolean score is 0 or 1")
        dim.labels.update({0.0: "false", 1.0: "true"})
    elif kind == "CATEGORICAL":
        label = score.get("stringValue")
        if not isinstance(label, str) or not label:
            raise AdapterError(f"{src}:{where}.stringValue: missing; a categorical score names its category")
        known = {v: k for k, v in dim.labels.items()}
        num = number(score.get("value"))
        if num is None:
            num = known.get(label, float(len(dim.labels)))
        if dim.labels.get(num, label) != label:
            raise AdapterError(f"{src}:{where}.value: category {label!r} has the value {num:g}, which "
                               f"{dim.labels[num]!r} has elsewhere in the file")
        dim.labels[num] = label
        dim.level = "nominal"
    elif kind == "NUMERIC":
        num = number(score.get("value"))
        if num is None:
            raise AdapterError(f"{src}:{where}.value: {score.get('value')!r}, expected a number")
    else:
        raise AdapterError(f"{src}:{where}.dataType: {kind!r}; Langfuse's types are NUMERIC, CATEGORICAL and BOOLEAN")
    dim.saw(num)
    return num


__all__ = ["looks_like", "read"]
