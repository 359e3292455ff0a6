"""Inspect AI: an evaluation log (``EvalLog``), as ``.json`` or as ``.eval`` (a zip holding
``header.json`` and one ``samples/ID_epoch_N.json`` per sample).

Each sample (and epoch) becomes an item: its ``id`` (``ID-epochN`` when the log has several
epochs), the input as ``input`` (a chat input as ``role: text`` lines), the model's completion as
``output``, the target as ``reference``. Each scorer is a dimension: the score's value as the
judge's score (``C``/``P``/``I``/``N`` read as 1, 0.5, 0, 0 as Inspect's own ``value_to_float``
does, labelled ``C``/``P``/``I``; true/false, yes/no as 1/0; a number as it is; a value of several
keys as one dimension per key), its ``explanation`` as the rationale. A score edited by a person
(an entry of the score's ``history`` with a ``provenance.author``) is that person's score, with
the edit's reason; the scorer's own value (the history's first entry) stays the judge's. The
mapping table is ``docs/integrations.md``.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from reviewer.io.adapters.base import (
    AdapterError,
    Converted,
    load_json,
    number,
    obj,
    seq,
    slug,
    text,
)
from rubrics.draft import DraftDimension

#: Inspect's letter values, as its ``value_to_float`` reads them.
LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
WORDS = {"yes": 1.0, "no": 0.0, "true": 1.0, "false": 0.0, "correct": 1.0, "incorrect": 0.0}
LETTER_LABELS = {1.0: "C", 0.5: "P", 0.0: "I"}
MAX_ZIP_ENTRY = 512 * 1024 * 1024


def is_eval_zip(data: bytes) -> bool:
    """Whether the bytes are a zip (an ``.eval`` log starts so)."""
    return data[:4] == b"PK\x03\x04"


def looks_like(doc: Any) -> bool:
    """Whether a parsed JSON document is an Inspect ``EvalLog``."""
    return isinstance(doc, dict) and isinstance(doc.get("eval"), dict) and "task" in doc["eval"] and (
        "samples" in doc or "status" in doc)


def read(data: bytes, src: str) -> Converted:
    """An Inspect log, ``.json`` or ``.eval``, converted."""
    if not is_eval_zip(data):
        return convert(load_json(data, src), src)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
        if "header.json" not in names:
            raise AdapterError(f"{src}:header.json: missing; an .eval log holds its header there")
        header = load_json(_entry(archive, "header.json", src), f"{src}:header.json")
        places = [name for name in names if name.startswith("samples/") and name.endswith(".json")]
        samples = [load_json(_entry(archive, name, src), f"{src}:{name}") for name in places]
    except zipfile.BadZipFile as exc:
        raise AdapterError(f"{src}: not a readable .eval zip ({exc}); copy the log again") from None
    except NotImplementedError as exc:  # a compression this Python cannot read (zstd before 3.14)
        raise AdapterError(f"{src}: {exc}; convert it with `inspect log convert --to json`") from None
    if not isinstance(header, dict):
        raise AdapterError(f"{src}:header.json: expected an object")
    return convert({**header, "samples": samples}, src, places)


def _entry(archive: zipfile.ZipFile, name: str, src: str) -> bytes:
    if archive.getinfo(name).file_size > MAX_ZIP_ENTRY:
        raise AdapterError(f"{src}:{name}: larger than {MAX_ZIP_ENTRY >> 20} MB unpacked; refused")
    return archive.read(name)


def convert(doc: Any, src: str, places: list[str] | None = None) -> Converted:
    """A parsed ``EvalLog`` as import records; ``places`` names each sample's file in an
    ``.eval`` zip (messages name it), else a sample is ``samples[i]``."""
    if not looks_like(doc):
        raise AdapterError(f"{src}:eval.task: missing; an Inspect log (EvalLog) names its task there")
    spec = doc["eval"]
    samples = doc.get("samples")
    if not isinstance(samples, list) or not samples:
        raise AdapterError(f"{src}:samples: no samples; write the log with samples (Inspect's log_samples)")
    out = Converted("inspect", title=spec["task"] if isinstance(spec["task"], str) else None)
    templates = _templates(spec)
    epochs = any(isinstance(s, dict) and s.get("epoch", 1) != 1 for s in samples)
    for i, sample in enumerate(samples):
        where = places[i] if places else f"samples[{i}]"
        if not isinstance(sample, dict):
            raise AdapterError(f"{src}:{where}: {type(sample).__name__}, expected an object")
        out.records.append((where, _record(sample, spec, where, src, out, templates, epochs)))
    return out


def _templates(spec: dict[str, Any]) -> dict[str, str]:
    """Each scorer's grading template or instructions, where the log keeps them."""
    found: dict[str, str] = {}
    scorers = seq(spec.get("scorers"))
    for scorer in scorers:
        if not isinstance(scorer, dict) or not isinstance(scorer.get("name"), str):
            continue
        options = obj(scorer.get("options"))
        said = options.get("template") or options.get("instructions")
        if isinstance(said, str) and said:
            found[scorer["name"].rsplit("/", 1)[-1]] = said
    return found


