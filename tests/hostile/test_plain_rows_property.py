"""Generated rows through both checks of a row: the common-row check
(:class:`reviewer.io.plainrow.PlainCheck`) and the full check (:func:`reviewer.io.rowcheck.check_row`)
read one rule table (:class:`RubricScales`'s ``judge_plain``/``human_plain``/``name_problem``).
Over any sequence of rows — numbers on and off the scales, floats, ``-0.0``, NaN, booleans,
labels, objects, unknown dimensions, bad names, extra fields — the common-row check gives the
full check's row or declines (None), and it declines every row the full check refuses; also with
the checks' memories of names past their bound."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.io.plainrow import PlainCheck
from reviewer.io.rowcheck import _MAX_NAMES, RubricScales, check_row
from tests.hostile.plain_rows import rubric

VALUES = st.one_of(st.integers(-1, 6), st.integers(-1, 6), st.sampled_from([-0.0, 0.0, 1.0, 2.5, 3.0, 5.0, 6.0]),
                   st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none(),
                   st.sampled_from(["Yes", "No", "Poor", "x"]),
                   st.fixed_dictionaries({"score": st.integers(0, 6)}, optional={"reason": st.just("why")}))
DIMS = st.sampled_from(["accuracy", "clarity", "safe", "fluency"])
SCORES = st.dictionaries(DIMS, VALUES, max_size=4)
NAMES = st.one_of(st.sampled_from(["ana", "bo", "ana ", "m\x07", "", "x" * 201]), st.integers(0, 3))
ENTRY = st.one_of(
    st.fixed_dictionaries({"reviewer": NAMES, "scores": SCORES}),
    st.fixed_dictionaries({"reviewer": NAMES, "scores": SCORES},
                          optional={"blind": st.one_of(st.booleans(), st.just(1)), "aggregate": st.booleans()}),
    st.just("ana"))
#: Rows of the common shape, a few of their scores off the scale or on no dimension of the rubric.
PLAIN_SCORES = st.dictionaries(st.sampled_from(["accuracy", "clarity", "safe", "fluency"]), st.integers(-1, 6),
                               max_size=3)
PLAIN_ROW = st.fixed_dictionaries(
    {"id": st.sampled_from(["a", "b", "c"]), "output": st.just("o")},
    optional={"input": st.just("q"),
              "judge": st.fixed_dictionaries({"scores": PLAIN_SCORES}, optional={"model": st.sampled_from(["m", "n"])}),
              "human": st.lists(st.fixed_dictionaries({"reviewer": st.sampled_from(["ana", "bo"]),
                                                       "scores": PLAIN_SCORES}), max_size=3),
              "audit": st.booleans()})
WILD_ROW = st.fixed_dictionaries(
    {"id": st.one_of(st.sampled_from(["a", "b", "c", "d\n", ""]), st.integers(0, 3)),
     "output": st.one_of(st.just("o"), st.integers(0, 1))},
    optional={"input": st.one_of(st.just("q"), st.integers(0, 1)),
              "judge": st.fixed_dictionaries({"scores": SCORES}, optional={"model": NAMES, "run": st.just(1)}),
              "human": st.one_of(st.lists(ENTRY, max_size=3), st.just({"ana": 3})),
              "audit": st.one_of(st.booleans(), st.none(), st.just("true")),
              "metadata": st.just({"k": 1})})
ROW = st.one_of(PLAIN_ROW, WILD_ROW)


def _full(scales: RubricScales, n: int, obj: dict[str, Any]) -> tuple[Any, list[str]]:
    errs: list[str] = []
    return check_row(scales_rubric, n, obj, errs, "items.jsonl", scales), errs


scales_rubric = rubric()


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(ROW, min_size=1, max_size=8))
def test_the_common_row_check_gives_the_full_checks_row_or_declines(rows: list[dict[str, Any]]) -> None:
    scales = RubricScales.of(scales_rubric)
    plain = PlainCheck(scales)
    for n, obj in enumerate(rows, start=1):
        fast = plain.row(n, obj)
        slow, errs = _full(RubricScales.of(scales_rubric), n, obj)  # a fresh memory: the rule alone
        again, _ = _full(scales, n, obj)  # and with what this file's check remembers
        assert (again is None) == (slow is None) and again == slow, obj
        if slow is None:
            assert errs and fast is None, obj
        elif fast is not None:
            assert fast == slow, obj
            assert list(fast.human) == list(slow.human) and list(fast.judge.items()) == list(slow.judge.items())


@pytest.mark.parametrize("names", [_MAX_NAMES - 1, _MAX_NAMES, _MAX_NAMES + 1, _MAX_NAMES + 5])
def test_names_past_the_remembered_bound_are_still_checked(names: int) -> None:
    """The checks remember at most ``_MAX_NAMES`` names; past that each name is checked anew:
    a bad name after the bound is refused by both, a good one taken by both."""
    scales = RubricScales.of(scales_rubric)
    plain = PlainCheck(scales)
    objs: list[dict[str, Any]] = [{"id": f"i{k}", "output": "o", "human": [{"reviewer": f"r{k}", "scores": {"accuracy": 3}}]}
                                  for k in range(names)]
    objs += [{"id": "bad", "output": "o", "human": [{"reviewer": "r\x07", "scores": {"accuracy": 3}}]},
             {"id": "good", "output": "o", "human": [{"reviewer": "zed", "scores": {"accuracy": 2}}]}]
    for n, obj in enumerate(objs, start=1):
        fast = plain.row(n, obj)
        slow, errs = _full(scales, n, obj)
        assert fast == slow
    assert len(scales.names) <= _MAX_NAMES
    assert plain.row(1, objs[-2]) is None and _full(scales, 1, objs[-2])[0] is None
    assert plain.row(1, objs[-1]) is not None
