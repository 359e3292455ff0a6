"""LangSmith: runs with their feedback — the ``Run`` objects ``Client.list_runs`` gives, each with
a ``feedback`` list of ``Feedback`` objects (or the feedback in a top-level ``feedback`` list,
matched by ``run_id``), as ``{"runs": [...]}``, a list, or JSON Lines of runs.

Each root run is an item (its ``id``; ``inputs`` and ``outputs`` as text: the value itself when
there is one key holding text, else the JSON text). Each feedback is a score on the dimension
named by its ``key``: ``feedback_source.type`` ``model`` (an evaluator) and ``api`` (posted by
code) are the judge's, with the ``comment`` as rationale; ``app`` (given in LangSmith's app, by a
person) is that person's (``feedback_source.user_name``, else ``user_id``), the ``comment`` its
reason. ``score`` is the number (true/false as 1/0); without one, a text ``value`` is a category
(nominal, labelled). The mapping table is ``docs/integrations.md``.
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
    obj,
    person_score,
    seq,
    slug,
    text,
)
from rubrics.draft import DraftDimension

#: The reviewer name of app feedback that names nobody.
ANNOTATOR = "langsmith-annotator"


def looks_like(doc: Any) -> bool:
    """Whether a parsed JSON document is a LangSmith runs export (or its first run, for JSON Lines)."""
    runs = doc.get("runs", [doc]) if isinstance(doc, dict) else doc
    return isinstance(runs, list) and bool(runs) and isinstance(runs[0], dict) and "run_type" in runs[0] and (
        "inputs" in runs[0] or "trace_id" in runs[0])


def read(data: bytes, src: str) -> Converted:
    """The runs and their feedback converted."""
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        lines = json_lines(data, src)
        doc, places = [o for _, o in lines], [str(n) for n, _ in lines]
    else:
        places = []
    loose = seq(doc.get("feedback")) if isinstance(doc, dict) else []
    runs = doc.get("runs", [doc]) if isinstance(doc, dict) else doc
    if not isinstance(runs, list) or not runs:
        raise AdapterError(f"{src}:runs: missing; a LangSmith export is {{\"runs\": [...]}}, a list or JSON Lines of runs")
    prefix = "runs" if isinstance(doc, dict) and "runs" in doc else ""
    out = Converted("langsmith")
    by_run: dict[str, list[tuple[str, Any]]] = {}
    for k, fb in enumerate(loose):
        by_run.setdefault(str(obj(fb).get("run_id")), []).append((f"feedback[{k}]", fb))
    for i, run in enumerate(runs):
        where = places[i] if places else f"{prefix}[{i}]"
        if not isinstance(run, dict) or not isinstance(run.get("id"), str) or not run["id"]:
            raise AdapterError(f"{src}:{where}.id: missing; a run has an id")
        if run.get("parent_run_id"):
            out.no_home["a child run (a step inside a trace): not imported, an item is a root run"] += 1
            continue
        feedback = [(f"{where}.feedback[{k}]", fb) for k, fb in enumerate(seq(run.get("feedback")))]
        out.records.append((where, _record(run, feedback + by_run.pop(run["id"], []), src, out)))
    if by_run:
        out.no_home["feedback on a run not in the file: not imported"] += sum(len(v) for v in by_run.values())
    return out


def _text(value: Any) -> str:
    """Inputs or outputs as text: the one text value of a one-key mapping, else JSON text."""
    if isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), str):
        return str(next(iter(value.values())))
    return "" if value is None else text(value)


def _record(run: dict[str, Any], feedback: list[tuple[str, Any]], src: str, out: Converted) -> dict[str, Any]:
    metadata: dict[str, Any] = {"source": "langsmith", "run_id": run["id"]}
    extra = obj(run.get("extra"))
    for key, name in (("name", "run_name"), ("run_type", "run_type"), ("trace_id", "trace_id"),
                      ("session_id", "project_id"), ("session_name", "project"), ("start_time", "start_time"),
                      ("tags", "tags"), ("reference_example_id", "reference_example_id"), ("error", "error")):
        if run.get(key) not in (None, "", []):
            metadata[name] = run[key]
    if extra.get("metadata"):
        metadata["run_metadata"] = extra["metadata"]
    record: dict[str, Any] = {"id": run["id"], "input": _text(run.get("inputs")),
                              "output": _text(run.get("outputs")), "metadata": metadata}
    for where, fb in feedback:
        _feedback(fb, where, src, out, record)
    return record


def _feedback(fb: Any, where: str, src: str, out: Converted, record: dict[str, Any]) -> None:
    if not isinstance(fb, dict) or not isinstance(fb.get("key"), str) or not fb["key"]:
        raise AdapterError(f"{src}:{where}.key: missing; feedback names its key")
    dim_id = slug(fb["key"])
    dim = out.dimensions.get(dim_id)
    if dim is None:
        dim = out.dimensions[dim_id] = DraftDimension(dim_id, fb["key"], origin=f"LangSmith feedback {fb['key']!r}")
    value = _value(fb, dim, where, src, out)
    if value is None:
        return
    if fb.get("correction") is not None:
        out.no_home["a feedback's correction: not imported (rubricate keeps scores and reasons)"] += 1
    comment = fb.get("comment") if isinstance(fb.get("comment"), str) and fb.get("comment") else None
    source = obj(fb.get("feedback_source"))
    kind = source.get("type", "api")
    if kind == "app":
        who = source.get("user_name") or source.get("user_id")
        if not isinstance(who, str) or not who:
            who = ANNOTATOR
            out.no_home[f"app feedback naming no person: stored as reviewer {ANNOTATOR!r}"] += 1
        person_score(record, who, dim_id, value, comment)
    elif kind in ("model", "api"):
        judge_score(record, "langsmith", dim_id, value, comment)
    else:
        raise AdapterError(f"{src}:{where}.feedback_source.type: {kind!r}; LangSmith's are model, api and app")
    if fb.get("id"):
        record["metadata"].setdefault("feedback_ids", {})[f"{dim_id}:{kind}"] = fb["id"]


def _value(fb: dict[str, Any], dim: DraftDimension, where: str, src: str, out: Converted) -> float | None:
    score = fb.get("score")
    if isinstance(score, bool):
        dim.labels.update({0.0: "false", 1.0: "true"})
        num: float | None = 1.0 if score else 0.0
    elif score is not None:
        num = number(score)
        if num is None:
            raise AdapterError(f"{src}:{where}.score: {score!r}, expected a number or true/false")
    elif isinstance(fb.get("value"), str) and fb["value"]:
        label = fb["value"]
        known = {v: k for k, v in dim.labels.items()}
        num = known.get(label, float(len(dim.labels)))
        dim.labels[num] = label
        dim.level = "nominal"
    elif number(fb.get("value")) is not None:
        num = number(fb.get("value"))
    else:
        out.no_home["feedback with neither a score nor a value: not imported"] += 1
        return None
    assert num is not None
    dim.saw(num)
    return num


__all__ = ["looks_like", "read"]
