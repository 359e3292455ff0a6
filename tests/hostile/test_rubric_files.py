"""Hostile rubric files: each case is one line per problem ``FILE:LINE: rule: message``, never a
traceback, never a silent surprise — and each names what happened before the guard existed.

A case is (what it proves, the YAML, the expected (rule, line) problems, how it failed unguarded).
The "unguarded" column is checked too where plain PyYAML or plain Python shows it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import regex
import yaml

from rubrics.errors import RubricError, RubricProblems
from rubrics.loader import load_rubric_file, load_rubric_text
from rubrics.methods.base import JudgeItem
from rubrics.methods.deterministic import score_deterministic
from rubrics.schema import Anchor, Dimension, Scale
from tests.cli import run_cli
from tests.hostile.harness import unguarded_raises, unguarded_true

GOOD = """\
id: hostile
version: 1.0.0
name: Hostile
scale: {min: 1, max: 5}
judge: {correction_examples: 2}
review: {pairwise: false, safety_signoffs: 2}
dimensions:
  - id: accuracy
    description: The facts in the output are correct.
    method: llm_judge
    weight: 0.6
    threshold: 70
    anchors:
      - {range: [1, 2], label: wrong}
      - {range: [3, 5], label: right}
  - id: format
    description: The reply follows the required layout.
    method: deterministic
    weight: 0.4
    threshold: 70
    rule:
      max_words: 200
      regex_must: ['^Answer:']
    anchors:
      - {range: [1, 2], label: unformatted}
      - {range: [3, 5], label: formatted}
