"""Import FlexEval rubrics as canonical YAML: a rubric file (rubric name → ``prompt`` +
``choice_scores``), or an ``evals.yaml`` whose rubric metrics name rubrics in such files.

Each FlexEval rubric becomes one ``llm_judge`` dimension whose ``choices`` map the judge's
answer to a score; the scale runs from the lowest to the highest choice score, with the distinct
scores as its levels and one anchor per choice. Weights are shared equally. The judge answers as
FlexEval's prompts ask — reasoning, then the choice alone on the last line (``judge.reply:
last_line``). Rubrics are turn level, FlexEval's default; a rubric's ``notes`` begin its
description. A file of more than ten rubrics (a rubric's limit) is imported a pick at a time.

From an ``evals.yaml`` the eval's rubric metrics also give each dimension its ``metric_level``
(FlexEval's ``Turn``/``Message``/``ToolCall``/``Thread``) and ``depends_on``: ``is_role`` becomes a role
condition, a dependency on another rubric of the eval a dimension condition
(``metric_min_value``/``metric_max_value``), ``count_tool_calls`` and ``count_tool_calls_by_name``
(the tool in ``metric_name``) a tool-call count condition, counted from the conversation's
``tool_calls``, and ``count_of_parts_matching_regex`` a pattern-count condition. A dependency on any other function metric cannot be expressed and is refused,
naming the line; with every eval of a file imported at once, that eval alone is refused. A rubric
whose prompt names ``{completion}`` needs its eval's ``do_completion: true`` and is item level
(the completion is the item's output, made before import). Every error names the source file and line, never a
line of the converted YAML.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rubrics.errors import RubricError, raise_all
from rubrics.loader import dump_yaml, load_rubric_text
from rubrics.rules import MAX_DIMENSIONS
from rubrics.yamlsource import Located, parse_yaml

#: FlexEval's metric levels rubricate can score, and what they become.
LEVELS = {"turn": "turn", "message": "turn", "toolcall": "tool_call", "thread": "conversation"}

#: FlexEval function metrics that call a network service to compute their value.
NETWORK_METRICS = {"openai_moderation_api": "OpenAI's moderation API"}


@dataclass
class _Origin:
    """Where one converted dimension came from, key by key, for error messages."""

    lines: dict[str, tuple[str, int | None]] = field(default_factory=dict)

    def at(self, key: str) -> tuple[str, int | None]:
        return self.lines.get(key) or self.lines["name"]


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "rubric"


def _rubrics(located: Located, source: str) -> dict[str, tuple[dict[str, Any], _Origin]]:
    raise_all(located.problems)  # duplicate keys, keys that are not text: never last-wins
    data = located.data
    if not isinstance(data, dict) or not data:
        raise RubricError(source, 1, "wrong-type", "a FlexEval file maps rubric names to {prompt, choice_scores}")
    out: dict[str, tuple[dict[str, Any], _Origin]] = {}
    for name, body in data.items():
        origin = _Origin({"name": (source, located.line(str(name))),
                          "prompt": (source, located.line(str(name), "prompt")),
                          "choices": (source, located.line(str(name), "choice_scores"))})
        line = located.line(str(name))
        if not isinstance(body, dict) or "prompt" not in body or not isinstance(body.get("choice_scores"), dict):
            raise RubricError(source, line, "flexeval-shape", f"{name!r} needs 'prompt' and a 'choice_scores' mapping")
        choices = body["choice_scores"]
        if not choices or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in choices.values()):
            raise RubricError(source, line, "flexeval-shape", f"{name!r}: every choice score must be a number")
        if len({float(v) for v in choices.values()}) < 2:
            raise RubricError(source, line, "flexeval-shape", f"{name!r}: choices need at least two different scores")
        out.setdefault(str(name), (body, origin))  # FlexEval: the first file naming a rubric wins
    return out


def _dimension(name: str, body: dict[str, Any], weight: float) -> dict[str, Any]:
    choices = body["choice_scores"]
    scores = sorted({float(v) for v in choices.values()})
    anchors = [{"score": s, "label": " / ".join(str(k) for k, v in choices.items() if float(v) == s)}
               for s in scores]
    said = f"FlexEval rubric {name!r}: the judge answers one of {', '.join(map(str, choices))}."
    notes = body.get("notes")
    return {
        "id": _slug(name), "name": name,
        # FlexEval's notes say what the rubric is for: kept as the start of the description.
        "description": f"{notes.strip()}\n\n{said}" if isinstance(notes, str) and notes.strip() else said,
        "method": "llm_judge", "weight": weight, "threshold": 50,
        "scale": {"min": scores[0], "max": scores[-1], "levels": scores},
        "metric_level": "turn",
        "prompt": str(body["prompt"]), "choices": {str(k): float(v) for k, v in choices.items()},
        "anchors": anchors,
    }


def _finish(dims: list[dict[str, Any]], origins: list[_Origin], source: str, rubric_id: str, owner: str) -> str:
    n = len(dims)
    for d in dims:
        d["weight"] = round(1.0 / n, 6)
    dims[0]["weight"] = round(1.0 - sum(d["weight"] for d in dims[1:]), 6)
    out = {"id": rubric_id, "version": "1.0.0", "name": f"Imported from {source}", "owner": owner,
           "description": "Converted from FlexEval by rubricate rubric import-flexeval.",
           "scale": dims[0]["scale"], "judge": {"reply": "last_line"}, "dimensions": dims}
    canonical = dump_yaml(out)
    try:
        load_rubric_text(canonical, f"{source} (converted)")  # refuse to write what would not load
    except RubricError as exc:
        raise _to_source(exc, canonical, origins, source) from None
    return canonical


def _to_source(exc: RubricError, canonical: str, origins: list[_Origin], source: str) -> RubricError:
    """The converted YAML's error, pointing at the line of the source file it came from."""
    located = parse_yaml(canonical, "converted")
    best: tuple[str | int, ...] | None = None
    for path, at in located.lines.items():
        if at == exc.line and len(path) >= 2 and path[0] == "dimensions" and (best is None or len(path) > len(best)):
            best = path
    if best is None:
        return RubricError(source, None, exc.rule, exc.message)
    key = str(best[2]) if len(best) > 2 else "name"
    key = {"choices": "choices", "scale": "choices", "anchors": "choices"}.get(key, key)
    file, line = origins[int(best[1])].at(key)
    return RubricError(file, line, exc.rule, exc.message + " (in the rubric converted from here)")


