"""The deterministic method: every rule key, all-or-nothing and partial credit."""

from __future__ import annotations

import pytest

from rubrics.methods.deterministic import score_deterministic
from rubrics.schema import Scale
from tests.judge.helpers import dim, item

TEN = Scale(1, 10)
TEXT = "# Summary\nThe refund window is 14 days.\n\n**Next steps:**\nEmail support."


def score(rule: dict[str, object], text: str = TEXT, scale: Scale = TEN) -> float | None:
    return score_deterministic(item(output=text), dim(method="deterministic", rule=rule, scale=scale)).score


@pytest.mark.parametrize(
    ("rule", "passes"),
    [
        ({"max_words": 20}, True), ({"max_words": 5}, False),
        ({"min_words": 5}, True), ({"min_words": 50}, False),
        ({"max_chars": 200}, True), ({"max_chars": 10}, False),
        ({"min_chars": 10}, True), ({"min_chars": 1000}, False),
        ({"required_phrases": ["refund WINDOW"]}, True), ({"required_phrases": ["warranty"]}, False),
        ({"banned_phrases": ["as an AI"]}, True), ({"banned_phrases": ["14 DAYS"]}, False),
        ({"regex_must": [r"\b\d+ days\b"]}, True), ({"regex_must": r"^Dear"}, False),
        ({"regex_must_not": [r"guarantee"]}, True), ({"regex_must_not": [r"Email"]}, False),
        ({"sections": ["Summary", "Next steps"]}, True), ({"sections": ["Risks"]}, False),
    ],
)
def test_each_rule_passes_and_fails(rule: dict[str, object], passes: bool) -> None:
    assert score(rule) == (10 if passes else 1)


def test_json_and_json_schema() -> None:
    schema = {"type": "object", "required": ["answer"], "properties": {"answer": {"type": "string"}}}
    assert score({"json": True}, '{"answer": "yes"}') == 10
    assert score({"json": True}, "```json\n{\"answer\": 1}\n```") == 10
    assert score({"json": True}, "{answer: yes}") == 1
    assert score({"json_schema": schema}, '{"answer": "yes"}') == 10
    r = score_deterministic(item(output='{"answer": 3}'), dim(method="deterministic",
                                                             rule={"json_schema": schema}))
    assert r.score == 1 and "answer" in r.evidence[0]["detail"]


def test_partial_credit_maps_the_passed_share_onto_the_scale() -> None:
    rule = {"required_phrases": ["refund", "warranty"], "max_words": 100, "partial_credit": True}
    r = score_deterministic(item(output=TEXT), dim(method="deterministic", rule=rule, scale=Scale(1, 5)))
    assert r.score == pytest.approx(1 + 4 * 2 / 3)
    assert [e["passed"] for e in r.evidence] == [True, False, True]
    assert "missing 'warranty'" in r.rationale


def test_a_bad_rule_is_an_error_not_a_score() -> None:
    r = score_deterministic(item(), dim(method="deterministic", rule={"max_wrds": 3}))
    assert r.score is None and r.error is not None and "max_wrds" in r.error
    bad_regex = score_deterministic(item(), dim(method="deterministic", rule={"regex_must": "("}))
    assert bad_regex.score is None and bad_regex.error is not None
