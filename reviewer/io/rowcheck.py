"""Check one parsed row of an item file against a rubric: its fields, its scores on each
dimension's scale, its judge and human entries, its gold answers and limits (ids, names, tags,
depth). Every problem is one ``FILE:LINE: ...`` line; a bad row gives no record. Reading the file
(JSON Lines or CSV) is :mod:`reviewer.io.itemfile`."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from reviewer.domain.itemlimits import (
    MAX_ID_CHARS,
    conversation_problem,
    name_problem,
    tags_problem,
    text_or_none,
)
from reviewer.domain.records import JudgeEntry, Row
from reviewer.io.fastjson import canonical_bytes
from rubrics.schema import Dimension, Rubric, Scale

#: How many distinct names one file's check remembers.
_MAX_NAMES = 10_000


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _check_score(scale: Scale, value: Any, where: Callable[[], str],
                 labels: Dimension | None = None) -> tuple[float | None, list[float], str | None]:
    """(score, samples, error message) for one score entry; ``where`` names it, only on error.
    A score given as text is one of ``labels``' anchor labels (exact, then ignoring case)."""
    samples: list[float] = []
    # the common case first: a plain number on the scale
    if (type(value) is int or type(value) is float) and math.isfinite(value) and scale.min <= value <= scale.max:
        return float(value), samples, None
    label = value.get("score") if isinstance(value, dict) else value
    if isinstance(label, str):
        if labels is None:
            return None, [], f"{where()}: score {label!r} is text; give a number (labels stand only for scores on the rubric's own scale)"
        code, problem = labels.score_for_label(label)
        if problem is not None:
            return None, [], f"{where()}: {problem}"
        value = {**value, "score": code} if isinstance(value, dict) else code
    if isinstance(value, dict):
        raw_samples = value.get("samples") or []
        if not isinstance(raw_samples, list):
            return None, [], f"{where()}: samples must be a list of numbers"
        for s in raw_samples:
            num = _number(s)
            if num is None:
                return None, [], f"{where()}: sample {s!r} is not a finite number"
            if not scale.contains(num):
                return None, [], f"{where()}: sample {num:g} is off the scale {scale.min:g}–{scale.max:g}"
            samples.append(num)
        value = value.get("score", sum(samples) / len(samples) if samples else None)
    num = _number(value)
    if num is None:
        return None, [], f"{where()}: score {value!r} is not a finite number"
    if not scale.contains(num):
        return None, [], f"{where()}: score {num:g} is off the scale {scale.min:g}–{scale.max:g}"
    return num, samples, None


def _extra_problem(extra: dict[str, Any]) -> str | None:
    """A judge score's rationale, evidence and confidence have the types they are stored as."""
    problem = text_or_none(extra.get("rationale"), "'rationale'")
    if problem:
        return problem
    if extra.get("evidence") is not None and not isinstance(extra["evidence"], list):
        return "'evidence' must be a list"
    conf = extra.get("confidence")
    if conf is not None and _number(conf) is None:
        return f"'confidence' must be a number, not {conf!r}"[:120]
    return None


