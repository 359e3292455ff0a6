"""The save-time rules a rubric must keep (the wiki's six, FlexEval's fill words, and more).

:func:`collect` returns every broken rule, each with the line of the key that breaks it (one
problem per concern: a missing description is not also said to repeat the name); :func:`check`
raises them. Rule names are stable: tools grep for them, and docs/rubric-format.md lists them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence

from rubrics.errors import RubricError, raise_all
from rubrics.rulecheck import check_rule
from rubrics.schema import (
    GATE_ALIASES,
    GATES,
    JUDGE_REPLIES,
    METHODS,
    PAIR_METHODS,
    Dimension,
    Rubric,
)

LineOf = Callable[..., int | None]
KeyPath = tuple[str | int, ...]
Fail = Callable[[KeyPath, str, str], None]

MAX_DIMENSIONS = 10
WEIGHT_TOLERANCE = 0.001
#: Semantic versioning's MAJOR.MINOR.PATCH[-PRERELEASE], ASCII digits without leading zeros
#: (``1.01.0`` would sort beside ``1.1.0``); used with ``fullmatch``, so no trailing newline.
_NUMBER = r"(?:0|[1-9][0-9]*)"
_PRERELEASE = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
SEMVER = re.compile(rf"{_NUMBER}\.{_NUMBER}\.{_NUMBER}(?:-{_PRERELEASE}(?:\.{_PRERELEASE})*)?")
SLUG = re.compile(r"[a-z0-9][a-z0-9_.-]*")
#: Longest rubric id, dimension id and version: names shown in every table and export.
MAX_SLUG_CHARS = 64
MAX_VERSION_CHARS = 64
#: FlexEval: {conversation} includes {context}; {turn} and {completion} are alternatives.
EXCLUSIVE_FILL_WORDS = (("conversation", "context"), ("turn", "completion"), ("content", "completion"))


def check(rubric: Rubric, line_of: LineOf) -> None:
    """Raise every rule ``rubric`` breaks (see :func:`collect`)."""
    raise_all(collect(rubric, line_of))


def collect(rubric: Rubric, line_of: LineOf, broken: Iterable[KeyPath] = (),
            index: Sequence[int] | None = None) -> list[RubricError]:
    """Every rule ``rubric`` breaks. ``broken``: key paths the loader could not build (a rule
    touching one, or a part of one, is skipped: it was already reported); ``index``: the file
    position of each dimension, when the loader left broken ones out."""
    src = rubric.source
    skip = list(broken)
    positions = list(index) if index is not None else list(range(len(rubric.dimensions)))
    out: list[RubricError] = []

    def fail(path: KeyPath, rule: str, message: str) -> None:
        if path and path[0] == "dimensions" and len(path) > 1 and isinstance(path[1], int):
            path = ("dimensions", positions[path[1]], *path[2:])
        if any(_related(path, b) for b in skip):
            return
        out.append(RubricError(src, line_of(*path), rule, message))

    problem = id_problem(rubric.id, "rubric id")
    if problem:
        fail(("id",), "bad-id", problem)
    problem = version_problem(rubric.version)
    if problem:
        fail(("version",), "bad-version", problem)
    if not rubric.owner.strip():
        fail((), "owner-missing", "a rubric needs an owner (owner: the person or team who answers for it)")
    if len(rubric.dimensions) > MAX_DIMENSIONS:
        fail(("dimensions",), "too-many-dimensions",
             f"{len(rubric.dimensions)} dimensions; at most {MAX_DIMENSIONS} (beyond that reviewers guess)")
    seen: dict[str, int] = {}
    for i, dim in enumerate(rubric.dimensions):
        if dim.id in seen:
            fail(("dimensions", i, "id"), "duplicate-id",
                 f"dimension id {dim.id!r} is used twice; ids must be unique")
            continue
        seen[dim.id] = i
        _check_dimension(dim, ("dimensions", i), fail)
    weighted = [d.weight for d in rubric.dimensions if d.weight > 0]
    total = sum(weighted)
    if not weighted and rubric.dimensions:
        fail(("dimensions",), "weights-sum", "no dimension has a weight; weights must sum to 1")
    elif weighted and abs(total - 1.0) > WEIGHT_TOLERANCE:
        fail(("dimensions",), "weights-sum",
             f"weights of weighted dimensions sum to {total:.4f}; they must sum to 1 (±0.001)")
    for j, gate in enumerate(rubric.safety_gates):
        if gate not in GATES:
            fail(("safety_gates", j), "unknown-gate", f"unknown safety gate {gate!r}; known: {', '.join(GATES)}")
    if not 0.0 <= rubric.safety_cap <= 1.0:
        fail(("safety_cap",), "safety-cap", "safety_cap is an overall score in [0, 1]")
    for j, band in enumerate(rubric.bands):
        if not 0.0 <= band.min <= 1.0:
            fail(("bands", j, "min"), "bands", "a band's min is an overall score in [0, 1]")
    if rubric.judge.mode not in ("per_dimension", "combined"):
        fail(("judge", "mode"), "judge-mode", "judge.mode is per_dimension or combined")
    if rubric.judge.panel_aggregate not in ("mean", "median"):
        fail(("judge", "panel_aggregate"), "judge-mode", "judge.panel_aggregate is mean or median")
    _check_reply(rubric, fail)
    for j, gate in enumerate(rubric.safety_llm_check):
        if gate not in rubric.safety_gates:
            fail(("safety_llm_check", j), "unknown-gate",
                 f"safety_llm_check names {gate!r}, which is not one of this rubric's safety_gates")
    if rubric.headline is not None and rubric.headline not in {d.id for d in rubric.dimensions}:
        fail(("headline",), "headline", f"headline {rubric.headline!r} is not a dimension of this rubric")
    if len(seen) == len(rubric.dimensions):
        _check_dependencies(rubric, fail)
    return out


def _related(path: KeyPath, broken: KeyPath) -> bool:
    """Whether one path lies inside the other (a rule on a broken part, or over it)."""
    n = min(len(path), len(broken))
    return path[:n] == broken[:n]


def _check_reply(rubric: Rubric, fail: Fail) -> None:
    reply = rubric.judge.reply
    if reply not in JUDGE_REPLIES:
        fail(("judge", "reply"), "judge-reply", f"judge.reply is one of {', '.join(JUDGE_REPLIES)}")
    if reply == "flat" and rubric.judge.mode != "combined":
        fail(("judge", "reply"), "judge-reply",
             "judge.reply: flat is one object holding every dimension's score, "
             "so all dimensions go in one call: set judge.mode: combined")
    if reply == "flat" and any(d.choices for d in rubric.dimensions if d.method == "llm_judge"):
        fail(("judge", "reply"), "judge-reply", "judge.reply: flat holds numbers; choice dimensions need structured")
    if reply == "last_line":
        for i, d in enumerate(rubric.dimensions):
            if d.method == "llm_judge" and not d.choices:
                fail(("dimensions", i), "judge-reply",
                     f"judge.reply: last_line reads a choice; {d.id!r} has no choices")


def id_problem(value: str, what: str) -> str | None:
    """What is wrong with a rubric or dimension id (``what`` names it), or None: a lower-case
    ASCII slug of at most :data:`MAX_SLUG_CHARS` characters, nothing after it (no newline)."""
    if len(value) > MAX_SLUG_CHARS:
        return f"{what} {value[:40]!r}… is {len(value)} characters; at most {MAX_SLUG_CHARS}"
    if not SLUG.fullmatch(value):
        return f"{what} {value!r} must be a lower-case slug like general-quality (a–z, 0–9, _ . -)"
    return None


def version_problem(value: str) -> str | None:
    """What is wrong with a rubric version, or None: semver MAJOR.MINOR.PATCH[-PRERELEASE] in ASCII
    digits without leading zeros, at most :data:`MAX_VERSION_CHARS` characters."""
    if len(value) > MAX_VERSION_CHARS:
        return f"version {value[:40]!r}… is {len(value)} characters; at most {MAX_VERSION_CHARS}"
    if not SEMVER.fullmatch(value):
        return (f"version {value!r} must be semver MAJOR.MINOR.PATCH, e.g. 1.0.0 (digits 0–9, "
                "no leading zeros such as 1.01.0, nothing after it)")
    return None


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _check_dimension(dim: Dimension, path: KeyPath, fail: Fail) -> None:
    problem = id_problem(dim.id, "dimension id")
    if problem:
        fail((*path, "id"), "bad-id", problem)
    if not dim.description.strip():
        fail(path, "description-missing", f"dimension {dim.id!r} needs a description of what it measures")
    elif _words(dim.description) <= _words(dim.id.replace("_", " ")) | _words(dim.name) | {"the", "is", "a", "of"}:
        fail((*path, "description"), "description-is-name",
             f"the description of {dim.id!r} only repeats its name; say what is measured")
    if not dim.method:
        fail(path, "method-missing", f"dimension {dim.id!r} needs a method (no implicit default)")
    elif dim.method not in METHODS:
        fail((*path, "method"), "unknown-method", f"unknown method {dim.method!r}; known: {', '.join(METHODS)}")
    if math.isnan(dim.threshold):
        fail(path, "threshold-missing", f"dimension {dim.id!r} needs a threshold (0–100); without one it cannot fail")
    elif not 0.0 <= dim.threshold <= 100.0:
        fail((*path, "threshold"), "threshold-range", "threshold is on the 0–100 normalised scale")
    if dim.weight < 0:
        fail((*path, "weight"), "weights-sum", "a weight cannot be negative")
    elif dim.weight > 0 and _is_safety_check(dim):
        fail((*path, "weight"), "safety-weighted",
             f"dimension {dim.id!r} is a safety check with weight {dim.weight:g}: safety is a gate, not a "
             "weight; drop the dimension and name its gates under safety_gates")
    if dim.method == "deterministic" and not dim.rule:
        fail(path, "rule-missing", f"deterministic dimension {dim.id!r} needs a rule mapping")
    if dim.rule:
        for key, rule, message in check_rule(dim.rule):
            fail((*path, "rule", *key), rule, message)
    for k, v in (dim.choices or {}).items():
        if not dim.scale.contains(v):
            fail((*path, "choices", k), "choices-off-scale",
                 f"choice {k!r} scores {v:g}, off the scale {dim.scale.min:g}–{dim.scale.max:g}")
    for j, c in enumerate(dim.ceiling):
        if not dim.scale.contains(c.below):
            fail((*path, "ceiling", j), "ceiling", "a ceiling's 'below' must lie on the dimension's scale")
    _check_anchors(dim, path, fail)
    if dim.prompt:
        used = set(re.findall(r"\{(\w+)\}", dim.prompt))
        for a, b in EXCLUSIVE_FILL_WORDS:
            if a in used and b in used:
                fail((*path, "prompt"), "fill-words",
                     f"the prompt uses {{{a}}} and {{{b}}} together; FlexEval forbids that")


def _is_safety_check(dim: Dimension) -> bool:
    """Whether a dimension is a safety check (:func:`is_safety_named`)."""
    return is_safety_named(dim.id, dim.name)


def is_safety_named(dim_id: str, name: str) -> bool:
    """Whether a dimension so named is a safety check: its id or name says safety, or names a
    gate's detector (such a dimension may not carry weight: safety is a gate)."""
    words = set(re.split(r"[^a-z0-9]+", f"{dim_id} {name}".lower()))
    named = {re.sub(r"[^a-z0-9]+", "_", t.lower()).strip("_") for t in (dim_id, name)}
    return "safety" in words or bool(named & (set(GATES) | set(GATE_ALIASES)))