def _record(sample: dict[str, Any], spec: dict[str, Any], where: str, src: str, out: Converted,
            templates: dict[str, str], epochs: bool) -> dict[str, Any]:
    sample_id = sample.get("id")
    if isinstance(sample_id, bool) or not isinstance(sample_id, (str, int)):
        raise AdapterError(f"{src}:{where}.id: {'missing' if sample_id is None else repr(sample_id)}, "
                           "expected text or a number")
    epoch = sample.get("epoch", 1)
    item_id = f"{sample_id}-epoch{epoch}" if epochs else str(sample_id)
    metadata: dict[str, Any] = {"source": "inspect", "task": spec.get("task"), "sample_id": sample_id,
                                "epoch": epoch}
    for key, value in (("model", spec.get("model")), ("run_id", spec.get("run_id")),
                       ("eval_id", spec.get("eval_id")), ("task_id", spec.get("task_id")),
                       ("dataset", (spec.get("dataset") or {}).get("name") if isinstance(spec.get("dataset"), dict) else None),
                       ("sample_metadata", sample.get("metadata") or None), ("error", sample.get("error"))):
        if value is not None:
            metadata[key] = value
    record: dict[str, Any] = {"id": item_id, "input": _chat_text(sample.get("input")),
                              "output": _completion(sample.get("output")), "metadata": metadata}
    target = sample.get("target")
    if target:
        record["reference"] = "\n".join(map(text, target)) if isinstance(target, list) else text(target)
    scores = sample.get("scores")
    if isinstance(scores, dict):
        _scores(scores, record, f"{where}.scores", src, out, templates)
    return record


def _chat_text(value: Any) -> str:
    """A sample's input: text as it is; a chat as ``role: text`` lines."""
    if isinstance(value, list):
        return "\n".join(f"{m.get('role', '?')}: {_content(m.get('content'))}" for m in value if isinstance(m, dict))
    return text(value) if value is not None else ""


def _content(value: Any) -> str:
    """A message's content: text, or the text parts of a list of content parts."""
    if isinstance(value, list):
        return "".join(p.get("text", "") for p in value if isinstance(p, dict) and p.get("type") == "text")
    return text(value) if value is not None else ""


def _completion(output: Any) -> str:
    if not isinstance(output, dict):
        return ""
    if isinstance(output.get("completion"), str) and output["completion"]:
        return str(output["completion"])
    choices = output.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        if isinstance(message, dict):
            return _content(message.get("content"))
    return ""


