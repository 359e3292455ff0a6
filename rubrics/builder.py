"""Parsed rubric YAML → value objects, with every type and key problem collected (not just the first).

:class:`Builder` checks what the schema's types need (a mapping where a mapping belongs, a number
where a number belongs, known keys, whole numbers and yes/no flags that are really that) and
records each problem with its line; the save-time rules (:mod:`rubrics.rules`) run afterwards on
what could be built.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from rubrics.errors import RubricError
from rubrics.rulecheck import regex_problem
from rubrics.rules import MAX_DIMENSIONS
from rubrics.schema import (
    DEFAULT_BANDS,
    GATE_ALIASES,
    MEASUREMENT_LEVELS,
    ROLES,
    TURN_AGGREGATES,
    Anchor,
    Band,
    Ceiling,
    DependsOn,
    Dimension,
    JudgeSettings,
    MeasurementLevel,
    MetricLevel,
    PatternCount,
    ReviewSettings,
    Rubric,
    Scale,
    ToolCallCount,
)
from rubrics.yamlsource import Located

TOP_KEYS = ("id", "version", "name", "owner", "description", "scale", "dimensions",
            "safety_gates", "safety_cap", "bands", "judge", "review", "headline", "safety_llm_check")
#: A scale may have at most this many levels (a 0–100 scale has 101).
MAX_LEVELS = 101
#: Judge samples per dimension, correction examples per prompt, safety sign-offs: sane ceilings.
MAX_SAMPLES = 50
MAX_CORRECTION_EXAMPLES = 50
MAX_SIGNOFFS = 10
DIM_KEYS = ("id", "name", "description", "method", "weight", "threshold", "scale", "anchors",
            "prompt", "rule", "choices", "ceiling", "depends_on", "metric_level", "samples",
            "judge_scale", "params", "level", "use", "turn_aggregate")
#: FlexEval's function metrics that count tool calls, read as tool-call count conditions.
TOOL_CALL_METRICS = ("count_tool_calls", "count_tool_calls_by_name")

#: ``metric_level`` as rubricate and FlexEval spell it (FlexEval: Turn, Message, Thread).
METRIC_LEVELS: dict[str, MetricLevel] = {"item": "item", "turn": "turn", "message": "turn",
                                         "tool_call": "tool_call", "toolcall": "tool_call",
                                         "conversation": "conversation", "thread": "conversation"}


class Builder:
    """Turns parsed YAML into value objects, collecting every problem with its line.

    A part that cannot be built (a key of the wrong type, a dimension with an unknown key) is
    recorded in :attr:`problems` and its key path in :attr:`broken`; the save-time rules then skip
    what depends on a broken part, so one mistake is reported once, not as a cascade.
    """

    def __init__(self, located: Located, source: str) -> None:
        self.loc, self.source = located, source
        self.problems: list[RubricError] = list(located.problems)
        self.broken: set[tuple[str | int, ...]] = set()

    def fail(self, path: tuple[str | int, ...], rule: str, message: str,
             key: tuple[str | int, ...] | None = None) -> RubricError:
        err = RubricError(self.source, self.loc.line(*path), rule, message)
        err.keypath = key if key is not None else path
        return err

    def record(self, err: RubricError) -> None:
        """Keep a problem and mark its key path broken."""
        self.problems.append(err)
        self.broken.add(getattr(err, "keypath", ()))

    def guard(self, build: Callable[[], Any], default: Any) -> Any:
        """``build()``, or ``default`` with the problem recorded (typed loosely: the callers
        build every field type there is)."""
        try:
            return build()
        except RubricError as err:
            self.record(err)
            return default

    def mapping(self, value: Any, path: tuple[str | int, ...], allowed: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, "wrong-type", f"{_name(path)} must be a mapping of keys")
        unknown = [k for k in value if k not in allowed]
        for key in unknown[1:]:  # every unknown key is reported; the first one stops the part
            self.problems.append(self.fail((*path, str(key)), "unknown-key", _unknown(key, allowed)))
        if unknown:
            raise self.fail((*path, str(unknown[0])), "unknown-key", _unknown(unknown[0], allowed), key=path)
        return value

    def text(self, d: Mapping[str, Any], key: str, path: tuple[str | int, ...], required: bool = False) -> str:
        value = d.get(key)
        if value is None:
            if required:
                raise self.fail(path, f"{key}-missing", f"{_name(path)} needs {key!r}", key=(*path, key))
            return ""
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail((*path, key), "wrong-type", f"{key!r} must be text, not {_kind(value)}")
        return str(value)

    def number(self, d: Mapping[str, Any], key: str, path: tuple[str | int, ...],
               default: float | None = None, lo: float | None = None) -> float | None:
        """A finite number (``default`` when absent); with ``lo``, at least ``lo``."""
        value = d.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail((*path, key), "wrong-type", f"{key!r} must be a number, not {_shown(value)}")
        if value != value or value in (float("inf"), float("-inf")):
            raise self.fail((*path, key), "wrong-type", f"{key!r} must be a finite number")
        if lo is not None and value < lo:
            raise self.fail((*path, key), "wrong-type", f"{key!r} must be {lo:g} or more, not {value:g}")
        return float(value)

    def whole(self, d: Mapping[str, Any], key: str, path: tuple[str | int, ...], default: int,
              lo: int, hi: int) -> int:
        """A whole number in ``[lo, hi]`` (``many``, ``2.5`` and ``true`` are refused)."""
        value = d.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail((*path, key), "wrong-type",
                            f"{key!r} must be a whole number from {lo} to {hi}, not {_shown(value)}")
        if not lo <= value <= hi:
            raise self.fail((*path, key), "wrong-type", f"{key!r} must be from {lo} to {hi}, not {value}")
        return value

    def flag(self, d: Mapping[str, Any], key: str, path: tuple[str | int, ...], default: bool) -> bool:
        """true or false; a quoted 'no' is text, and text is not a yes/no answer."""
        value = d.get(key, default)
        if not isinstance(value, bool):
            raise self.fail((*path, key), "wrong-type", f"{key!r} must be true or false, not {_shown(value)}")
        return value

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
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in levels
            ):
                raise self.fail((*path, "levels"), "wrong-type", "levels must be a list of numbers")
            lv = tuple(sorted(float(x) for x in levels))
            if lv[0] != lo or lv[-1] != hi or len(set(lv)) != len(lv):
                raise self.fail((*path, "levels"), "scale",
                                "levels must be distinct and start at min and end at max")
            if len(lv) > MAX_LEVELS:
                raise self.fail((*path, "levels"), "scale",
                                f"{len(lv)} levels; a scale may have at most {MAX_LEVELS}")
            return Scale(lo, hi, lv)
        if int(hi) - int(lo) + 1 > MAX_LEVELS:
            raise self.fail(path, "scale", f"the scale {lo:g}–{hi:g} has {int(hi) - int(lo) + 1:.3g} "
                            f"levels; at most {MAX_LEVELS} (people cannot tell more apart)")
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
                      self.text(d, "description", path), self.text(d, "example", path) or None)

    def use(self, d: dict[str, Any], path: tuple[str | int, ...], default_scale: Scale) -> dict[str, Any]:
        """A ``use: REF`` dimension: the reference dimension's keys under the ones given here."""
        from rubrics.catalogue import BY_ID, inherited

        ref = d["use"]
        if not isinstance(ref, str) or ref not in BY_ID:
            raise self.fail((*path, "use"), "unknown-dimension",
                            f"use: {_shown(ref)} is not a reference dimension; known: {', '.join(BY_ID)} "
                            "(rubricate rubric dimensions lists them)")
        scale = self.scale(d["scale"], (*path, "scale")) if "scale" in d else default_scale
        try:
            base = inherited(ref, scale)
        except ValueError as exc:
            raise self.fail((*path, "use"), "unknown-dimension", f"use: {ref}: {exc}") from None
        return {**base, **{k: v for k, v in d.items() if k != "use"}}

    def dimension(self, value: Any, i: int, default_scale: Scale) -> Dimension:
        path: tuple[str | int, ...] = ("dimensions", i)
        d = self.mapping(value, path, DIM_KEYS)
        if "use" in d:
            d = self.use(d, path, default_scale)
        before = len(self.problems)
        did = self.guard(lambda: self.text(d, "id", path, required=True), "")
        scale = self.guard(lambda: self.scale(d["scale"], (*path, "scale")), default_scale) \
            if "scale" in d else default_scale
        anchors = d.get("anchors") or []
        if not isinstance(anchors, list):
            self.record(self.fail((*path, "anchors"), "wrong-type", "anchors must be a list"))
            anchors = []
        built = tuple(self.guard(partial(self.anchor, a, (*path, "anchors", j)), None)
                      for j, a in enumerate(anchors))
        ceilings = self.guard(lambda: self.ceilings(d, path), ())
        dep, role, tools, matches = self.guard(lambda: self.depends_on(d, path), (None, None, (), ()))
        for key in ("rule", "params", "choices"):
            if d.get(key) is not None and not isinstance(d[key], dict):
                self.record(self.fail((*path, key), "wrong-type", f"{key} must be a mapping"))
        choices = self.guard(lambda: self.choices(d, path), None)
        samples = self.guard(lambda: self.whole(d, "samples", path, 1, 1, MAX_SAMPLES), 1)
        level = METRIC_LEVELS.get(str(d.get("metric_level", "item")).lower())
        if level is None:
            self.record(self.fail((*path, "metric_level"), "wrong-type",
                                  "metric_level is item, turn, tool_call or conversation (FlexEval's Turn, "
                                  "Message, ToolCall and Thread are read as turn, turn, tool_call and "
                                  f"conversation), not {_shown(d['metric_level'])}"))
            level = "item"
        aggregate = d.get("turn_aggregate", "mean")
        if aggregate not in TURN_AGGREGATES:
            self.record(self.fail((*path, "turn_aggregate"), "wrong-type",
                                  f"turn_aggregate is one of {', '.join(TURN_AGGREGATES)}"))
            aggregate = "mean"
        threshold = self.guard(lambda: self.number(d, "threshold", path), 0.0)
        measured = self.guard(lambda: self.measurement_level(d, path), None)
        judge_scale = self.guard(lambda: self.scale(d["judge_scale"], (*path, "judge_scale"))
                                 if d.get("judge_scale") else None, None)
        name = self.guard(lambda: self.text(d, "name", path), "")
        description = self.guard(lambda: self.text(d, "description", path), "")
        method = self.guard(lambda: self.text(d, "method", path), "")
        weight = self.guard(lambda: self.number(d, "weight", path, 0.0), 0.0) or 0.0
        prompt = self.guard(lambda: self.text(d, "prompt", path), "")
        if len(self.problems) > before:
            raise _Broken()
        return Dimension(
            id=did, name=name or did.replace("_", " ").capitalize(),
            description=description, method=method, weight=weight,
            threshold=threshold if threshold is not None else float("nan"),
            scale=scale, anchors=tuple(a for a in built if a is not None),
            prompt=prompt or None, rule=d.get("rule"), choices=choices,
            ceiling=ceilings, depends_on=dep, metric_level=level, samples=samples,
            turn_aggregate=aggregate, role=role, tool_calls=tools, matches=matches,
            judge_scale=judge_scale, params=d.get("params") or {}, level=measured,
        )

    def measurement_level(self, d: Mapping[str, Any], path: tuple[str | int, ...]) -> MeasurementLevel | None:
        value = d.get("level")
        if value is None:
            return None
        if value == "categorical":
            raise self.fail((*path, "level"), "level",
                            "level 'categorical' is not a measurement level; write level: nominal for "
                            "unordered categories (ordinal if they have an order)")
        if value not in MEASUREMENT_LEVELS:
            raise self.fail((*path, "level"), "level",
                            f"level {value!r} is unknown; use one of {', '.join(MEASUREMENT_LEVELS)}")
        return next(lv for lv in MEASUREMENT_LEVELS if lv == value)  # the level, typed

    def ceilings(self, d: Mapping[str, Any], path: tuple[str | int, ...]) -> tuple[Ceiling, ...]:
        ceiling = d.get("ceiling") or []
        if not isinstance(ceiling, list):
            raise self.fail((*path, "ceiling"), "wrong-type", "ceiling must be a list of {below, cap}")
        out = []
        for j, c in enumerate(ceiling):
            cd = self.mapping(c, (*path, "ceiling", j), ("below", "cap"))
            below, cap = self.number(cd, "below", path), self.number(cd, "cap", path)
            if below is None or cap is None:
                raise self.fail((*path, "ceiling", j), "ceiling", "a ceiling needs below and cap")
            out.append(Ceiling(below, cap))
        return tuple(out)

    def depends_on(self, d: Mapping[str, Any], path: tuple[str | int, ...]
                   ) -> tuple[DependsOn | None, str | None, tuple[ToolCallCount, ...], tuple[PatternCount, ...]]:
        """``depends_on``: one condition or a list (FlexEval writes a list); each is a dimension
        condition ``{dimension, min?, max?}``, a role condition ``{role: R}`` (also FlexEval's
        ``{name: is_role, kwargs: {role: R}}``, and ``metric_min_value``/``metric_max_value``) or
        a tool-call count ``{tool_calls: NAME or "*", min?, max?}`` (FlexEval's
        ``count_tool_calls``, and ``count_tool_calls_by_name`` with the tool in ``metric_name``) or a
        pattern count ``{matches: PATTERN, min?, max?}`` (``count_of_parts_matching_regex``)."""
        value = d.get("depends_on")
        if value is None:
            return None, None, (), ()
        path = (*path, "depends_on")
        conds = value if isinstance(value, list) else [value]
        dep: DependsOn | None = None
        role: str | None = None
        tools: list[ToolCallCount] = []
        matches: list[PatternCount] = []
        for j, cond in enumerate(conds):
            cpath = (*path, j) if isinstance(value, list) else path
            c = self.mapping(cond, cpath, ("dimension", "min", "max", "role", "name", "type", "kwargs",
                                           "metric_name", "metric_min_value", "metric_max_value", "tool_calls",
                                           "matches"))
            kwargs: dict[str, Any] = c["kwargs"] if isinstance(c.get("kwargs"), dict) else {}
            if c.get("name") == "is_role" or "role" in c:
                r = c.get("role", kwargs.get("role"))
                if r not in ROLES:
                    raise self.fail(cpath, "depends-on-role", f"a role condition names one of {', '.join(ROLES)}")
                if role is not None:
                    raise self.fail(cpath, "depends-on-role", "one role condition per dimension")
                role = str(r)
                continue
            lo, hi = self.bounds(c, cpath)
            if "tool_calls" in c or c.get("name") in TOOL_CALL_METRICS:
                tools.append(ToolCallCount(self.tool_name(c, cpath), lo, hi))
                continue
            if "matches" in c or c.get("name") == "count_of_parts_matching_regex":
                matches.append(PatternCount(self.pattern(c, kwargs, cpath), lo, hi))
                continue
            name = c.get("dimension", c.get("name"))
            if not isinstance(name, str) or not name:
                raise self.fail(cpath, "dimension-missing", "a depends_on condition needs a dimension (or a role)")
            if dep is not None:
                raise self.fail(cpath, "depends-on-unknown",
                                "one dimension condition per dimension; chain them through depends_on")
            dep = DependsOn(name, lo, hi)
        return dep, role, tuple(tools), tuple(matches)

    def pattern(self, c: Mapping[str, Any], kwargs: Mapping[str, Any], cpath: tuple[str | int, ...]) -> str:
        """A pattern-count condition's pattern (FlexEval: ``kwargs.expression``), checked as the
        deterministic method's patterns are: it compiles and cannot backtrack without end."""
        pattern = c["matches"] if "matches" in c else kwargs.get("expression")
        if not isinstance(pattern, str) or not pattern:
            raise self.fail(cpath, "depends-on-pattern", "a pattern condition needs its pattern (kwargs.expression)")
        problem = regex_problem(pattern)
        if problem is not None:
            raise self.fail(cpath, *problem)
        return pattern

    def bounds(self, c: Mapping[str, Any], cpath: tuple[str | int, ...]) -> tuple[float | None, float | None]:
        """A condition's ``min``/``max`` (FlexEval: ``metric_min_value``/``metric_max_value``)."""
        lo = c.get("min", c.get("metric_min_value"))
        hi = c.get("max", c.get("metric_max_value"))
        for key, v in (("min", lo), ("max", hi)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise self.fail(cpath, "wrong-type", f"depends_on {key} must be a number")
        return None if lo is None else float(lo), None if hi is None else float(hi)

    def tool_name(self, c: Mapping[str, Any], cpath: tuple[str | int, ...]) -> str | None:
        """The tool a tool-call count condition counts; None: every tool."""
        if "tool_calls" in c:
            name = c["tool_calls"]
        elif c.get("name") == "count_tool_calls_by_name":
            name = c.get("metric_name")
            if name is None:
                raise self.fail(cpath, "depends-on-tool", "count_tool_calls_by_name needs metric_name: the tool's name")
        else:
            name = "*"
        if not isinstance(name, str) or not name.strip():
            raise self.fail(cpath, "depends-on-tool", 'tool_calls names a tool, or "*" for every tool')
        return None if name == "*" else name

    def names(self, top: Mapping[str, Any], key: str) -> tuple[str, ...]:
        value = top.get(key) or []
        if not isinstance(value, list) or not all(isinstance(g, str) for g in value):
            raise self.fail((key,), "wrong-type", f"{key} must be a list of gate names")
        return tuple(GATE_ALIASES.get(g, g) for g in value)

    def choices(self, d: Mapping[str, Any], path: tuple[str | int, ...]) -> dict[str, float] | None:
        if not isinstance(d.get("choices"), dict):
            return None
        choices = {}
        for k, v in d["choices"].items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise self.fail((*path, "choices", str(k)), "wrong-type", "a choice's score must be a number")
            choices[str(k)] = float(v)
        return choices

    def bands(self, bands: Any) -> tuple[Band, ...]:
        if bands is None:
            return DEFAULT_BANDS
        if not isinstance(bands, list) or not bands:
            raise self.fail(("bands",), "wrong-type", "bands must be a list of {min, label}")
        out = []
        for j, x in enumerate(bands):
            b = self.mapping(x, ("bands", j), ("min", "label", "color"))
            out.append(Band(self.number(b, "min", ("bands", j), 0.0) or 0.0,
                            self.text(b, "label", ("bands", j), required=True),
                            self.text(b, "color", ("bands", j))))
        return tuple(out)

    def judge(self, top: Mapping[str, Any]) -> JudgeSettings:
        p: tuple[str | int, ...] = ("judge",)
        judge = self.mapping(top.get("judge") or {}, p,
                             ("model", "mode", "temperature", "panel_aggregate", "correction_examples",
                              "reply"))
        return JudgeSettings(
            model=self.guard(lambda: self.text(judge, "model", p), "") or None,
            mode=self.guard(lambda: self.text(judge, "mode", p), "") or "per_dimension",
            temperature=self.guard(lambda: self.number(judge, "temperature", p, 0.0, lo=0.0), 0.0) or 0.0,
            panel_aggregate=self.guard(lambda: self.text(judge, "panel_aggregate", p), "") or "mean",
            correction_examples=self.guard(
                lambda: self.whole(judge, "correction_examples", p, 0, 0, MAX_CORRECTION_EXAMPLES), 0),
            reply=self.guard(lambda: self.text(judge, "reply", p), "") or "structured",
        )

    def review(self, top: Mapping[str, Any]) -> ReviewSettings:
        p: tuple[str | int, ...] = ("review",)
        review = self.mapping(top.get("review") or {}, p, ("reason_margin", "safety_signoffs", "pairwise", "partial"))
        return ReviewSettings(
            reason_margin=self.guard(lambda: self.number(review, "reason_margin", p, 2.0, lo=0.0), 2.0) or 0.0,
            safety_signoffs=self.guard(lambda: self.whole(review, "safety_signoffs", p, 1, 1, MAX_SIGNOFFS), 1),
            pairwise=self.guard(lambda: self.flag(review, "pairwise", p, False), False),
            partial=self.guard(lambda: self.flag(review, "partial", p, False), False),
        )

    def rubric(self) -> tuple[Rubric, list[int]]:
        """The rubric built from what could be built, and the file index of each dimension kept."""
        top = self.mapping(self.loc.data, (), TOP_KEYS)
        rid = self.guard(lambda: self.text(top, "id", (), required=True), "")
        version = self.guard(lambda: self.text(top, "version", (), required=True), "")
        scale = self.guard(lambda: self.scale(top["scale"], ("scale",)), None) \
            if "scale" in top else Scale(1, 10)
        if scale is None:  # every dimension's anchors are measured against it: check them later
            self.broken.add(("dimensions",))
            scale = Scale(1, 10)
        dims = top.get("dimensions")
        if not isinstance(dims, list) or not dims:
            self.record(self.fail(("dimensions",), "dimensions-missing", "a rubric needs a list of dimensions"))
            dims = []
        if len(dims) > MAX_DIMENSIONS:  # said once here; building a thousand of them is waste
            self.record(self.fail(("dimensions",), "too-many-dimensions",
                                  f"{len(dims)} dimensions; at most {MAX_DIMENSIONS} "
                                  "(beyond that reviewers guess)"))
            dims = []
        kept: list[tuple[int, Dimension]] = []
        for i, x in enumerate(dims):
            try:
                kept.append((i, self.dimension(x, i, scale)))
            except _Broken:
                self.broken.add(("dimensions", i))
            except RubricError as err:
                self.record(err)
                self.broken.add(("dimensions", i))
        gates = top.get("safety_gates") or []
        if not isinstance(gates, list) or not all(isinstance(g, str) for g in gates):
            self.record(self.fail(("safety_gates",), "wrong-type", "safety_gates must be a list of gate names"))
            gates = []
        rubric = Rubric(
            id=rid, version=version, name=self.guard(lambda: self.text(top, "name", ()), "") or rid,
            owner=self.guard(lambda: self.text(top, "owner", ()), ""),
            description=self.guard(lambda: self.text(top, "description", ()), ""),
            scale=scale, dimensions=tuple(d for _, d in kept),
            safety_gates=tuple(GATE_ALIASES.get(g, g) for g in gates),
            safety_cap=self.guard(lambda: self.number(top, "safety_cap", (), 0.0), 0.0) or 0.0,
            safety_llm_check=self.guard(lambda: self.names(top, "safety_llm_check"), ()),
            bands=self.guard(lambda: self.bands(top.get("bands")), DEFAULT_BANDS),
            judge=self.guard(lambda: self.judge(top), JudgeSettings()),
            review=self.guard(lambda: self.review(top), ReviewSettings()),
            headline=self.guard(lambda: self.text(top, "headline", ()), "") or None,
            source=self.source,
        )
        return rubric, [i for i, _ in kept]


class _Broken(Exception):
    """A dimension whose problems are already recorded."""


def _unknown(key: Any, allowed: tuple[str, ...]) -> str:
    hint = difflib.get_close_matches(str(key), allowed, n=1)
    extra = f"; did you mean {hint[0]!r}?" if hint else f"; known keys: {', '.join(allowed)}"
    return f"unknown key {str(key)!r}{extra}"


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    return "a list" if isinstance(value, list) else type(value).__name__


def _shown(value: Any) -> str:
    """A short description of a value for a message (never a 100 kB repr)."""
    if isinstance(value, (dict, list)):
        return _kind(value)
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _name(path: tuple[str | int, ...]) -> str:
    return ".".join(str(p) for p in path) or "the rubric"