@dataclass(frozen=True)
class RubricScales:
    """Each dimension's scale for judge scores and for human scores, looked up once per file."""

    judge: dict[str, Scale]
    human: dict[str, Scale]
    #: The dimension whose anchor labels a score may be given as (the judge's: only on the same scale).
    judge_labels: dict[str, Dimension]
    human_labels: dict[str, Dimension]
    #: Per dimension, the plain numbers a person may give (its levels, as exact values): a score
    #: found here needs no further check; any other goes through the full one.
    human_levels: dict[str, frozenset[float]] = field(default_factory=dict)
    #: Names (reviewers, judge models) already checked in this file, with the problem found (a
    #: file repeats a few names on every line). Bounded: see :meth:`name_problem`.
    names: dict[tuple[str, str], str | None] = field(default_factory=dict)
    #: A plain judge score's entry, by (dimension, score): the rows of a file share these (a
    #: record is read, never changed, once checked).
    plain_judge: dict[tuple[str, float], JudgeEntry] = field(default_factory=dict)

    @classmethod
    def of(cls, rubric: Rubric) -> RubricScales:
        levels = {d.id: frozenset(v for v in d.scale.level_values() if d.scale.contains(v) and d.scale.is_level(v))
                  for d in rubric.dimensions}
        return cls({d.id: d.judge_scale or d.scale for d in rubric.dimensions},
                   {d.id: d.scale for d in rubric.dimensions},
                   {d.id: d for d in rubric.dimensions if d.judge_scale is None},
                   {d.id: d for d in rubric.dimensions}, levels)

    def judge_plain(self, dim_id: str, value: Any) -> bool:
        """Whether ``value`` is a plain judge score on ``dim_id``: a number (int or float, not
        bool) on that dimension's judge scale (NaN fails; infinity lies off every scale). The
        one statement of the rule for both checks of a row (this module's and
        :mod:`reviewer.io.plainrow`'s); anything else goes through the full score check."""
        kind = type(value)
        if kind is not int and kind is not float:
            return False
        sc = self.judge.get(dim_id)
        return sc is not None and sc.min <= value <= sc.max

    def human_plain(self, dim_id: str, value: Any, aggregate: bool = False) -> bool:
        """Whether ``value`` is a plain score a person gave on ``dim_id``: a number (int or
        float, not bool) that is a level of the dimension's scale — any number on the scale for
        an ``aggregate`` entry (a mean of several people). One rule for both checks of a row."""
        kind = type(value)
        if kind is not int and kind is not float:
            return False
        levels = self.human_levels.get(dim_id)
        if levels is None:
            return False
        if value in levels:  # a level of the scale (so on it): NaN is none
            return True
        sc = self.human[dim_id]
        return sc.min <= value <= sc.max and (aggregate or sc.is_level(value))  # NaN fails this

    def name_problem(self, value: Any, what: str) -> str | None:
        """:func:`reviewer.domain.itemlimits.name_problem`, remembered for text names."""
        if type(value) is not str:
            return name_problem(value, what)
        key = (value, what)
        if key not in self.names:
            if len(self.names) >= _MAX_NAMES:
                return name_problem(value, what)
            self.names[key] = name_problem(value, what)
        return self.names[key]


def _levels(scale: Scale) -> str:
    """A scale's levels in a few words: ``1, 3, 5`` or ``1, 2, …, 10``."""
    levels = scale.level_values()
    if len(levels) <= 6:
        return ", ".join(f"{v:g}" for v in levels)
    return f"{levels[0]:g}, {levels[1]:g}, …, {levels[-1]:g}"


def _check_gold(gold: Any, scales: dict[str, Scale], errs: list[str], where: str) -> None:
    """A gold item's expected scores: an object of dimension → a number on that dimension's scale."""
    if not isinstance(gold, dict) or not gold:
        errs.append(f"{where}: must be an object of dimension → expected score, e.g. {{\"accuracy\": 7}}")
        return
    for dim_id, value in gold.items():
        if dim_id not in scales:
            errs.append(f"{where}: unknown dimension {dim_id!r}")
            continue
        def gwhere(d: str = dim_id) -> str:
            return f"{where} {d}"
        _, _, err = _check_score(scales[dim_id], value, gwhere)
        if err:
            errs.append(err)


