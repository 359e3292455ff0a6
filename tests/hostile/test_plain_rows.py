"""The common-row check (:mod:`reviewer.io.plainrow`) gives what the full check gives, or nothing.

Every row here goes through both :class:`PlainCheck` and :func:`check_row`. Where the full check
refuses a row, the common-row check must decline it (None: the caller hands it to the full check,
which words the problem); where it accepts it, the two rows must be equal. And the store's batches
made from the common-row check's rows must equal those made from the full check's. The rows the
common-row check must decline are named: each was seen accepted (and the test failing) when the
check it stands for was taken out of :mod:`reviewer.io.plainrow` — e.g. ``True`` as a score with
``int`` and ``bool`` both taken for whole numbers, ``-0.0`` after ``0`` with floats taken.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewer.domain.records import PlainHuman, PlainJudge, Row
from reviewer.io.plainrow import PlainCheck
from reviewer.io.rowcheck import RubricScales, check_row
from reviewer.store.import_batches import build_batches
from rubrics.schema import Rubric
from tests.hostile.plain_rows import rubric


def row(i: int, judge: Any = None, human: Any = None, **extra: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"id": f"i{i}", "input": "q", "output": f"answer {i}", **extra}
    if judge is not None:
        obj["judge"] = {"model": "m", "scores": judge}
    if human is not None:
        obj["human"] = human
    return obj


def person(who: str, **scores: Any) -> dict[str, Any]:
    return {"reviewer": who, "scores": scores}


#: Rows the common-row check takes: judge and people's whole-number scores in every arrangement.
TAKEN = [
    row(1, {"accuracy": 3, "clarity": 4, "safe": 1}),
    row(2, {"accuracy": 3, "clarity": 4, "safe": 0}, [person("ana", accuracy=3, clarity=4, safe=1),
                                                      person("bo", accuracy=2, clarity=5, safe=0)], audit=True),
    row(3, {"safe": 0, "accuracy": 1}, [person("ana", clarity=2), person("bo", accuracy=5, safe=1)]),  # other dims
    row(4, {"accuracy": 5}, [person("ana", accuracy=4), person("ana", accuracy=2)]),  # one person twice
    row(10, {"accuracy": 5}, [person("ana", accuracy=4, clarity=1, safe=0)] * 2),  # one complete review, twice
    row(5, None, [person("cy", accuracy=1, clarity=1, safe=0)], audit=False),  # no judge
    row(6, {}),  # a judge with no scores
    {"id": "i7", "output": "no input"},
    row(8, {"accuracy": 3, "clarity": 4, "safe": 1}, []),
    {"id": "i9", "output": "model-less", "judge": {"scores": {"accuracy": 2}}},
]
#: Rows it must hand to the full check (accepted or refused there), and why.
DECLINED = {
    "bool score (the full check refuses it)": row(20, {"accuracy": True}),
    "bool human score": row(21, {"accuracy": 3}, [person("ana", safe=True)]),
    "float score (True, 1 and 1.0 are one dict key)": row(22, {"accuracy": 3.0}),
    "-0.0 (kept apart from 0 by the full check)": row(23, {"safe": -0.0}),
    "off the scale": row(24, {"accuracy": 6}),
    "human off the scale": row(25, None, [person("ana", accuracy=0)]),
    "unknown dimension": row(26, {"fluency": 3}),
    "a label": row(27, {"safe": "Yes"}),
    "an object score": row(28, {"accuracy": {"score": 3, "rationale": "ok"}}),
    "a judge error": row(29, {"accuracy": {"error": "timeout"}}),
    "a blind entry": row(30, None, [{"reviewer": "ana", "scores": {"accuracy": 3}, "blind": True}]),
    "an aggregate entry": row(31, None, [{"reviewer": "ana", "scores": {"accuracy": 3}, "aggregate": True}]),
    "a reason": row(32, None, [person("ana", accuracy={"score": 3, "reason": "why"})]),
    "no scores in an entry": row(33, None, [person("ana")]),
    "reviewer with an edge space": row(34, None, [person("ana ", accuracy=3)]),
    "reviewer not text": row(35, None, [{"reviewer": 7, "scores": {"accuracy": 3}}]),
    "judge model with a control character": {"id": "i36", "output": "x",
                                             "judge": {"model": "m\x07", "scores": {"accuracy": 3}}},
    "judge with another field": {"id": "i37", "output": "x", "judge": {"model": "m", "scores": {}, "run": 1}},
    "id with a newline": {"id": "i38\n", "output": "x"},
    "id a number": {"id": 39, "output": "x"},
    "input a number": {"id": "i40", "input": 5, "output": "x"},
    "no output": {"id": "i41", "input": "q"},
    "audit as text": row(42, audit="true"),
    "audit null": row(43, audit=None),
    "metadata": row(44, metadata={"k": 1}),
    "gold": row(45, gold={"accuracy": 3}),
    "human not a list": row(46, None, {"ana": 3}),
    "entry not an object": row(47, None, ["ana"]),
}

#: The declined rows the full check refuses (each with its line); it takes the others.
REFUSED = {"bool score (the full check refuses it)", "bool human score", "off the scale", "human off the scale",
           "unknown dimension", "reviewer with an edge space", "reviewer not text",
           "judge model with a control character", "id with a newline", "no output", "human not a list",
           "entry not an object"}


def full(r: Rubric, n: int, obj: dict[str, Any]) -> tuple[Row | None, list[str]]:
    errs: list[str] = []
    return check_row(r, n, obj, errs, "items.jsonl", RubricScales.of(r)), errs


def test_taken_rows_equal_the_full_checks() -> None:
    r = rubric()
    plain = PlainCheck(RubricScales.of(r))
    for n, obj in enumerate(TAKEN * 2, start=1):  # twice: the second time from what it remembers
        fast = plain.row(n, obj)
        slow, errs = full(r, n, obj)
        assert fast is not None and slow is not None and not errs, obj
        assert type(fast.judge) is PlainJudge and type(fast.human) is PlainHuman
        assert fast == slow, obj
        assert list(fast.human) == list(slow.human) and list(fast.judge.items()) == list(slow.judge.items())


@pytest.mark.parametrize("why", sorted(DECLINED))
def test_other_rows_go_to_the_full_check(why: str) -> None:
    r = rubric()
    plain = PlainCheck(RubricScales.of(r))
    obj = DECLINED[why]
    for seen in TAKEN:  # what it remembers of other rows must not answer for this one
        plain.row(1, seen)
    assert plain.row(99, obj) is None, why
    slow, errs = full(r, 99, obj)
    if why in REFUSED:  # refused with its line, nothing taken
        assert slow is None and errs and all(e.startswith("items.jsonl:99: ") for e in errs), (why, errs)
    else:  # taken by the full check, with no complaint
        assert slow is not None and errs == [], (why, errs)


def test_a_zero_remembered_does_not_answer_for_minus_zero() -> None:
    r = rubric()
    plain = PlainCheck(RubricScales.of(r))
    assert plain.row(1, row(1, {"safe": 0})) is not None
    assert plain.row(2, row(2, {"safe": -0.0})) is None
    slow, _ = full(r, 2, row(2, {"safe": -0.0}))
    assert slow is not None and str(slow.judge["safe"].score) == "-0.0"


class Rows:
    """An item source of rows already checked."""

    def __init__(self, rows: list[Row]) -> None:
        self.rows_ = rows
        self.path = Path("items.jsonl")

    def rows(self, rubric: Rubric, errs: list[str]) -> Iterator[Row]:
        return iter(self.rows_)

    def count_lines(self) -> int:
        return len(self.rows_)


def test_the_batches_equal_the_full_checks() -> None:
    """The store's fast handling of plain rows (remembered overalls, gaps and complete reviews,
    score rows made in bulk) writes what it writes for the full check's rows, in the same order —
    with a human score that has a reason in the middle, after which a batch holds full rows."""
    r = rubric()
    objs = [*TAKEN, row(50, {"accuracy": 2}, [person("ana", accuracy={"score": 3, "reason": "why"})]),
            *[{**o, "id": f"again-{o['id']}"} for o in TAKEN],
            *[row(60 + k, {"accuracy": 1 + k % 5, "clarity": 2, "safe": k % 2},
                  [person(f"p{k % 3}", accuracy=1 + k % 5, clarity=3, safe=1), person("zed", accuracy=2, clarity=2, safe=0)])
              for k in range(40)]]
    got, want, _ = _batches(r, objs)
    assert got == want
    assert got[0]["human"] and got[0]["human_plain"] == []  # the reason turned the batch to full rows


def test_plain_judge_scores_kept_by_column_make_the_same_rows() -> None:
    """A batch whose rows all give plain judge scores on the same dimensions keeps them by column
    (a set of scores per row); the writer's rows made from those equal the full check's."""
    r = rubric()
    objs = [row(k, {"accuracy": 1 + k % 5, "clarity": 1 + k % 3, "safe": k % 2}) for k in range(50)]
    got, want, columns = _batches(r, objs)
    assert columns == [50]  # every row's judge scores went by column
    assert got == want
    assert [p for p, *_ in got[0]["judge_plain"][("m", "clarity")]] == list(range(1, 51))


def _batches(r: Rubric, objs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[int]]:
    """The batches of ``objs`` read by the common-row check, by the full check, and how many rows
    of each of the first's batches kept their judge scores by column."""
    plain = PlainCheck(RubricScales.of(r))
    fast = [plain.row(n, o) or full(r, n, o)[0] for n, o in enumerate(objs, start=1)]
    slow = [full(r, n, o)[0] for n, o in enumerate(objs, start=1)]
    assert all(x is not None for x in fast + slow)
    assert sum(type(x.judge) is PlainJudge for x in fast if x) > 40
    columns: list[int] = []

    def batches(rows: list[Any], count: bool) -> list[dict[str, Any]]:
        counter = [1]

        def reserve(n: int) -> list[int]:
            counter[0] += n
            return list(range(counter[0] - n, counter[0]))

        out = []
        for b in build_batches(Rows(rows), r, [], reserve):
            if count:
                columns.append(len(b.judge_pks))
            b.judge_rows()  # the plain judge scores kept by column, as the writer takes them
            out.append(b.wire())
        return out

    return batches(fast, True), batches(slow, False), columns
