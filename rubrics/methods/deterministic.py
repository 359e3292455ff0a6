"""The deterministic method: requirements a parser can check, always reproducible.

A dimension's ``rule`` mapping names the checks (IFEval's verifiable constraints):
``max_words``, ``min_words``, ``max_chars``, ``min_chars``, ``required_phrases``,
``banned_phrases``, ``regex_must``, ``regex_must_not``, ``json`` (bool), ``json_schema`` (dict),
``sections`` (headings that must appear), ``label_match`` (a label in the item's metadata against
the reference label beside it), ``citations_in_context`` (every source the output cites is in the
item's context) and ``partial_credit`` (bool). Every check passing scores
the scale's top, any failing its bottom; with ``partial_credit`` the score is the passed share
mapped onto the scale. Phrases match case-insensitively; regexes use Python syntax and run on the
``regex`` engine with a time limit (:data:`REGEX_SECONDS` per pattern and output): a pattern that
runs out of time fails that item's dimension with a recorded error instead of hanging the run
(save-time checks in :mod:`rubrics.rulecheck` already refuse the catastrophic shapes).

The two checks on declared fields never guess: an item without the metadata a ``label_match``
names, or without the context ``citations_in_context`` checks against, gets an error (routed to
people) instead of a score.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import regex

from rubrics.methods.base import JudgeItem, failed, from_unit, scored
from rubrics.results import ScoreResult
from rubrics.schema import Dimension

#: One check: (passed, detail).
Check = tuple[bool, str]
#: Seconds one pattern may spend on one output.
REGEX_SECONDS = 1.0
_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n\s*```\s*$", re.DOTALL)


def _as_list(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]


def _words(text: str) -> int:
    return len(text.split())


def _parse_json(text: str) -> tuple[Any, str | None]:
    """The output as JSON (a single fenced block counts), or the parse error."""
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text
    try:
        return json.loads(body), None
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"


def _check_json(text: str, _: Any) -> Check:
    _, err = _parse_json(text)
    return (err is None, err or "valid JSON")


def _check_schema(text: str, schema: Any) -> Check:
    import jsonschema

    value, err = _parse_json(text)
    if err is not None:
        return False, err
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(value), key=str)
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "(root)"
        return False, f"JSON does not match the schema at {where}: {errors[0].message}"
    return True, "JSON matches the schema"


def _heading_present(text: str, heading: str) -> bool:
    """A line that is the heading: markdown ``#``, bold, or ``Heading:`` forms count."""
    want = heading.strip().lower().rstrip(":")
    for line in text.splitlines():
        bare = line.strip().lstrip("#").strip().strip("*_").strip().rstrip(":").strip().lower()
        if bare == want:
            return True
    return False


class MissingField(ValueError):
    """The item lacks a field a rule declares: the dimension is an error, never a guessed score."""


def _label_set(metadata: Mapping[str, Any], key: str, what: str) -> frozenset[str]:
    """The label(s) under ``metadata[key]`` (text, or a list of text), trimmed and case-folded."""
    if metadata.get(key) is None:
        raise MissingField(f"the item's metadata has no {key!r} ({what}); add it to the item")
    value = metadata[key]
    values = value if isinstance(value, list) else [value]
    if not all(isinstance(v, str) for v in values):
        raise MissingField(f"metadata {key!r} ({what}) must be text or a list of text")
    return frozenset(v.strip().casefold() for v in values)


def _check_label(metadata: Mapping[str, Any], keys: Mapping[str, str]) -> Check:
    """The classifier's label(s) against the reference label(s); lists compare as sets."""
    got = _label_set(metadata, keys["label"], "the classifier's label")
    want = _label_set(metadata, keys["expected"], "the reference label")
    if got == want:
        return True, f"{keys['label']} {sorted(got)} matches {keys['expected']}"
    missing, extra = sorted(want - got), sorted(got - want)
    return False, (f"{keys['label']} {sorted(got)} does not match {keys['expected']} {sorted(want)}"
                   + (f"; missing {missing}" if missing else "") + (f"; not expected {extra}" if extra else ""))