def check_row(rubric: Rubric, n: int, obj: dict[str, Any], errs: list[str], src: str,
              scales: RubricScales | None = None, at: str | None = None) -> Row | None:
    """Check one row; append messages to ``errs`` and return None when it is wrong. Messages
    begin ``at`` (default ``SRC:N``: a row converted from another format names its own place)."""
    scales = scales or RubricScales.of(rubric)
    at = at or f"{src}:{n}"
    before = len(errs)
    item_id = obj.get("id")
    if not isinstance(item_id, (str, int)) or isinstance(item_id, bool) or str(item_id) == "":
        errs.append(f"{at}: missing 'id' (every item needs a unique id)")
        return None
    bad_id = name_problem(item_id, "the id", MAX_ID_CHARS)
    if bad_id is not None:
        errs.append(f"{at}: {bad_id}")
        return None
    if not isinstance(obj.get("output"), str) and not isinstance(obj.get("conversation"), list):
        errs.append(f"{at}: item {item_id}: needs 'output' text (or a 'conversation' list)")
    for key in ("input", "context", "reference", "group", "variant"):
        if key in obj and obj[key] is not None and (
                isinstance(obj[key], bool) or not isinstance(obj[key], (str, int, float))):
            errs.append(f"{at}: item {item_id}: {key!r} must be text")
    problem = conversation_problem(obj.get("conversation"))
    if problem:
        errs.append(f"{at}: item {item_id}: {problem}")
    if "metadata" in obj and not isinstance(obj["metadata"], dict):
        errs.append(f"{at}: item {item_id}: 'metadata' must be an object")
    dims = scales.human
    if obj.get("gold") is not None:
        _check_gold(obj["gold"], dims, errs, f"{at}: item {item_id}: gold")
    judge: dict[str, JudgeEntry] = {}
    model = None
    if "judge" in obj:
        j = obj["judge"]
        scores = j.get("scores") if isinstance(j, dict) else None
        if not isinstance(scores, dict):
            errs.append(f"{at}: item {item_id}: 'judge' must be an object with 'scores'")
        else:
            model = j.get("model")
            if model is not None and scales.name_problem(model, "the judge model") is not None:
                errs.append(f"{at}: item {item_id}: judge: {scales.name_problem(model, 'the judge model')}")
                model = None
            plain = scales.plain_judge
            for dim_id, value in scores.items():
                if scales.judge_plain(dim_id, value):  # a plain score: the common case
                    entry = plain.get((dim_id, value)) if value else None  # (0 and -0.0 are equal keys)
                    if entry is None:
                        entry = JudgeEntry(float(value), [])
                        if value and len(plain) < _MAX_NAMES:
                            plain[(dim_id, value)] = entry
                    judge[dim_id] = entry
                    continue

                def where(dim_id: str = dim_id) -> str:
                    return f"{at}: item {item_id}: judge {dim_id}"
                if dim_id not in dims:
                    errs.append(f"{where()}: unknown dimension for {rubric.ref}")
                    continue
                if isinstance(value, dict) and "error" in value and "score" not in value:
                    problem = (text_or_none(value["error"], "'error'")
                               or text_or_none(value.get("raw_reply"), "'raw_reply'"))
                    if problem:
                        errs.append(f"{where()}: {problem}")
                        continue
                    judge[dim_id] = JudgeEntry(None, [], error=str(value["error"]),
                                               raw_reply=value.get("raw_reply"))
                    continue
                score, samples, err = _check_score(scales.judge[dim_id], value, where, scales.judge_labels.get(dim_id))
                extra = value if isinstance(value, dict) else {}
                err = err or _extra_problem(extra)
                if err:
                    errs.append(err if err.startswith(at) else f"{where()}: {err}")
                    continue
                judge[dim_id] = JudgeEntry(
                    score, samples, str(extra.get("rationale", "")), list(extra.get("evidence") or []),
                    _number(extra.get("confidence")),
                )
    human: list[tuple[str, str, float, str | None, list[str], bool]] = []
    human_at: dict[tuple[str, str], datetime] = {}
    entries = obj.get("human") or []
    if not isinstance(entries, list):
        errs.append(f"{at}: item {item_id}: 'human' must be a list of {{reviewer, scores}}")
        entries = []
    for h in entries:
        if not isinstance(h, dict) or not isinstance(h.get("reviewer"), str) or not isinstance(h.get("scores"), dict):
            errs.append(f"{at}: item {item_id}: each human entry needs 'reviewer' and 'scores'")
            continue
        problem = scales.name_problem(h["reviewer"], "the reviewer name")
        if problem is None and not isinstance(h.get("blind", False), bool):
            problem = "'blind' must be true or false"
        if problem is None and not isinstance(h.get("aggregate", False), bool):
            problem = "'aggregate' must be true or false"
        when = None
        if problem is None and "at" in h:
            when, problem = entry_time(h["at"])
        if problem:
            errs.append(f"{at}: item {item_id}: {problem}")
            continue
        who, blind = h["reviewer"], bool(h.get("blind", False))
        aggregate = h.get("aggregate") is True  # a mean of several people may lie between levels
        for dim_id, value in h["scores"].items():
            if when is not None:
                human_at[(who, dim_id)] = when
            if scales.human_plain(dim_id, value, aggregate):  # a plain score: the common case
                human.append((who, dim_id, float(value), None, [], blind))
                continue

            def hwhere(who: str = who, dim_id: str = dim_id) -> str:
                return f"{at}: item {item_id}: {who} {dim_id}"
            if dim_id not in dims:
                errs.append(f"{hwhere()}: unknown dimension for {rubric.ref}")
                continue
            score, _, err = _check_score(scales.human[dim_id], value, hwhere, scales.human_labels[dim_id])
            if err or score is None:
                errs.append(err or f"{hwhere()}: no score")
                continue
            if not aggregate and not scales.human[dim_id].is_level(score):
                errs.append(f"{hwhere()}: score {score:g} is not a level of the scale "
                            f"({_levels(scales.human[dim_id])}); a person scores a level, as in the "
                            "review screen: give one (a mean of several people: mark the entry "
                            "\"aggregate\": true)")
                continue
            extra = value if isinstance(value, dict) else {}
            problem = text_or_none(extra.get("reason"), "'reason'") or tags_problem(extra.get("tags"))
            if problem:
                errs.append(f"{hwhere()}: {problem}")
                continue
            human.append((h["reviewer"], dim_id, score, extra.get("reason"), list(extra.get("tags") or []),
                          bool(h.get("blind", False))))
    audit = _audit_flag(obj.get("audit"))
    if audit is None:
        errs.append(f"{at}: item {item_id}: 'audit' must be true or false (true: the item was drawn "
                    "at random for an unbiased estimate)")
    if len(errs) > before:
        return None
    return Row(n, str(item_id), obj, content_hash(obj), model, judge, human, bool(audit),  # audit is not None here
               human_at or None)


