"""YAML → validated :class:`~rubrics.schema.Rubric`, with ``FILE:LINE: rule: message`` errors.

:func:`load_rubric_file` and :func:`load_rubric_text` parse (see :mod:`rubrics.yamlsource`),
build the value objects checking types and keys here, then apply the save-time rules
(:mod:`rubrics.rules`) and set the content hash (sha256 of :func:`canonical_form`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml

from rubrics import rules
from rubrics.builder import Builder
from rubrics.errors import RubricError, raise_all
from rubrics.schema import (
    Rubric,
    Scale,
)
from rubrics.yamlsource import MAX_BYTES, parse_yaml


def load_rubric_text(text: str, source: str = "<string>") -> Rubric:
    """Parse, build and validate a rubric; raises :class:`RubricError` for a single problem and
    :class:`~rubrics.errors.RubricProblems` (every problem, one line each) for several."""
    located = parse_yaml(text, source)
    builder = Builder(located, source)
    try:
        rubric, index = builder.rubric()
    except RubricError as err:  # the top level is not even a mapping of known keys
        builder.record(err)
        raise_all(builder.problems)
        raise
    problems = builder.problems + rules.collect(rubric, located.line, builder.broken, index)
    raise_all(problems)
    return _with_hash(rubric)


def load_rubric_file(path: str | Path) -> Rubric:
    """Load a rubric file (see :func:`load_rubric_text`)."""
    return read_rubric_file(path)[0]


def read_rubric_file(path: str | Path) -> tuple[Rubric, str]:
    """The rubric and the exact text it was validated from: the file is read once, so what is
    stored (``rubric add``) is what was checked, even if the file changes meanwhile. At most
    1 MB is read (``/dev/zero`` or a growing file cannot exhaust memory)."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise RubricError(str(p), None, "unreadable", f"{exc.strerror or exc}; check the path") from None
    if len(raw) > MAX_BYTES:
        raise RubricError(str(p), None, "file-too-large", "a rubric file must be under 1 MB; this one is not")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise RubricError(str(p), line, "encoding", "the file is not valid UTF-8; save it as UTF-8") from None
    return load_rubric_text(text, str(p)), text


def canonical_form(rubric: Rubric) -> dict[str, Any]:
    """The rubric as plain data with fixed key order and no source path: what the hash covers."""
    import dataclasses

    data = dataclasses.asdict(rubric)
    for dim in data["dimensions"]:  # an undeclared level leaves the hash of older rubrics as it was
        if dim.get("level") is None:
            dim.pop("level", None)
    data.pop("content_hash", None)
    data.pop("source", None)
    # Keys added after rubrics were first hashed are left out at their defaults, so a rubric
    # that does not use them keeps the hash it was registered with.
    if data.get("headline") is None:
        data.pop("headline", None)
    if not data.get("safety_llm_check"):
        data.pop("safety_llm_check", None)
    if data.get("judge", {}).get("reply") == "structured":
        data["judge"].pop("reply")
    for dim in data.get("dimensions", []):
        for key, default in (("turn_aggregate", "mean"), ("role", None)):
            if dim.get(key) == default:
                dim.pop(key, None)
    if not data["review"].get("partial"):  # added later: rubrics without it keep their hash
        data["review"].pop("partial", None)
    canonical: dict[str, Any] = json.loads(json.dumps(data, sort_keys=True, default=str))
    return canonical


def _with_hash(rubric: Rubric) -> Rubric:
    import dataclasses

    blob = json.dumps(canonical_form(rubric), sort_keys=True, separators=(",", ":"))
    return dataclasses.replace(rubric, content_hash=hashlib.sha256(blob.encode()).hexdigest())


class NoAliasDumper(yaml.SafeDumper):
    """Writes repeated values out in full: rubric files may not contain aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def dump_yaml(data: Any) -> str:
    """YAML the loader accepts back (no aliases, keys in the order given)."""
    return yaml.dump(data, Dumper=NoAliasDumper, sort_keys=False, allow_unicode=True, width=100)


def dump_rubric(rubric: Rubric) -> str:
    """Canonical YAML for a rubric."""
    return dump_yaml(_to_yaml_data(rubric))


def _to_yaml_data(rubric: Rubric) -> dict[str, Any]:
    def scale(s: Scale) -> dict[str, Any]:
        d: dict[str, Any] = {"min": _num(s.min), "max": _num(s.max)}
        if s.levels is not None:
            d["levels"] = [_num(x) for x in s.levels]
        return d

    dims = []
    for dim in rubric.dimensions:
        d: dict[str, Any] = {"id": dim.id, "name": dim.name, "description": dim.description,
                             "method": dim.method, "weight": dim.weight, "threshold": _num(dim.threshold)}
        if dim.scale != rubric.scale:
            d["scale"] = scale(dim.scale)
        if dim.prompt:
            d["prompt"] = dim.prompt
        if dim.level is not None:
            d["level"] = dim.level
        if dim.choices:
            d["choices"] = {k: _num(v) for k, v in dim.choices.items()}
        d["anchors"] = [
            {**({"score": _num(a.low)} if a.low == a.high else {"range": [_num(a.low), _num(a.high)]}),
             "label": a.label, **({"description": a.description} if a.description else {})}
            for a in dim.anchors
        ]
        dims.append(d)
    return {"id": rubric.id, "version": rubric.version, "name": rubric.name, "owner": rubric.owner,
            "description": rubric.description, "scale": scale(rubric.scale), "dimensions": dims}


def _num(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x