def import_flexeval(text: str, source: str, rubric_id: str = "flexeval-import", *, owner: str,
                    picks: Sequence[str] = ()) -> str:
    """Canonical YAML for a FlexEval rubric file (only the rubrics named in ``picks``, when
    given), owned by ``owner`` (FlexEval has no owner, and a rubric needs one); raises
    :class:`RubricError` on bad input."""
    rubrics = _rubrics(parse_yaml(text, source), source)
    missing = [p for p in picks if p not in rubrics]
    if missing:
        raise RubricError(source, 1, "flexeval-rubric",
                          f"no rubric {missing[0]!r} here; rubrics: {', '.join(rubrics)}")
    if picks:
        rubrics = {name: rubrics[name] for name in dict.fromkeys(picks)}
    elif len(rubrics) > MAX_DIMENSIONS:
        raise RubricError(source, 1, "flexeval-rubric",
                          f"{len(rubrics)} rubrics, and a rubric holds at most {MAX_DIMENSIONS} dimensions: "
                          f"pick them with --rubric NAME (repeat); rubrics: {', '.join(rubrics)}")
    for name, (body, origin) in rubrics.items():
        _completion_check(name, body, origin, None)
    dims = [_dimension(name, body, 0.0) for name, (body, _) in rubrics.items()]
    return _finish(dims, [origin for _, origin in rubrics.values()], source, rubric_id, owner)


def _completion_check(name: str, body: dict[str, Any], origin: _Origin, eval_name: str | None) -> bool:
    """Whether the rubric judges a completion (its prompt names ``{completion}``); refused
    unless its eval sets ``do_completion: true`` (``eval_name`` None: a plain rubric file, which
    has no eval to say so)."""
    if "{completion}" not in str(body["prompt"]):
        return False
    if eval_name is None:
        raise RubricError(*origin.at("prompt"), "flexeval-completion",
                          f"{name!r} judges a completion ({{completion}}), which only an eval with "
                          "do_completion: true makes; import it through that eval of an evals.yaml")
    return True



def is_evals_file(text: str, source: str) -> bool:
    """Whether a FlexEval YAML file is an ``evals.yaml`` (evals with ``metrics``) rather than a
    rubric file."""
    data = parse_yaml(text, source).data
    return isinstance(data, dict) and any(isinstance(v, dict) and "metrics" in v for v in data.values())