def _scores(scores: dict[str, Any], record: dict[str, Any], where: str, src: str, out: Converted,
            templates: dict[str, str]) -> None:
    judge: dict[str, Any] = {}
    people: dict[str, dict[str, Any]] = {}
    answers: dict[str, str] = {}
    for scorer, score in scores.items():
        at = f"{where}.{scorer}"
        if not isinstance(score, dict) or "value" not in score:
            raise AdapterError(f"{src}:{at}.value: missing; an Inspect score has a value")
        history = seq(score.get("history"))
        original = score["value"]
        edits: list[tuple[str, Any, str | None]] = []
        current = None
        for edit in history:
            if not isinstance(edit, dict):
                continue
            value = edit.get("value", "UNCHANGED")
            provenance = edit.get("provenance")
            if provenance is None:
                if value != "UNCHANGED":
                    original = value  # the scorer's own value, before any person's edit
                current = original
                continue
            if value != "UNCHANGED":
                current = value
            author = provenance.get("author") if isinstance(provenance, dict) else None
            if not isinstance(author, str) or not author:
                out.no_home["a score edit naming no author: not imported as a person's score"] += 1
                continue
            reason = provenance.get("reason") if isinstance(provenance.get("reason"), str) else None
            edits.append((author, current if current is not None else original, reason or None))
        for dim, value in _values(scorer, original, at, src, out, templates).items():
            entry: dict[str, Any] = {"score": value}
            if isinstance(score.get("explanation"), str) and score["explanation"]:
                entry["rationale"] = score["explanation"]
            judge[dim] = entry
        for author, value, reason in edits:  # the latest edit by each person stands
            for dim, num in _values(scorer, value, f"{at}.history", src, out, templates).items():
                people.setdefault(author, {})[dim] = {"score": num, **({"reason": reason} if reason else {})}
        if isinstance(score.get("answer"), str) and score["answer"]:
            answers[scorer] = score["answer"]
    if judge:
        record["judge"] = {"model": "inspect", "scores": judge}
    if people:
        record["human"] = [{"reviewer": who, "scores": s} for who, s in people.items()]
    if answers:
        record["metadata"]["answers"] = answers


def _values(scorer: str, value: Any, at: str, src: str, out: Converted,
            templates: dict[str, str]) -> dict[str, float]:
    """A score's value as dimension → number (one per key of a value of several keys)."""
    if isinstance(value, dict):
        found: dict[str, float] = {}
        for key, part in value.items():
            if part is None:
                continue
            found.update(_values(f"{scorer}_{key}", part, f"{at}.{key}", src, out, templates))
        return found
    if isinstance(value, list):
        out.no_home[f"a list-valued score ({scorer}): not imported"] += 1
        return {}
    dim_id = slug(scorer.rsplit("/", 1)[-1])
    dim = out.dimensions.get(dim_id)
    if dim is None:
        short = scorer.rsplit("/", 1)[-1]
        template = templates.get(short)
        dim = out.dimensions[dim_id] = DraftDimension(
            dim_id, short, prompt=template, origin=f"Inspect scorer {short!r}",
            description=f"Inspect scorer {short!r}: a model graded the output with the template in the prompt"
            if template else None)
    if isinstance(value, bool):
        num = 1.0 if value else 0.0
        dim.labels.update({0.0: "false", 1.0: "true"})
    elif isinstance(value, str):
        if value.strip().upper() in LETTERS:
            num = LETTERS[value.strip().upper()]
            dim.labels[num] = LETTER_LABELS[num]
            dim.labels.setdefault(0.0, "I")
            dim.labels.setdefault(1.0, "C")
        elif value.strip().lower() in WORDS:
            num = WORDS[value.strip().lower()]
            dim.labels.update({0.0: "no", 1.0: "yes"})
        else:
            parsed = _float(value)
            if parsed is None:
                raise AdapterError(f"{src}:{at}: {value[:40]!r} is not a value Inspect reads as a number "
                                   "(C, P, I, N, yes, no, true, false or a number)")
            num = parsed
    else:
        parsed = number(value)
        if parsed is None:
            raise AdapterError(f"{src}:{at}: {value!r} is not a finite number")
        num = parsed
    dim.saw(num)
    return {dim_id: num}


def _float(value: str) -> float | None:
    try:
        return number(float(value))
    except ValueError:
        return None


__all__ = ["convert", "is_eval_zip", "looks_like", "read"]