owner: tests
"""


def edit(old: str, new: str) -> str:
    assert old in GOOD, old
    return GOOD.replace(old, new, 1)


def problems(text: str) -> list[tuple[str, int | None]]:
    """(rule, line) of every problem the loader reports; [] when the rubric loads."""
    try:
        load_rubric_text(text, "r.yaml")
    except RubricProblems as exc:
        return [(p.rule, p.line) for p in exc.problems]
    except RubricError as exc:
        return [(exc.rule, exc.line)]
    return []


def _safe_load(text: str) -> Any:
    return yaml.safe_load(text)




# (case id, what it proves, YAML, expected problems, what the unguarded path did)
CASES: list[tuple[str, str, str, list[tuple[str, int]], Callable[[], None]]] = [
    ("duplicate-top-key", "a key given twice is refused, not last-wins",
     edit("version: 1.0.0\n", "version: 1.0.0\nversion: 9.0.0\n"), [("duplicate-key", 3)],
     unguarded_true(_safe_load(edit("version: 1.0.0\n", "version: 1.0.0\nversion: 9.0.0\n"))["version"] == "9.0.0")),
    ("duplicate-dimension-key", "a weight given twice inside a dimension is refused",
     edit("    weight: 0.6\n", "    weight: 0.6\n    weight: 0.9\n"), [("duplicate-key", 12)],
     unguarded_true(_safe_load(edit("    weight: 0.6\n", "    weight: 0.6\n    weight: 0.9\n"))["dimensions"][0]["weight"] == 0.9)),
    ("duplicate-rule-key", "a rule key given twice is refused",
     edit("      max_words: 200\n", "      max_words: 200\n      max_words: 2\n"), [("duplicate-key", 23)],
     unguarded_true(_safe_load(edit("      max_words: 200\n", "      max_words: 200\n      max_words: 2\n"))
           ["dimensions"][1]["rule"]["max_words"] == 2)),
    ("tag-int-abc", "!!int abc is one line, not a ValueError traceback",
     edit("version: 1.0.0", "version: !!int abc"), [("yaml-tag", 2)],
     unguarded_raises(ValueError, lambda: _safe_load("version: !!int abc"))),
    ("tag-python-object", "a !!python/ tag is refused by name",
     edit("name: Hostile", "name: !!python/object/apply:os.system ['true']"), [("yaml-tag", 3)],
     unguarded_raises(yaml.YAMLError, lambda: _safe_load("name: !!python/object/apply:os.system ['true']"))),
    ("tag-custom", "a custom !tag is refused",
     edit("name: Hostile", "name: !secret x"), [("yaml-tag", 3)],
     unguarded_raises(yaml.YAMLError, lambda: _safe_load("name: !secret x"))),
    ("tag-on-mapping", "a tag on a mapping is refused too",
     edit("scale: {min: 1, max: 5}", "scale: !!map {min: 1, max: 5}"), [("yaml-tag", 4)],
     unguarded_true(_safe_load("scale: !!map {min: 1, max: 5}") == {"scale": {"min": 1, "max": 5}})),
    ("key-reads-as-bool", "an unquoted yes: key (YAML's true) is refused, not stored as 'True'",
     edit("    weight: 0.6\n", "    weight: 0.6\n    yes: 1\n"), [("wrong-type", 12)],
     unguarded_true(True in _safe_load("yes: 1"))),
    ("key-reads-as-null", "a ~: key (null) is refused",
     edit("name: Hostile", "name: Hostile\n~: x"), [("wrong-type", 4)],
     unguarded_true(None in _safe_load("~: x"))),
    ("correction-examples-word", "correction_examples: many is wrong-type, not int('many')",
     edit("correction_examples: 2", "correction_examples: many"), [("wrong-type", 5)],
     unguarded_raises(ValueError, lambda: int("many"))),
    ("correction-examples-fraction", "correction_examples: 2.7 is refused, not cut to 2",
     edit("correction_examples: 2", "correction_examples: 2.7"), [("wrong-type", 5)],
     unguarded_true(int(2.7) == 2)),
    ("correction-examples-huge", "correction_examples beyond the ceiling is refused",
     edit("correction_examples: 2", "correction_examples: 100000"), [("wrong-type", 5)],
     unguarded_true(100000 == 100000)),
    ("pairwise-quoted-no", "pairwise: 'no' is refused, not read as true",
     edit("pairwise: false", "pairwise: 'no'"), [("wrong-type", 6)],
     unguarded_true(bool("no") is True)),
    ("pairwise-number", "pairwise: 1 is refused (true or false only)",
     edit("pairwise: false", "pairwise: 1"), [("wrong-type", 6)],
     unguarded_true(bool(1) is True)),
    ("signoffs-zero", "safety_signoffs: 0 is refused (a clearance needing nobody)",
     edit("safety_signoffs: 2", "safety_signoffs: 0"), [("wrong-type", 6)],
     unguarded_true(0 == 0)),
    ("signoffs-text", "safety_signoffs: '2' is refused, not cast",
     edit("safety_signoffs: 2", "safety_signoffs: '2'"), [("wrong-type", 6)],
     unguarded_true(int("2") == 2)),
    ("samples-huge", "samples: 1000000 (a million calls per item) is refused",
     edit("    threshold: 70\n", "    threshold: 70\n    samples: 1000000\n", ), [("wrong-type", 13)],
     unguarded_true(True)),
    ("scale-huge", "a 0–10^12 scale is refused before a trillion levels are listed",
     edit("scale: {min: 1, max: 5}", "scale: {min: 0, max: 1000000000000}"), [("scale", 4)],
     unguarded_true(len(range(0, 10**12 + 1)) > 10**11)),
    ("scale-many-levels", "a levels list of 500 is refused",
     edit("scale: {min: 1, max: 5}", "scale: {min: 1, max: 500, levels: [" + ", ".join(map(str, range(1, 501))) + "]}"),
     [("scale", 4)], unguarded_true(True)),
    ("scale-nan-level", "a .nan level is refused",
     edit("scale: {min: 1, max: 5}", "scale: {min: 1, max: 5, levels: [1, .nan, 5]}"), [("wrong-type", 4)],
     unguarded_true(_safe_load("x: .nan")["x"] != _safe_load("x: .nan")["x"])),
    ("rule-unknown-key", "an unknown rule key is refused at save time (it failed every item at judge time)",
     edit("      max_words: 200", "      max_word: 200"), [("rule-key", 22)],
     lambda: _assert_judge_time_error({"max_word": 200})),
    ("rule-count-text", "max_words: abc is refused (a TypeError at judge time before)",
     edit("      max_words: 200", "      max_words: abc"), [("rule-type", 22)],
     unguarded_raises(TypeError, lambda: 3 <= "abc")),  # type: ignore[operator]  # on purpose: the unguarded comparison
    ("rule-count-negative", "max_words: -1 is refused",
     edit("      max_words: 200", "      max_words: -1"), [("rule-type", 22)], unguarded_true(True)),
    ("rule-phrases-number", "required_phrases: 5 is refused, not checked as the text '5'",
     edit("      max_words: 200", "      required_phrases: 5"), [("rule-type", 22)], unguarded_true(str(5) == "5")),
    ("rule-json-text", "json: 'yes' is refused (true or false)",
     edit("      max_words: 200", "      json: 'yes'"), [("rule-type", 22)], unguarded_true(bool("yes"))),
    ("rule-schema-invalid", "a json_schema that is not a JSON Schema is refused",
     edit("      max_words: 200", "      json_schema: {type: 5}"), [("rule-type", 22)], unguarded_true(True)),
    ("regex-does-not-compile", "a regex that does not compile is refused at save time",
     edit("['^Answer:']", "['(unclosed']"), [("regex", 23)],
     unguarded_raises(regex.error, lambda: regex.compile("(unclosed"))),
    ("regex-nested-quantifier", "(a+)+ is refused: catastrophic backtracking",
     edit("['^Answer:']", "['^(a+)+$']"), [("regex-backtracking", 23)],
     lambda: _assert_exponential_in_re("^(a+)+$")),
    ("regex-overlapping-alternation", "(a|ab)*c is refused: alternatives that match the same text",
     edit("['^Answer:']", "['^(a|ab)*c$']"), [("regex-backtracking", 23)],
     lambda: _assert_times_out("^(a|aa)+$", "a" * 60 + "!")),
    ("regex-nested-in-group", "(x\\w*\\s?)* is refused",
     edit("['^Answer:']", "['(x\\w*\\s?)*$']"), [("regex-backtracking", 23)], unguarded_true(True)),
    ("regex-second-of-list", "the bad pattern of a list is named at its own line",
     edit("      regex_must: ['^Answer:']", "      regex_must:\n        - '^Answer:'\n        - '(b+)*$'"),
     [("regex-backtracking", 25)], unguarded_true(True)),
    ("anchor-example-mapping", "an anchor example that is a mapping is refused, not stored",
     edit("      - {range: [1, 2], label: wrong}", "      - {range: [1, 2], label: wrong, example: {a: 1}}"),
     [("wrong-type", 14)], unguarded_true(True)),
    ("metric-level-list", "metric_level: [item] is refused",
     edit("    threshold: 70\n", "    threshold: 70\n    metric_level: [item]\n"), [("wrong-type", 13)], unguarded_true(True)),
    ("version-date", "version: 2024-01-01 (YAML reads a date) is refused",
     edit("version: 1.0.0", "version: 2024-01-01"), [("wrong-type", 2)],
     unguarded_true(not isinstance(_safe_load("v: 2024-01-01")["v"], str))),
    ("id-list", "id: [a, b] is refused",
     edit("id: hostile", "id: [a, b]"), [("wrong-type", 1)], unguarded_true(True)),
    ("two-unknown-keys", "both unknown keys of one dimension are reported",
     edit("    weight: 0.6\n", "    weigth: 0.6\n    treshold: 70\n"),
     [("unknown-key", 11), ("unknown-key", 12)], unguarded_true(True)),
    ("broken-scale-no-cascade", "a broken top scale is one line, not one per dimension",
     edit("scale: {min: 1, max: 5}", "scale: {min: 5, max: 1}"), [("scale", 4)], unguarded_true(True)),
    ("deep-nesting", "a 5000-deep list is one yaml-syntax line, not a RecursionError",
     GOOD + "description: " + "[" * 5000 + "]" * 5000 + "\n", [("yaml-syntax", None)],  # type: ignore[list-item]  # None: no line to expect
     unguarded_true(True)),
]

ALL_AT_ONCE = edit("pairwise: false", "pairwise: 'no'").replace(
    "      max_words: 200", "      max_word: 200").replace("['^Answer:']", "['(a+)+']").replace(
    "version: 1.0.0\n", "version: 1.0.0\nversion: 2.0.0\n")


def _assert_judge_time_error(rule: dict[str, Any]) -> None:
    """Without the save-time check, the rule only failed when scoring, on every item."""
    dim = Dimension(id="f", name="F", description="d", method="deterministic", weight=1, threshold=50,
                    scale=Scale(1, 5), anchors=(Anchor(1, 5, "x"),), rule=rule)
    result = score_deterministic(JudgeItem(id="a", output="Answer: yes"), dim)
    assert result.error is not None and "rule cannot be checked" in result.error


def _assert_exponential_in_re(pattern: str) -> None:
    """Plain ``re`` (no time limit) takes time that doubles with each character: 8 more
    characters, far more than 8 times the time — a 40-character output would hang the judge."""
    import re

    def seconds(n: int) -> float:
        started = time.perf_counter()
        assert re.search(pattern, "a" * n + "!") is None
        return time.perf_counter() - started

    small = min(seconds(12) for _ in range(5))  # the least of several: a busy machine adds noise
    assert min(seconds(20) for _ in range(2)) > 10 * max(small, 1e-4)


def _assert_times_out(pattern: str, text: str) -> None:
    """The pattern really backtracks: the time-limited engine gives up (plain ``re`` would not)."""
    started = time.perf_counter()
    with pytest.raises(TimeoutError):
        regex.search(pattern, text, timeout=0.2)
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_hostile_rubric(case: tuple[str, str, str, list[tuple[str, int]], Callable[[], None]]) -> None:
    _, proves, text, expected, unguarded = case
    assert problems(text) == expected, proves
    unguarded()


def test_the_good_rubric_loads() -> None:
    """The base of every case is valid: each case's problem is its edit alone."""
    rubric = load_rubric_text(GOOD, "r.yaml")
    assert rubric.review.safety_signoffs == 2 and rubric.review.pairwise is False
    assert rubric.judge.correction_examples == 2


