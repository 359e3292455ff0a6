"""openai/evals: a run log, the JSON Lines file ``oaieval`` records (``--record_path``): a
``spec`` line, then one event per line (``sampling``, ``match``, ``metrics``, …) naming its
``sample_id``, and a ``final_report`` line.

Each sample is an item (its ``sample_id``). The first ``sampling`` event gives the prompt as
``input`` and the first sampled text as ``output``; a later ``sampling`` event of the same
sample (a model-graded eval's grading call) gives the judge's rationale. A ``match`` event is a
judge score on ``match`` (``correct`` 1 or 0, labelled), its ``expected`` the ``reference``. A
``metrics`` event (model-graded evals) is a judge score on the eval's dimension (the eval's base
name): its ``score``, labelled with its ``choice`` (or, with no score, the choice as a nominal
label); other numbers and true/false it records are dimensions of their own. A run log holds no
people's scores. The mapping table is ``docs/integrations.md``.
"""

from __future__ import annotations

from typing import Any

from reviewer.io.adapters.base import (
    AdapterError,
    Converted,
    json_lines,
    judge_score,
    number,
    obj,
    slug,
    text,
)
from rubrics.draft import DraftDimension

MODEL = "openai-evals"


def looks_like(doc: Any) -> bool:
    """Whether a parsed first line is an openai/evals run log's ``spec`` line."""
    spec = doc.get("spec") if isinstance(doc, dict) else None
    return isinstance(spec, dict) and ("eval_name" in spec or "run_id" in spec)


def read(data: bytes, src: str) -> Converted:
    """The run log converted."""
    lines = json_lines(data, src)
    if not lines or not looks_like(lines[0][1]):
        raise AdapterError(f"{src}:1: the first line of an openai/evals run log is its 'spec'")
    spec = lines[0][1]["spec"]
    name = text(spec.get("base_eval") or spec.get("eval_name") or "eval")
    out = Converted("openai-evals", title=text(spec.get("eval_name") or name))
    dim = slug(name.split(".")[0], "eval")
    records: dict[str, dict[str, Any]] = {}
    places: dict[str, str] = {}
    graders: dict[str, str] = {}
    for n, event in lines[1:]:
        if not isinstance(event, dict):
            raise AdapterError(f"{src}:{n}: {type(event).__name__}, expected an event object")
        if "final_report" in event:
            out.no_home["the final report (the run's summary figures): not imported"] += 1
            continue
        sample = event.get("sample_id")
        if not isinstance(sample, str) or not sample:
            raise AdapterError(f"{src}:{n}.sample_id: missing; every event names its sample")
        if sample not in records:
            records[sample], places[sample] = _item(sample, spec), str(n)
        record, data_ = records[sample], obj(event.get("data"))
        kind = event.get("type")
        if kind == "sampling":
            if "output" not in record:
                record["input"] = _prompt(data_.get("prompt"))
                sampled = data_.get("sampled")
                record["output"] = text(sampled[0] if isinstance(sampled, list) and sampled else sampled or "")
            else:
                sampled = data_.get("sampled")
                graders[sample] = text(sampled[0] if isinstance(sampled, list) and sampled else sampled or "")
        elif kind == "match":
            _match(data_, record, f"{n}.data", src, out)
        elif kind == "metrics":
            _metrics(data_, dim, record, f"{n}.data", src, out)
        else:
            out.no_home[f"a {kind!r} event: not imported"] += 1
    for sample, reply in graders.items():  # the grader's reply is the rationale of the eval's score
        scores = records[sample].get("judge", {}).get("scores", {})
        if dim in scores:
            scores[dim]["rationale"] = reply
    for record in records.values():
        record.setdefault("output", "")
    out.records = [(places[s], r) for s, r in records.items()]
    if not out.records:
        raise AdapterError(f"{src}:2: the run log has no events; run the eval with --record_path")
    return out


def _item(sample: str, spec: dict[str, Any]) -> dict[str, Any]:
    metadata: dict[str, Any] = {"source": "openai-evals", "sample_id": sample}
    for key in ("eval_name", "base_eval", "split", "run_id", "completion_fns", "created_at"):
        if spec.get(key) not in (None, "", []):
            metadata[key] = spec[key]
    return {"id": sample, "metadata": metadata}


def _prompt(prompt: Any) -> str:
    """A sampling event's prompt: text, or chat messages as ``role: content`` lines."""
    if isinstance(prompt, list):
        return "\n".join(f"{m.get('role', '?')}: {text(m.get('content', ''))}" for m in prompt if isinstance(m, dict))
    return "" if prompt is None else text(prompt)


def _dimension(out: Converted, dim: str, origin: str) -> DraftDimension:
    found = out.dimensions.get(dim)
    if found is None:
        found = out.dimensions[dim] = DraftDimension(dim, dim, origin=origin)
    return found


def _match(data: dict[str, Any], record: dict[str, Any], where: str, src: str, out: Converted) -> None:
    correct = data.get("correct")
    if not isinstance(correct, bool):
        raise AdapterError(f"{src}:{where}.correct: {correct!r}, expected true or false")
    draft = _dimension(out, "match", "openai/evals match event")
    draft.labels.update({0.0: "incorrect", 1.0: "correct"})
    draft.saw(1.0 if correct else 0.0)
    judge_score(record, MODEL, "match", 1.0 if correct else 0.0, None)
    expected = data.get("expected")
    if expected is not None:
        record["reference"] = "\n".join(map(text, expected)) if isinstance(expected, list) else text(expected)
    if data.get("picked") is not None:
        record["metadata"]["picked"] = data["picked"]


def _metrics(data: dict[str, Any], dim: str, record: dict[str, Any], where: str, src: str, out: Converted) -> None:
    choice = data.get("choice")
    score = data.get("score")
    draft = _dimension(out, dim, "openai/evals model-graded eval")
    if score is not None:
        value = number(score)
        if value is None:
            raise AdapterError(f"{src}:{where}.score: {score!r}, expected a number")
        if isinstance(choice, str) and choice:
            if draft.labels.get(value, choice) != choice:
                raise AdapterError(f"{src}:{where}.choice: {choice!r} scores {value:g}, which "
                                   f"{draft.labels[value]!r} scores elsewhere in the log")
            draft.labels[value] = choice
        draft.saw(value)
        judge_score(record, MODEL, dim, value, None)
    elif isinstance(choice, str) and choice:
        known = {v: k for k, v in draft.labels.items()}
        value = known.get(choice, float(len(draft.labels)))
        draft.labels[value] = choice
        draft.level = "nominal"
        draft.saw(value)
        judge_score(record, MODEL, dim, value, None)
    for key, other in data.items():
        if key in ("choice", "score"):
            continue
        if "metascore" in key:
            record["metadata"].setdefault("metascores", {})[key] = other
            out.no_home["a metascore (the grader against a label the log does not keep): kept in metadata"] += 1
        elif isinstance(other, bool) or number(other) is not None:
            extra = slug(key)
            part = _dimension(out, extra, f"openai/evals metric {key!r}")
            num = float(other)
            if isinstance(other, bool):
                part.labels.update({0.0: "false", 1.0: "true"})
            part.saw(num)
            judge_score(record, MODEL, extra, num, None)
        else:
            out.no_home[f"a metric {key!r} that is not a number: not imported"] += 1


__all__ = ["looks_like", "read"]