def _evals(text: str, source: str) -> tuple[Located, dict[str, Any], list[str]]:
    located = parse_yaml(text, source)
    raise_all(located.problems)
    evals = located.data
    if not isinstance(evals, dict):
        raise RubricError(source, 1, "wrong-type", "an evals.yaml maps eval names to {metrics: ...}")
    names = [str(k) for k, v in evals.items() if isinstance(v, dict) and "metrics" in v]
    return located, evals, names


def _known(rubric_files: Sequence[tuple[str, str]]) -> dict[str, tuple[dict[str, Any], _Origin]]:
    known: dict[str, tuple[dict[str, Any], _Origin]] = {}
    for rtext, rsource in rubric_files:
        for name, entry in _rubrics(parse_yaml(rtext, rsource), rsource).items():
            known.setdefault(name, entry)
    return known


def import_flexeval_evals(text: str, source: str, rubric_files: Sequence[tuple[str, str]],
                          eval_name: str | None = None, rubric_id: str = "flexeval-import", *,
                          owner: str) -> str:
    """Canonical YAML for one eval of an ``evals.yaml``, its rubrics read from ``rubric_files``
    (``(text, source)`` pairs, first file wins as in FlexEval)."""
    located, evals, names = _evals(text, source)
    if eval_name is None:
        if len(names) != 1:
            raise RubricError(source, 1, "flexeval-eval",
                              f"the file holds {len(names)} evals; pick one with --eval ({', '.join(names)}), "
                              "or import each with --out DIR")
        eval_name = names[0]
    if eval_name not in names:
        raise RubricError(source, 1, "flexeval-eval", f"no eval {eval_name!r} here; evals: {', '.join(names)}")
    return _one_eval(located, evals, source, _known(rubric_files), rubric_files, eval_name, rubric_id, owner)


def import_flexeval_each(text: str, source: str, rubric_files: Sequence[tuple[str, str]], *,
                         owner: str) -> list[tuple[str, str, str | RubricError]]:
    """Every eval of an ``evals.yaml``, each on its own: ``(eval name, rubric id, canonical
    YAML)`` for an eval that imports, ``(eval name, rubric id, error)`` for one that cannot (a rubric missing from the
    rubric files, a condition on a metric rubricate does not compute), so one bad eval never
    stops the others. Each rubric's id is its eval's name as a slug (two evals with one slug: the
    second is refused). A broken evals.yaml or rubric file as a whole still raises."""
    located, evals, names = _evals(text, source)
    known = _known(rubric_files)
    out: list[tuple[str, str, str | RubricError]] = []
    for name in names:
        rubric_id = _slug(name).replace("_", "-")
        try:
            if any(rid == rubric_id for _, rid, _ in out):
                raise RubricError(source, located.line(name), "flexeval-eval",
                                  f"eval {name!r} would be rubric {rubric_id!r}, like an eval before it; rename one")
            out.append((name, rubric_id, _one_eval(located, evals, source, known, rubric_files, name,
                                                   rubric_id, owner)))
        except RubricError as exc:
            out.append((name, rubric_id, exc))
    return out


def _one_eval(located: Located, evals: dict[str, Any], source: str,
              known: dict[str, tuple[dict[str, Any], _Origin]], rubric_files: Sequence[tuple[str, str]],
              eval_name: str, rubric_id: str, owner: str) -> str:
    metrics = evals[eval_name].get("metrics") or {}
    items = metrics.get("rubric") if isinstance(metrics, dict) else None
    if not isinstance(items, list) or not items:
        raise RubricError(source, located.line(eval_name, "metrics"), "flexeval-eval",
                          f"eval {eval_name!r} has no rubric metrics to import")
    rubric_names = {str(m.get("name")) for m in items if isinstance(m, dict)}
    dims: list[dict[str, Any]] = []
    origins: list[_Origin] = []
    for j, metric in enumerate(items):
        path = (eval_name, "metrics", "rubric", j)
        line = located.line(*path)
        if not isinstance(metric, dict) or not isinstance(metric.get("name"), str):
            raise RubricError(source, line, "flexeval-shape", "a rubric metric needs a name")
        name = metric["name"]
        if name not in known:
            where = ", ".join(s for _, s in rubric_files) or "no rubric file (pass --rubrics FILE)"
            raise RubricError(source, located.line(*path, "name"), "flexeval-rubric",
                              f"eval {eval_name!r}: rubric {name!r} is not in {where}")
        body, origin = known[name]
        completes = _completion_check(name, body, origin, eval_name)
        if completes and evals[eval_name].get("do_completion") is not True:
            raise RubricError(source, located.line(*path, "name"), "flexeval-completion",
                              f"eval {eval_name!r}: rubric {name!r} judges a completion ({{completion}}) "
                              "but the eval does not set do_completion: true")
        dim = _dimension(name, body, 0.0)
        origin = _Origin({**origin.lines, "metric_level": (source, located.line(*path, "metric_level")),
                          "depends_on": (source, located.line(*path, "depends_on"))})
        level = str(metric.get("metric_level", "Turn"))
        if level.lower() not in LEVELS:
            raise RubricError(source, located.line(*path, "metric_level"), "flexeval-level",
                              f"metric_level {level!r} cannot be scored here; use Turn, Message, ToolCall or Thread")
        # With do_completion, FlexEval judges the completion made for the conversation: in
        # rubricate that is the item's output, so the rubric is item level whatever the metric says.
        dim["metric_level"] = "item" if completes else LEVELS[level.lower()]
        conditions = _conditions(metric.get("depends_on") or [], rubric_names, source, located, (*path, "depends_on"))
        if conditions:
            dim["depends_on"] = conditions
        dims.append(dim)
        origins.append(origin)
    return _finish(dims, origins, source, rubric_id, owner)