@pytest.mark.parametrize("pattern", [r"(\d+\.){3}\d+", r"(?i)\b(book|appointment|cancel)\b", r"(foo|bar)+",
                                     r"^[A-Z][a-z]+(, [A-Z][a-z]+)*$", r"\w+@\w+\.com"])
def test_ordinary_patterns_pass_the_backtracking_guard(pattern: str) -> None:
    """The guard is not a ban on repeats: common safe shapes load."""
    assert problems(edit("['^Answer:']", f"['{pattern}']")) == []


def test_every_problem_is_reported_at_once() -> None:
    """Four independent problems, four lines in file order (the old loader stopped at the first)."""
    found = problems(ALL_AT_ONCE)
    assert found == [("duplicate-key", 3), ("wrong-type", 7), ("rule-key", 23), ("regex-backtracking", 24)]


def test_validate_prints_one_line_per_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "many.yaml"
    path.write_text(ALL_AT_ONCE)
    code, _, err = run_cli(["rubric", "validate", str(path)], capsys)
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 4 and "Traceback" not in err
    assert all(line.startswith(f"error: {path}:") for line in lines)
    assert [line.split(": ")[2] for line in lines] == ["duplicate-key", "wrong-type", "rule-key", "regex-backtracking"]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_refused_without_reading_it_all() -> None:
    """/dev/zero reports size 0 and never ends: the read stops at 1 MB (it ran out of memory)."""
    assert os.stat("/dev/zero").st_size == 0  # so a size check alone let it through
    started = time.perf_counter()
    with pytest.raises(RubricError, match="file-too-large"):
        load_rubric_file("/dev/zero")
    assert time.perf_counter() - started < 5


