"""Draft a rubric from what a source of scores says about its dimensions (``rubricate rubric init``).

A source (a promptfoo results file, an Inspect log, …) names its dimensions, the values scored on
each and sometimes labels (Inspect's ``C``/``P``/``I``, pass/fail) and the text the judge was
given. :func:`draft_rubric` turns that into canonical YAML the validator accepts as written: one
``llm_judge`` dimension per source dimension, its scale the labelled values (else the whole
numbers spanning the values seen), an anchor per level, equal weights (a dimension named like a
safety gate is reported, weight 0: safety is a gate), threshold 50. What the draft had to infer —
a description or prompt the source does not give — says so in words, beginning ``Draft:``.
Pure: no file is read here; the caller converts the source.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from rubrics.errors import RubricError
from rubrics.loader import dump_yaml, load_rubric_text
from rubrics.rules import MAX_DIMENSIONS, is_safety_named

#: A scale has at most this many levels (the rubric format's limit).
MAX_LEVELS = 101
#: The words marking what was inferred rather than read from the source.
DRAFT = "Draft:"


@dataclass
class DraftDimension:
    """One dimension as a source shows it."""

    id: str
    name: str
    #: the source's own description, or None (the draft then says it inferred one)
    description: str | None = None
    #: the text the judge was given (an ``llm-rubric`` value, a scorer's template), or None
    prompt: str | None = None
    #: score → label, when the source labels its values (``{0: "fail", 1: "pass"}``)
    labels: dict[float, str] = field(default_factory=dict)
    #: where the dimension came from, in a few words (``promptfoo 'contains' assertion``)
    origin: str = ""
    #: the measurement level when the source says it (``nominal`` for unordered labels)
    level: str | None = None
    lowest: float = math.inf
    highest: float = -math.inf

    def saw(self, value: float) -> None:
        """Widen the range of values seen by ``value``."""
        self.lowest = min(self.lowest, value)
        self.highest = max(self.highest, value)


def _scale(d: DraftDimension) -> tuple[dict[str, object], list[dict[str, object]]]:
    """The dimension's scale and one anchor per level."""
    if d.labels:
        levels = sorted(d.labels)
        if d.lowest < levels[0] or d.highest > levels[-1]:
            raise RubricError(d.origin or d.id, None, "scale",
                              f"dimension {d.id!r}: a score {d.lowest:g}–{d.highest:g} lies outside its labelled "
                              f"values {levels[0]:g}–{levels[-1]:g}; the source is inconsistent")
        scale: dict[str, object] = {"min": _num(levels[0]), "max": _num(levels[-1]),
                                    "levels": [_num(v) for v in levels]}
        return scale, [{"score": _num(v), "label": d.labels[v]} for v in levels]
    if not math.isfinite(d.lowest):
        lo, hi = 0, 1
    else:
        lo, hi = math.floor(d.lowest), math.ceil(d.highest)
    if hi == lo:
        hi = lo + 1
    if hi - lo + 1 > MAX_LEVELS:
        raise RubricError(d.origin or d.id, None, "scale",
                          f"dimension {d.id!r}: scores run from {d.lowest:g} to {d.highest:g}, more than "
                          f"{MAX_LEVELS} whole-number levels; rescale the scores before importing them")
    return ({"min": lo, "max": hi},
            [{"score": v, "label": str(v), "description": f"{DRAFT} level {v} as the source scored it"}
             for v in range(lo, hi + 1)])


def _num(v: float) -> int | float:
    return int(v) if float(v).is_integer() else v


def _dimension(d: DraftDimension, weight: float) -> dict[str, object]:
    scale, anchors = _scale(d)
    origin = f" ({d.origin})" if d.origin else ""
    if d.description and d.description.strip() and d.description.strip() != d.name:
        description = d.description.strip()
    else:
        description = f"{DRAFT} scores imported from{origin or ' the source'}; say what {d.name!r} measures."
    if d.prompt and d.prompt.strip():
        prompt = d.prompt
    else:
        prompt = (f"{DRAFT} the source gives no judge prompt for {d.name!r}{origin}; write one.\n\n"
                  "Output:\n{output}")
    body: dict[str, object] = {"id": d.id, "name": d.name, "description": description, "method": "llm_judge",
                               "weight": weight, "threshold": 50, "scale": scale, "prompt": prompt,
                               "anchors": anchors}
    if d.level:
        body["level"] = d.level
    return body


def draft_rubric(dims: Sequence[DraftDimension], rubric_id: str, owner: str, source: str,
                 title: str | None = None, picks: Sequence[str] = ()) -> str:
    """Canonical YAML for a rubric of ``dims`` (only ``picks``, when given), checked by the
    validator before it is returned; raises :class:`RubricError` in one line otherwise."""
    if picks:
        known = {d.id: d for d in dims}
        missing = [p for p in picks if p not in known]
        if missing:
            raise RubricError(source, None, "dimensions-missing",
                              f"no dimension {missing[0]!r} in the source; it has: {', '.join(known)}")
        dims = [known[p] for p in dict.fromkeys(picks)]
    if not dims:
        raise RubricError(source, None, "dimensions-missing",
                          "the source holds no scores to draft dimensions from")
    if len(dims) > MAX_DIMENSIONS:
        raise RubricError(source, None, "too-many-dimensions",
                          f"the source has {len(dims)} dimensions, a rubric at most {MAX_DIMENSIONS}: pick "
                          f"some with --dimension (repeat): {', '.join(d.id for d in dims)}")
    counted = [d for d in dims if not is_safety_named(d.id, d.name)]
    share = round(1.0 / len(counted), 6) if counted else 0.0
    weights = {d.id: share if d in counted else 0.0 for d in dims}
    if counted:  # the first takes the rounding, so the weights sum to 1 exactly
        weights[counted[0].id] = round(1.0 - share * (len(counted) - 1), 6)
    body = [_dimension(d, weights[d.id]) for d in dims]
    out = {"id": rubric_id, "version": "1.0.0", "name": title or f"Drafted from {source}", "owner": owner,
           "description": f"{DRAFT} drafted by rubricate rubric init from {source}; read the parts marked "
                          "Draft before registering it.",
           "scale": body[0]["scale"], "dimensions": body}
    canonical = dump_yaml(out)
    load_rubric_text(canonical, f"{source} (drafted)")  # refuse to write what would not load
    return canonical


__all__ = ["DRAFT", "DraftDimension", "draft_rubric"]
