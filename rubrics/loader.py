"""YAML → validated :class:`~rubrics.schema.Rubric`, with ``FILE:LINE: rule: message`` errors.

:func:`load_rubric_file` and :func:`load_rubric_text` parse (see :mod:`rubrics.yamlsource`),
build the value objects checking types and keys here, then apply the save-time rules
(:mod:`rubrics.rules`) and set the content hash (sha256 of :func:`canonical_form`).
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from rubrics import rules
from rubrics.errors import RubricError
from rubrics.schema import (
    DEFAULT_BANDS,
    GATE_ALIASES,
    ROLES,
    TURN_AGGREGATES,
    Anchor,
    Band,
    Ceiling,
    DependsOn,
    Dimension,
    JudgeSettings,
    MetricLevel,
    ReviewSettings,
    Rubric,
    Scale,
)
from rubrics.yamlsource import Located, parse_yaml

TOP_KEYS = ("id", "version", "name", "owner", "description", "scale", "dimensions",
            "safety_gates", "safety_cap", "bands", "judge", "review", "headline")
DIM_KEYS = ("id", "name", "description", "method", "weight", "threshold", "scale", "anchors",
            "prompt", "rule", "choices", "ceiling", "depends_on", "metric_level", "samples",
            "judge_scale", "params", "use", "turn_aggregate")
#: ``metric_level`` as rubricate and FlexEval spell it (FlexEval: Turn, Message, Thread).
METRIC_LEVELS: dict[str, MetricLevel] = {"item": "item", "turn": "turn", "message": "turn", "conversation": "conversation",
                 "thread": "conversation"}


class _Builder:
    """Turns parsed YAML into value objects; the first problem raises with its line."""

    def __init__(self, located: Located, source: str) -> None:
        self.loc, self.source = located, source

    def fail(self, path: tuple[str | int, ...], rule: str, message: str) -> RubricError:
        return RubricError(self.source, self.loc.line(*path), rule, message)

    def mapping(self, value: Any, path: tuple[str | int, ...], allowed: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, "wrong-type", f"{_name(path)} must be a mapping of keys")
        for key in value:
            if key not in allowed:
                hint = difflib.get_close_matches(str(key), allowed, n=1)
                extra = f"; did you mean {hint[0]!r}?" if hint else f"; known keys: {', '.join(allowed)}"
                raise self.fail((*path, str(key)), "unknown-key", f"unknown key {key!r}{extra}")
        return value

    def text(self, d: Mapping[str, Any], key: str, path: tuple[str | int, ...], required: bool = False) -> str:
        value = d.get(key)
        if value is None:
            if required:
                raise self.fail(path, f"{key}-missing", f"{_name(path)} needs {key!r}")
            return ""
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail((*path, key), "wrong-type", f"{key!r} must be text")
        return str(value)

    def number(self, d: Mapping[str, Any], key: str, path: tuple[str | int, ...],
               default: float | None = None) -> float | None:
        value = d.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail((*path, key), "wrong-type", f"{key!r} must be a number, not {value!r}")
        if value != value or value in (float("inf"), float("-inf")):
            raise self.fail((*path, key), "wrong-type", f"{key!r} must be a finite number")
        return float(value)

    def scale(self, value: Any, path: tuple[str | int, ...]) -> Scale:
        d = self.mapping(value, path, ("min", "max", "levels"))
        lo, hi = self.number(d, "min", path), self.number(d, "max", path)
        if lo is None or hi is None:
            raise self.fail(path, "scale", "a scale needs both min and max")
        if hi <= lo:
            raise self.fail(path, "scale", f"scale max ({hi:g}) must be above min ({lo:g})")
        levels = d.get("levels")
        if levels is not None:
            if not isinstance(levels, list) or not levels or not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) for x in levels
            ):
                raise self.fail((*path, "levels"), "wrong-type", "levels must be a list of numbers")
            lv = tuple(sorted(float(x) for x in levels))
            if lv[0] != lo or lv[-1] != hi or len(set(lv)) != len(lv):
                raise self.fail((*path, "levels"), "scale",
                                "levels must be distinct and start at min and end at max")
            return Scale(lo, hi, lv)
        return Scale(lo, hi)

    def anchor(self, value: Any, path: tuple[str | int, ...]) -> Anchor:
        d = self.mapping(value, path, ("score", "range", "label", "description", "example"))
        if "score" in d and "range" in d:
            raise self.fail(path, "anchor-shape", "an anchor has either score or range, not both")
        if "range" in d:
            r = d["range"]
            if (not isinstance(r, list) or len(r) != 2
                    or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in r)):
                raise self.fail((*path, "range"), "wrong-type", "range must be [low, high]")
            low, high = float(r[0]), float(r[1])
            if high < low:
                raise self.fail((*path, "range"), "anchor-shape", "range must be [low, high] with low ≤ high")
        else:
            s = self.number(d, "score", path)
            if s is None:
                raise self.fail(path, "anchor-shape", "an anchor needs score: N or range: [low, high]")
            low = high = s
        return Anchor(low, high, self.text(d, "label", path, required=True),
                      self.text(d, "description", path), d.get("example"))

    def use(self, d: dict[str, Any], path: tuple[str | int, ...], default_scale: Scale) -> dict[str, Any]:
        """A ``use: REF`` dimension: the reference dimension's keys under the ones given here."""
        from rubrics.catalogue import BY_ID, inherited

        ref = d["use"]
        if not isinstance(ref, str) or ref not in BY_ID:
            raise self.fail((*path, "use"), "unknown-dimension",
                            f"use: {ref!r} is not a reference dimension; known: {', '.join(BY_ID)} "
                            "(rubricate rubric dimensions lists them)")
        scale = self.scale(d["scale"], (*path, "scale")) if "scale" in d else default_scale
        try:
            base = inherited(ref, scale)
        except ValueError as exc:
            raise self.fail((*path, "use"), "unknown-dimension", f"use: {ref}: {exc}") from None
        return {**base, **{k: v for k, v in d.items() if k != "use"}}

    def depends(self, value: Any, path: tuple[str | int, ...]) -> tuple[DependsOn | None, str | None]:
        """``depends_on``: one condition or a list (FlexEval writes a list); each is a dimension
        condition ``{dimension, min?, max?}`` or a role condition ``{role: R}`` (also FlexEval's
        ``{name: is_role, kwargs: {role: R}}``)."""
        conds = value if isinstance(value, list) else [value]
        dep: DependsOn | None = None
        role: str | None = None
        for j, cond in enumerate(conds):
            cpath = (*path, j) if isinstance(value, list) else path
            c = self.mapping(cond, cpath, ("dimension", "min", "max", "role", "name", "type", "kwargs",
                                           "metric_name", "metric_min_value", "metric_max_value"))
            kwargs = c.get("kwargs") or {}
            if c.get("name") == "is_role" or "role" in c:
                r = c.get("role", kwargs.get("role") if isinstance(kwargs, dict) else None)
                if r not in ROLES:
                    raise self.fail(cpath, "depends-on-role", f"a role condition names one of {', '.join(ROLES)}")
                if role is not None:
                    raise self.fail(cpath, "depends-on-role", "one role condition per dimension")
                role = str(r)
                continue
            name = c.get("dimension", c.get("name"))
            if not isinstance(name, str) or not name:
                raise self.fail(cpath, "dimension-missing", "a depends_on condition needs a dimension (or a role)")
            if dep is not None:
                raise self.fail(cpath, "depends-on-unknown",
                                "one dimension condition per dimension; chain them through depends_on")
            lo = c.get("min", c.get("metric_min_value"))
            hi = c.get("max", c.get("metric_max_value"))
            for key, v in (("min", lo), ("max", hi)):
                if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                    raise self.fail(cpath, "wrong-type", f"depends_on {key} must be a number")
            dep = DependsOn(name, None if lo is None else float(lo), None if hi is None else float(hi))
        return dep, role

    def dimension(self, value: Any, i: int, default_scale: Scale) -> Dimension:
        path: tuple[str | int, ...] = ("dimensions", i)
        d = self.mapping(value, path, DIM_KEYS)
        if "use" in d:
            d = self.use(d, path, default_scale)
        did = self.text(d, "id", path, required=True)
        scale = self.scale(d["scale"], (*path, "scale")) if "scale" in d else default_scale
        anchors = d.get("anchors") or []
        if not isinstance(anchors, list):
            raise self.fail((*path, "anchors"), "wrong-type", "anchors must be a list")
        ceiling = d.get("ceiling") or []
        if not isinstance(ceiling, list):
            raise self.fail((*path, "ceiling"), "wrong-type", "ceiling must be a list of {below, cap}")
        ceilings = []
        for j, c in enumerate(ceiling):
            cd = self.mapping(c, (*path, "ceiling", j), ("below", "cap"))
            below, cap = self.number(cd, "below", path), self.number(cd, "cap", path)
            if below is None or cap is None:
                raise self.fail((*path, "ceiling", j), "ceiling", "a ceiling needs below and cap")
            ceilings.append(Ceiling(below, cap))
        dep, role = None, None
        if d.get("depends_on") is not None:
            dep, role = self.depends(d["depends_on"], (*path, "depends_on"))
        for key in ("rule", "params", "choices"):
            if d.get(key) is not None and not isinstance(d[key], dict):
                raise self.fail((*path, key), "wrong-type", f"{key} must be a mapping")
        choices = None
        if d.get("choices") is not None:
            choices = {}
            for k, v in d["choices"].items():
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise self.fail((*path, "choices", str(k)), "wrong-type", "a choice's score must be a number")
                choices[str(k)] = float(v)
        samples = d.get("samples", 1)
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise self.fail((*path, "samples"), "wrong-type", "samples must be a whole number ≥ 1")
        level = METRIC_LEVELS.get(str(d.get("metric_level", "item")).lower())
        if level is None:
            raise self.fail((*path, "metric_level"), "wrong-type",
                            "metric_level is item, turn or conversation (FlexEval's Turn, Message and "
                            f"Thread are read as turn, turn and conversation), not {d['metric_level']!r}")
        agg = d.get("turn_aggregate", "mean")
        if agg not in TURN_AGGREGATES:
            raise self.fail((*path, "turn_aggregate"), "wrong-type",
                            f"turn_aggregate is one of {', '.join(TURN_AGGREGATES)}")
        threshold = self.number(d, "threshold", path)
        return Dimension(
            id=did, name=self.text(d, "name", path) or did.replace("_", " ").capitalize(),
            description=self.text(d, "description", path), method=self.text(d, "method", path),
            weight=self.number(d, "weight", path, 0.0) or 0.0,
            threshold=threshold if threshold is not None else float("nan"),
            scale=scale, anchors=tuple(self.anchor(a, (*path, "anchors", j)) for j, a in enumerate(anchors)),
            prompt=self.text(d, "prompt", path) or None, rule=d.get("rule"), choices=choices,
            ceiling=tuple(ceilings), depends_on=dep, metric_level=level, samples=samples,
            turn_aggregate=agg, role=role,
            judge_scale=self.scale(d["judge_scale"], (*path, "judge_scale")) if d.get("judge_scale") else None,
            params=d.get("params") or {},
        )

    def rubric(self) -> Rubric:
        top = self.mapping(self.loc.data, (), TOP_KEYS)
        rid = self.text(top, "id", (), required=True)
        version = self.text(top, "version", (), required=True)
        scale = self.scale(top["scale"], ("scale",)) if "scale" in top else Scale(1, 10)
        dims = top.get("dimensions")
        if not isinstance(dims, list) or not dims:
            raise self.fail(("dimensions",), "dimensions-missing", "a rubric needs a list of dimensions")
        gates = top.get("safety_gates") or []
        if not isinstance(gates, list) or not all(isinstance(g, str) for g in gates):
            raise self.fail(("safety_gates",), "wrong-type", "safety_gates must be a list of gate names")
        bands = top.get("bands")
        band_objs = DEFAULT_BANDS
        if bands is not None:
            if not isinstance(bands, list) or not bands:
                raise self.fail(("bands",), "wrong-type", "bands must be a list of {min, label}")
            band_objs = tuple(
                Band(self.number(b, "min", ("bands", j), 0.0) or 0.0,
                     self.text(b, "label", ("bands", j), required=True),
                     self.text(b, "color", ("bands", j)))
                for j, b in enumerate(self.mapping(x, ("bands", j), ("min", "label", "color"))
                                      for j, x in enumerate(bands))
            )
        judge = self.mapping(top.get("judge") or {}, ("judge",),
                             ("model", "mode", "temperature", "panel_aggregate", "correction_examples",
                              "reply"))
        review = self.mapping(top.get("review") or {}, ("review",),
                              ("reason_margin", "safety_signoffs", "pairwise"))
        return Rubric(
            id=rid, version=version, name=self.text(top, "name", ()) or rid,
            owner=self.text(top, "owner", ()), description=self.text(top, "description", ()),
            scale=scale, dimensions=tuple(self.dimension(x, i, scale) for i, x in enumerate(dims)),
            safety_gates=tuple(GATE_ALIASES.get(g, g) for g in gates),
            safety_cap=self.number(top, "safety_cap", (), 0.0) or 0.0, bands=band_objs,
            judge=JudgeSettings(
                model=self.text(judge, "model", ("judge",)) or None,
                mode=judge.get("mode", "per_dimension"),
                temperature=self.number(judge, "temperature", ("judge",), 0.0) or 0.0,
                panel_aggregate=judge.get("panel_aggregate", "mean"),
                correction_examples=int(judge.get("correction_examples", 0)),
                reply=judge.get("reply", "structured"),
            ),
            headline=self.text(top, "headline", ()) or None,
            review=ReviewSettings(
                reason_margin=self.number(review, "reason_margin", ("review",), 2.0) or 0.0,
                safety_signoffs=int(review.get("safety_signoffs", 1)),
                pairwise=bool(review.get("pairwise", False)),
            ),
            source=self.source,
        )