def _check_anchors(dim: Dimension, path: KeyPath, fail: Fail) -> None:
    if not dim.anchors:
        if dim.method not in PAIR_METHODS:  # computed parity figures: the scale's meaning is the formula
            fail(path, "anchors-missing", f"dimension {dim.id!r} needs anchors for every level of its scale")
        return
    off = False
    for j, a in enumerate(dim.anchors):
        if not (dim.scale.contains(a.low) and dim.scale.contains(a.high)):
            off = True
            fail((*path, "anchors", j), "anchor-off-scale",
                 f"anchor {a.label!r} lies off the scale {dim.scale.min:g}–{dim.scale.max:g}")
    if off:
        return
    gaps: list[float] = []
    for level in dim.scale.level_values():
        covering = [j for j, a in enumerate(dim.anchors) if a.covers(level)]
        if not covering:
            gaps.append(level)
        elif len(covering) > 1:
            fail((*path, "anchors", covering[1]), "anchor-overlap",
                 f"level {level:g} of {dim.id!r} is covered by two anchors; ranges must not overlap")
            return
    if gaps:
        shown = ", ".join(f"{g:g}" for g in gaps[:10]) + (" ..." if len(gaps) > 10 else "")
        fail((*path, "anchors"), "anchor-gap",
             f"no anchor of {dim.id!r} covers level{'s' if len(gaps) > 1 else ''} {shown}; "
             "anchors must cover every level")


def _check_dependencies(rubric: Rubric, fail: Fail) -> None:
    ids = {d.id: i for i, d in enumerate(rubric.dimensions)}
    unknown = False
    for i, dim in enumerate(rubric.dimensions):
        if dim.depends_on is not None and dim.depends_on.dimension not in ids:
            unknown = True
            fail(("dimensions", i, "depends_on"), "depends-on-unknown",
                 f"{dim.id!r} depends on {dim.depends_on.dimension!r}, which is not a dimension here")
    if unknown:
        return
    for i, dim in enumerate(rubric.dimensions):
        seen, cur = {dim.id}, dim
        while cur.depends_on is not None:
            nxt = rubric.dimension(cur.depends_on.dimension)
            if nxt.id in seen:
                fail(("dimensions", i, "depends_on"), "depends-on-cycle",
                     f"depends_on forms a cycle through {dim.id!r}; remove one link")
                return
            seen.add(nxt.id)
            cur = nxt