def _sources(pattern: str, text: str) -> list[str]:
    """Each citation marker's source id in ``text``: the pattern's first group, else the match."""
    try:
        found = regex.finditer(pattern, text, regex.MULTILINE, timeout=REGEX_SECONDS)
        return [m.group(1) if m.re.groups else m.group(0) for m in found]
    except TimeoutError:
        raise ValueError(f"/{pattern[:60]}/ ran past {REGEX_SECONDS:g} s on this item") from None


def _check_citations(pattern: str, item: JudgeItem) -> Check:
    """Every source the output cites is marked in the item's context (citing nothing passes:
    whether an answer should cite is the judge's question, not this check's)."""
    if not item.context.strip():
        raise MissingField("the item has no context to check its citations against; add the retrieved context")
    cited = list(dict.fromkeys(_sources(pattern, item.output)))
    known = set(_sources(pattern, item.context))
    absent = [c for c in cited if c not in known]
    if absent:
        return False, f"cites {', '.join(absent)}, not in the context"
    return True, f"{len(cited)} cited source{'s' if len(cited) != 1 else ''}, all in the context"


def _checks(rule: Mapping[str, Any], item: JudgeItem) -> list[tuple[str, Check]]:
    text = item.output
    lowered = text.lower()
    out: list[tuple[str, Check]] = []
    words, chars = _words(text), len(text)
    simple: dict[str, Callable[[Any], Check]] = {
        "max_words": lambda n: (words <= n, f"{words} words (max {n})"),
        "min_words": lambda n: (words >= n, f"{words} words (min {n})"),
        "max_chars": lambda n: (chars <= n, f"{chars} characters (max {n})"),
        "min_chars": lambda n: (chars >= n, f"{chars} characters (min {n})"),
        "json": lambda flag: _check_json(text, flag) if flag else (True, "not required"),
        "json_schema": lambda schema: _check_schema(text, schema),
        "label_match": lambda keys: _check_label(item.metadata, keys),
        "citations_in_context": lambda pattern: _check_citations(pattern, item),
    }
    for key, value in rule.items():
        if key == "partial_credit":
            continue
        if key in simple:
            out.append((key, simple[key](value)))
        elif key == "required_phrases":
            for phrase in _as_list(value):
                ok = phrase.lower() in lowered
                out.append((key, (ok, f"{'has' if ok else 'missing'} {phrase!r}")))
        elif key == "banned_phrases":
            for phrase in _as_list(value):
                bad = phrase.lower() in lowered
                out.append((key, (not bad, f"{'contains' if bad else 'free of'} {phrase!r}")))
        elif key in ("regex_must", "regex_must_not"):
            for pattern in _as_list(value):
                try:
                    found = regex.search(pattern, text, regex.MULTILINE, timeout=REGEX_SECONDS) is not None
                except TimeoutError:
                    raise ValueError(f"/{pattern[:60]}/ ran past {REGEX_SECONDS:g} s on this output") from None
                ok = found if key == "regex_must" else not found
                out.append((key, (ok, f"/{pattern}/ {'matches' if found else 'does not match'}")))
        elif key == "sections":
            for heading in _as_list(value):
                ok = _heading_present(text, heading)
                out.append((key, (ok, f"section {heading!r} {'present' if ok else 'missing'}")))
        else:
            raise ValueError(f"unknown rule key {key!r}")
    return out


def score_deterministic(item: JudgeItem, dim: Dimension) -> ScoreResult:
    """Run the dimension's rule over the item's output."""
    rule = dict(dim.rule or {})
    try:
        results = _checks(rule, item)
    except MissingField as exc:
        return failed(item, dim, str(exc))
    except (ValueError, TypeError, re.error, regex.error, RecursionError) as exc:
        return failed(item, dim, f"rule cannot be checked: {exc}")
    if not results:
        return failed(item, dim, "rule has no checks")
    evidence = [{"rule": name, "passed": ok, "detail": detail} for name, (ok, detail) in results]
    passed = sum(1 for _, (ok, _d) in results if ok)
    share = passed / len(results)
    value = share if rule.get("partial_credit") else float(passed == len(results))
    failures = [f"{name}: {detail}" for name, (ok, detail) in results if not ok]
    rationale = f"{passed}/{len(results)} checks passed" + (
        "; failed " + "; ".join(failures) if failures else ""
    )
    return scored(item, dim, from_unit(dim, value), rationale=rationale, evidence=evidence)