def _name(path: tuple[str | int, ...]) -> str:
    return ".".join(str(p) for p in path) or "the rubric"


def load_rubric_text(text: str, source: str = "<string>") -> Rubric:
    """Parse, build and validate a rubric; raises :class:`RubricError` on the first problem."""
    located = parse_yaml(text, source)
    rubric = _Builder(located, source).rubric()
    rules.check(rubric, located.line)
    return _with_hash(rubric)


def load_rubric_file(path: str | Path) -> Rubric:
    """Load a rubric file (see :func:`load_rubric_text`)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > 1_000_000:
            raise RubricError(str(p), None, "file-too-large",
                              "a rubric file must be under 1 MB; this one is not")
        raw = p.read_bytes()
    except OSError as exc:
        raise RubricError(str(p), None, "unreadable", f"{exc.strerror or exc}; check the path") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise RubricError(str(p), line, "encoding", "the file is not valid UTF-8; save it as UTF-8") from None
    return load_rubric_text(text, str(p))


def canonical_form(rubric: Rubric) -> dict[str, Any]:
    """The rubric as plain data with fixed key order and no source path: what the hash covers."""
    import dataclasses

    data = dataclasses.asdict(rubric)
    data.pop("content_hash", None)
    data.pop("source", None)
    # Keys added after rubrics were first hashed are left out at their defaults, so a rubric
    # that does not use them keeps the hash it was registered with.
    for key, default in (("headline", None),):
        if data.get(key) == default:
            data.pop(key, None)
    if data.get("judge", {}).get("reply") == "structured":
        data["judge"].pop("reply")
    for dim in data.get("dimensions", []):
        for key, default in (("turn_aggregate", "mean"), ("role", None)):
            if dim.get(key) == default:
                dim.pop(key, None)
    return json.loads(json.dumps(data, sort_keys=True, default=str))  # type: ignore[no-any-return]


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