#: How far past this machine's clock an imported score's time may lie (clocks differ a little).
CLOCK_SLACK = timedelta(minutes=5)


def entry_time(value: object) -> tuple[datetime | None, str | None]:
    """A human entry's ``at``: the time the person gave the scores, in UTC; or the problem."""
    hint = "give an ISO 8601 time with its zone, e.g. \"2026-10-05T09:30:00Z\""
    if not isinstance(value, str):
        return None, f"'at' must be a time as text: {hint}"
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None, f"'at' {value[:40]!r} is not a time: {hint}"
    if when.tzinfo is None:
        return None, f"'at' {value[:40]!r} has no zone: {hint}"
    when = when.astimezone(UTC)
    if when > datetime.now(UTC) + CLOCK_SLACK:
        return None, f"'at' {value[:40]!r} lies in the future: give the time the scores were given"
    return when, None


def content_hash(obj: dict[str, Any]) -> str:
    """The row's content hash. Membership of the audit sample is not content: marking an item
    later changes no revision. Scores and content are hashed in one canonical form (an edit in
    key order is not new content)."""
    content = {k: v for k, v in obj.items() if k != "audit"} if "audit" in obj else obj
    return hashlib.sha256(canonical_bytes(content)).hexdigest()


def _audit_flag(value: Any) -> bool | None:
    """``audit`` as a boolean: JSON true/false, or in CSV the text true/false (None: neither)."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


__all__ = ["RubricScales", "check_row", "content_hash"]
