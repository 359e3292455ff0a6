"""Save-time checks of a deterministic ``rule`` mapping: known keys, value types, regexes.

A rule that passes here cannot fail every item at judge time: each key is one the deterministic
method knows, each value has the type that check reads, every regex compiles, and no regex has
the shape that makes a backtracking engine take exponential time.

The backtracking guard is structural (Python's own regex parser gives the tree): refused are an
unbounded repeat whose body holds another unbounded repeat (``(a+)+``, ``(\\w*\\s?)*``) and an unbounded repeat over
alternatives that can start with the same character (``(a|ab)*``, ``(foo|\\w+)*``) — the two
shapes behind catastrophic backtracking. A repeat whose every round starts with a punctuation or
space character nothing else in the round can match (``(, [A-Z][a-z]+)*``) is allowed: its
rounds split one way only. It is conservative, not complete: polynomial blow-ups
such as ``\\d*\\d*\\d*`` pass it, so :mod:`rubrics.methods.deterministic` also runs every pattern
with a time limit (the ``regex`` engine's ``timeout``), and a pattern that runs out of time is
that item's judge error, never a hang.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# Python's own pattern parser (sre_parse); private, but the only full parser of its syntax.
from re import _constants as sre_c  # type: ignore[attr-defined]  # private: typeshed does not declare it
from re import _parser as sre_parse  # type: ignore[attr-defined]  # private: typeshed does not declare it
from typing import Any

import regex

Problem = tuple[tuple[str | int, ...], str, str]

COUNTS = ("max_words", "min_words", "max_chars", "min_chars")
TEXTS = ("required_phrases", "banned_phrases", "sections")
REGEXES = ("regex_must", "regex_must_not")
FLAGS = ("json", "partial_credit")
#: ``label_match``'s keys: the metadata key of the classifier's label, and of the reference label.
LABEL_KEYS = ("label", "expected")
RULE_KEYS = (*COUNTS, *TEXTS, *REGEXES, *FLAGS, "json_schema", "label_match", "citations_in_context")
#: The longest pattern accepted, and the most phrases/patterns one key may list.
MAX_PATTERN = 2000
MAX_LIST = 200
_REPEATS = (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", sre_c.MAX_REPEAT))


def check_rule(rule: Mapping[str, Any]) -> list[Problem]:
    """Every problem of a rule mapping, as (key path inside the rule, rule name, message)."""
    out: list[Problem] = []
    for key, value in rule.items():
        where: tuple[str | int, ...] = (str(key),)
        if key not in RULE_KEYS:
            import difflib

            hint = difflib.get_close_matches(str(key), RULE_KEYS, n=1)
            out.append((where, "rule-key", f"unknown rule key {str(key)!r}"
                        + (f"; did you mean {hint[0]!r}?" if hint else f"; known: {', '.join(RULE_KEYS)}")))
        elif key in COUNTS:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                out.append((where, "rule-type", f"{key} must be a whole number ≥ 0"))
        elif key in FLAGS:
            if not isinstance(value, bool):
                out.append((where, "rule-type", f"{key} must be true or false"))
        elif key == "json_schema":
            out += _schema_problem(value, where)
        elif key == "label_match":
            if not (isinstance(value, dict) and set(value) == set(LABEL_KEYS)
                    and all(isinstance(v, str) and v.strip() for v in value.values())):
                out.append((where, "rule-type", "label_match names two metadata keys: "
                            "{label: KEY of the classifier's label, expected: KEY of the reference label}"))
        elif key == "citations_in_context":
            if not isinstance(value, str) or not value:
                out.append((where, "rule-type", "citations_in_context is one pattern matching a citation marker"))
            else:
                problem = regex_problem(value)
                if problem is not None:
                    out.append((where, problem[0], problem[1]))
                elif regex.compile(value).groups > 1:
                    out.append((where, "rule-type", "citations_in_context's pattern has at most one group "
                                "(the source id); write the others as (?:...)"))
        else:
            items = _strings(value)
            if items is None:
                out.append((where, "rule-type", f"{key} must be text or a list of text"))
            elif key in REGEXES:
                for j, pattern in enumerate(items):
                    problem = regex_problem(pattern)
                    if problem is not None:
                        at = where if isinstance(value, str) else (*where, j)
                        out.append((at, problem[0], problem[1]))
    return out


def _strings(value: Any) -> list[str] | None:
    values = value if isinstance(value, list) else [value]
    if not values or len(values) > MAX_LIST or not all(isinstance(v, str) and v for v in values):
        return None
    return values


def _schema_problem(value: Any, where: tuple[str | int, ...]) -> list[Problem]:
    if not isinstance(value, dict):
        return [(where, "rule-type", "json_schema must be a JSON Schema object")]
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(value)
    except jsonschema.SchemaError as exc:
        return [(where, "rule-type", f"json_schema is not a valid JSON Schema: {exc.message[:200]}")]
    except RecursionError:
        return [(where, "rule-type", "json_schema is nested too deeply")]
    return []


def regex_problem(pattern: str) -> tuple[str, str] | None:
    """(rule, message) when ``pattern`` does not compile or can backtrack catastrophically."""
    if len(pattern) > MAX_PATTERN:
        return "regex", f"the pattern is {len(pattern)} characters; at most {MAX_PATTERN}"
    try:
        tree = sre_parse.parse(pattern)
        regex.compile(pattern)
    except (re.error, regex.error) as exc:
        return "regex", f"/{_short(pattern)}/ does not compile: {exc}; fix the pattern"
    except (RecursionError, OverflowError, ValueError):
        return "regex", f"/{_short(pattern)}/ is too complex; simplify it"
    shape = _catastrophic(list(tree))
    if shape is not None:
        fix = ("rewrite it without a repeat inside a repeat (e.g. (a+)+ → a+)" if shape == "repeats a repeat"
               else "rewrite it so no two alternatives can match the same text")
        return "regex-backtracking", (
            f"/{_short(pattern)}/ {shape}, which can take exponential time on some outputs; {fix}")
    return None


def _short(pattern: str) -> str:
    return pattern if len(pattern) <= 60 else pattern[:57] + "..."


def _catastrophic(items: list[Any], in_repeat: bool = False) -> str | None:
    """The dangerous shape found in a parsed pattern, described, or None."""
    for op, arg in items:
        if op in _REPEATS:
            low, high, body = arg
            body_items = list(body)
            unbounded = high == sre_c.MAXREPEAT
            if in_repeat and unbounded:
                return "repeats a repeat"
            if unbounded:
                if _overlapping_alternatives(body_items):
                    return "repeats alternatives that can match the same text"
                # (, [A-Z][a-z]+)*: each round starts with a character nothing else in it can
                # match, so the rounds split one way only and inner repeats cannot trade text.
                found = None if _separated(body_items) else _catastrophic(body_items, in_repeat=True)
                if found:
                    return found
            else:
                found = _catastrophic(body_items, in_repeat)
                if found:
                    return found
        elif op == sre_c.SUBPATTERN:
            found = _catastrophic(list(arg[-1]), in_repeat)
            if found:
                return found
        elif op == sre_c.BRANCH:
            for branch in arg[1]:
                found = _catastrophic(list(branch), in_repeat)
                if found:
                    return found
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            found = _catastrophic(list(arg[1]), in_repeat)
            if found:
                return found
    return None


def _separated(items: list[Any]) -> bool:
    """Whether a repeated body starts with one punctuation or space character that no other part
    of the body can match (so every round of the repeat begins exactly where that character is)."""
    while len(items) == 1 and items[0][0] == sre_c.SUBPATTERN:
        items = list(items[0][1][-1])
    if not items or items[0][0] != sre_c.LITERAL:
        return False
    sep = chr(items[0][1])
    if sep.isalnum() or sep == "_":
        return False  # letters and digits meet case-insensitive flags and \w: not worth the risk
    return all(_cannot_match(item, sep) for item in items[1:])


def _cannot_match(item: Any, ch: str) -> bool:
    """Whether ``item`` (a parsed pattern node) surely never consumes ``ch``."""
    op, arg = item
    if op == sre_c.LITERAL:
        return chr(arg) != ch
    if op == sre_c.AT:
        return True
    if op == sre_c.IN:
        return all(_set_misses(kind, value, ch) for kind, value in arg)
    if op == sre_c.SUBPATTERN:
        return all(_cannot_match(i, ch) for i in arg[-1])
    if op in _REPEATS:
        return all(_cannot_match(i, ch) for i in arg[2])
    if op == sre_c.BRANCH:
        return all(_cannot_match(i, ch) for branch in arg[1] for i in branch)
    return False  # ANY, NOT_LITERAL, back-references, lookarounds: assume they can


def _set_misses(kind: Any, value: Any, ch: str) -> bool:
    if kind == sre_c.LITERAL:
        return chr(value) != ch
    if kind == sre_c.RANGE:
        return not value[0] <= ord(ch) <= value[1]
    if kind == sre_c.CATEGORY:
        return value in (sre_c.CATEGORY_DIGIT, sre_c.CATEGORY_WORD) or (
            value == sre_c.CATEGORY_SPACE and not ch.isspace()) or (
            value == sre_c.CATEGORY_NOT_SPACE and ch.isspace())
    return False


def _overlapping_alternatives(items: list[Any]) -> bool:
    """Whether the body holds a branch (Python's parser has already merged one-character
    alternatives into a class and factored out common prefixes) whose alternatives can start
    with the same character, or one of which can match nothing (``(a|ab)*`` becomes
    ``a(|b)``)."""
    while len(items) == 1 and items[0][0] == sre_c.SUBPATTERN:
        items = list(items[0][1][-1])
    for op, arg in items:
        if op != sre_c.BRANCH:
            continue
        firsts = [_first(list(b)) for b in arg[1]]
        if any(f is None for f in firsts):
            return True
        for i, a in enumerate(firsts):
            for b in firsts[i + 1:]:
                if a and b and a & b:
                    return True
    return False


def _first(items: list[Any]) -> set[int] | None:
    """The code points a sequence can start with (None: too many to list, or it can be empty)."""
    if not items:
        return None
    op, arg = items[0]
    if op == sre_c.LITERAL:
        return {arg}
    if op == sre_c.SUBPATTERN:
        return _first(list(arg[-1]))
    if op == sre_c.IN:
        out: set[int] = set()
        for kind, value in arg:
            if kind == sre_c.LITERAL:
                out.add(value)
            elif kind == sre_c.RANGE and value[1] - value[0] < 512:
                out.update(range(value[0], value[1] + 1))
            else:
                return None  # a category (\w, \d), a negation, a wide range: assume overlap
        return out
    if op in _REPEATS and arg[0] >= 1:
        return _first(list(arg[2]))
    return None