def test_runtime_regex_limit_fails_the_item_not_the_run() -> None:
    """A backtracking pattern that got past the save-time guard (e.g. stored before it) is that
    item's recorded error after the time limit, never a hang."""
    dim = Dimension(id="f", name="F", description="d", method="deterministic", weight=1, threshold=50,
                    scale=Scale(1, 5), anchors=(Anchor(1, 5, "x"),), rule={"regex_must": ["^(a|aa)+$"]})
    started = time.perf_counter()
    result = score_deterministic(JudgeItem(id="a", output="a" * 60 + "!"), dim)
    assert result.error is not None and "ran past" in result.error
    assert time.perf_counter() - started < 10


# --- the store: versions only go up; what is stored is what was validated; hash on load -----

def _versioned(version: str, weight_a: str = "0.6", weight_b: str = "0.4") -> str:
    return (GOOD.replace("version: 1.0.0", f"version: {version}")
            .replace("weight: 0.6", f"weight: {weight_a}").replace("weight: 0.4", f"weight: {weight_b}"))


def test_back_dated_version_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """1.0.0 then 2.0.0 then 1.5.0 with a weight change: refused (it used to skip the bump check,
    because only numbers above the latest were compared with it)."""
    db = str(tmp_path / "r.db")
    for version in ("1.0.0", "2.0.0"):
        path = tmp_path / f"{version}.yaml"
        path.write_text(_versioned(version))
        assert run_cli(["rubric", "add", str(path), "--db", db], capsys)[0] == 0
    back = tmp_path / "back.yaml"
    back.write_text(_versioned("1.5.0", "0.3", "0.7"))
    code, _, err = run_cli(["rubric", "add", str(back), "--db", db], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "1.5.0 of hostile is not above the latest registered version 2.0.0" in err


def test_stored_text_must_be_the_validated_text(tmp_path: Path) -> None:
    """add_rubric refuses a text other than the one the rubric came from (validate one read,
    store another)."""
    from reviewer.errors import UserError
    from reviewer.store import open_store

    store = open_store(str(tmp_path / "r.db"))
    rubric = load_rubric_text(GOOD, "r.yaml")
    with pytest.raises(UserError, match="not the text that was validated"):
        store.rubrics.add_rubric(rubric, _versioned("1.0.0", "0.5", "0.5"))
    assert store.rubrics.add_rubric(rubric, GOOD) is True


def test_a_version_edited_in_the_database_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A stored version whose text does not match its recorded hash is one line, never used."""
    import sqlite3

    db = tmp_path / "r.db"
    path = tmp_path / "r.yaml"
    path.write_text(GOOD)
    assert run_cli(["rubric", "add", str(path), "--db", str(db)], capsys)[0] == 0
    con = sqlite3.connect(db)
    (good_hash,) = con.execute("SELECT content_hash FROM rubric_version WHERE rubric_id='hostile'").fetchone()
    # a second version whose text says something else than the hash it was recorded with
    tampered = _versioned("1.1.0", "0.1", "0.9")
    con.execute("INSERT INTO rubric_version (rubric_id, version, content_hash, yaml_text, created_at) "
                "VALUES ('hostile', '1.1.0', ?, ?, CURRENT_TIMESTAMP)", (good_hash, tampered))
    con.commit()
    con.close()
    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "a", "output": "Answer: yes"}\n')
    code, _, err = run_cli(["import", str(items), "--rubric", "hostile@1.1.0", "--db", str(db)], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "hostile@1.1.0 (stored): its text does not match the content hash" in err


# --- the same on both stores (SQLite and PostgreSQL) -----------------------------------------

@pytest.fixture(params=["sqlite", "postgres"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    from reviewer.store import open_store
    from tests.store.conftest import pg_schema_url

    if request.param == "sqlite":
        yield open_store(str(tmp_path / "s.db"))
        return
    for url in pg_schema_url():
        store = open_store(url)
        yield store
        store.close()


def test_versions_only_go_up_on_each_store(any_store: Any) -> None:
    from reviewer.errors import UserError

    for version in ("1.0.0", "2.0.0"):
        text = _versioned(version)
        assert any_store.rubrics.add_rubric(load_rubric_text(text, "r.yaml"), text) is True
    back = _versioned("1.9.9", "0.5", "0.5")
    with pytest.raises(UserError, match="versions must increase"):
        any_store.rubrics.add_rubric(load_rubric_text(back, "r.yaml"), back)
    assert [v for _, v, _ in any_store.rubrics.list_rubrics()] == ["1.0.0", "2.0.0"]


def test_a_tampered_version_is_refused_on_each_store(any_store: Any) -> None:
    """A row whose text and recorded hash disagree (written around the application) is refused
    when loaded, on SQLite and PostgreSQL alike."""
    from sqlalchemy import insert, select
    from sqlmodel import col

    from reviewer.errors import UserError
    from reviewer.store.tables import RubricVersion

    assert any_store.rubrics.add_rubric(load_rubric_text(GOOD, "r.yaml"), GOOD) is True
    with any_store.db.engine.begin() as conn:
        good_hash = conn.execute(select(col(RubricVersion.content_hash))).scalar_one()
        conn.execute(insert(RubricVersion).values(rubric_id="hostile", version="1.1.0", content_hash=good_hash,
                                                  yaml_text=_versioned("1.1.0", "0.1", "0.9")))
    with pytest.raises(UserError, match=r"hostile@1.1.0 \(stored\): its text does not match"):
        any_store.rubrics.get_rubric("hostile@1.1.0")
    assert any_store.rubrics.get_rubric("hostile@1.0.0").judge.correction_examples == 2  # the honest one loads


def test_flexeval_import_refuses_a_duplicate_rubric_name() -> None:
    """Two FlexEval rubrics under one name: refused (plain YAML kept only the second)."""
    from rubrics.flexeval import import_flexeval

    text = ("is_polite:\n  prompt: Is it polite? {completion}\n  choice_scores: {'YES': 1, 'NO': 0}\n"
            "is_polite:\n  prompt: Is it rude? {completion}\n  choice_scores: {'YES': 0, 'NO': 1}\n")
    assert _safe_load(text)["is_polite"]["prompt"].startswith("Is it rude")
    with pytest.raises(RubricError, match="duplicate-key"):
        import_flexeval(text, "flex.yaml", owner="tests")


def test_a_stored_version_that_breaks_todays_rules_names_the_rule(any_store: Any) -> None:
    """A version stored before a rule existed (here: a backtracking regex, written around the
    checks) is refused with the rule it breaks, not used and not blamed on its hash."""
    from sqlalchemy import insert

    from reviewer.errors import UserError
    from reviewer.store.tables import RubricVersion

    old = _versioned("3.0.0").replace("['^Answer:']", "['^(a+)+$']")
    with any_store.db.engine.begin() as conn:
        conn.execute(insert(RubricVersion).values(rubric_id="hostile", version="3.0.0", content_hash="x" * 64,
                                                  yaml_text=old))
    with pytest.raises(UserError, match=r"hostile@3.0.0 \(stored\): does not pass the rubric rules "
                                        r"\(regex-backtracking"):
        any_store.rubrics.get_rubric("hostile@3.0.0")