def _conditions(deps: Any, rubric_names: set[str], source: str, located: Located,
                path: tuple[str | int, ...]) -> list[dict[str, Any]]:
    if not isinstance(deps, list):
        raise RubricError(source, located.line(*path), "flexeval-shape", "depends_on is a list of conditions")
    out: list[dict[str, Any]] = []
    for k, dep in enumerate(deps):
        line = located.line(*path, k)
        if not isinstance(dep, dict):
            raise RubricError(source, line, "flexeval-shape", "a depends_on entry is a mapping")
        name = dep.get("name")
        kwargs = dep.get("kwargs") or {}
        if name == "is_role":
            role = kwargs.get("role") if isinstance(kwargs, dict) else None
            if float(dep.get("metric_min_value", 1)) < 1 or dep.get("metric_max_value") is not None:
                raise RubricError(source, line, "flexeval-depends-on",
                                  "only 'is_role' true (metric_min_value 1) can be expressed; "
                                  "use the other role instead")
            out.append({"role": str(role)})
        elif name in rubric_names:
            cond: dict[str, Any] = {"dimension": _slug(str(name))}
            if dep.get("metric_min_value") is not None:
                cond["min"] = float(dep["metric_min_value"])
            if dep.get("metric_max_value") is not None:
                cond["max"] = float(dep["metric_max_value"])
            out.append(cond)
        elif dep.get("context_only") is True and name not in NETWORK_METRICS:
            raise RubricError(source, line, "flexeval-depends-on",
                              f"depends_on {name!r} with context_only: true counts the messages before the "
                              "turn, which rubricate's conditions never do (remove the condition)")
        elif name == "count_of_parts_matching_regex":
            expression = kwargs.get("expression") if isinstance(kwargs, dict) else None
            cond = {"matches": expression}
            for key, flex in (("min", "metric_min_value"), ("max", "metric_max_value")):
                if dep.get(flex) is not None:
                    cond[key] = dep[flex]  # the loader checks the pattern and the numbers
            out.append(cond)
        elif name in ("count_tool_calls", "count_tool_calls_by_name"):
            tool = dep.get("metric_name") if name == "count_tool_calls_by_name" else "*"
            if not isinstance(tool, str) or not tool.strip():
                raise RubricError(source, line, "flexeval-depends-on",
                                  "count_tool_calls_by_name needs metric_name: the tool whose calls are counted")
            cond = {"tool_calls": tool}
            for key, flex in (("min", "metric_min_value"), ("max", "metric_max_value")):
                if dep.get(flex) is not None:
                    cond[key] = dep[flex]  # the loader checks it is a number
            out.append(cond)
        elif name in NETWORK_METRICS:
            raise RubricError(source, line, "flexeval-depends-on",
                              f"depends_on {name!r} needs a network service ({NETWORK_METRICS[str(name)]}), "
                              "which rubricate never calls to decide a condition (remove the condition)")
        else:
            raise RubricError(source, line, "flexeval-depends-on",
                              f"depends_on {name!r} is a function metric rubricate does not compute; "
                              "only is_role, count_tool_calls(_by_name), count_of_parts_matching_regex and other "
                              "rubrics of this eval can be conditions "
                              "(remove it, or express it as a rubric)")
    return out
