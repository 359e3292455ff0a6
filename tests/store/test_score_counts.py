"""The judge's score counts behind the corrected estimates' totals (:mod:`reviewer.store.score_counts`):
the same counts as the plain ``GROUP BY dimension, score`` on random data — scores on the scale's
levels, off them, on a dimension the expected list leaves out — on both backends; on SQLite the rows
on the expected levels are coded and counted without the database sorting them, and only the other
rows are grouped. And the numeric read's separator is written into its statement, not bound."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, event, func, insert, select
from sqlmodel import col

from reviewer.store import Store, open_store
from reviewer.store.numeric_read import read_numeric
from reviewer.store.score_counts import Counts, score_counts
from reviewer.store.tables import Item, JudgeRun, JudgeScore

DIMS = ("a", "b", "c")


def _fill(store: Store, rnd: random.Random, n: int, odd: float) -> int:
    """A run of ``n`` items' judge scores on DIMS (levels 1–5; a share ``odd`` of them off the
    levels, some NULL, some of a later turn); returns the run's key."""
    with store.db.write() as conn:
        run = JudgeRun(rubric_ref="r@1", model="m")
        conn.execute(insert(JudgeRun), [run.model_dump(exclude={"pk"})])
        run_pk = int(conn.execute(select(func.max(col(JudgeRun.pk)))).scalar_one())
        items = [Item(item_id=f"i{i}", dataset="d", rubric_ref="r@1", content_hash="h", revision=1, input="q",
                      output="o", context="", reference="").model_dump(exclude={"pk"}) for i in range(n)]
        conn.execute(insert(Item), items)
        pks = [int(p) for p in conn.execute(select(col(Item.pk)).order_by(col(Item.pk))).scalars()]
        rows = []
        for pk in pks:
            for d in DIMS:
                x = rnd.random()
                score = (None if x < 0.05 else round(1 + 4 * rnd.random(), 3) if x < 0.05 + odd
                         else float(rnd.randint(1, 5)))
                turn = 1 if rnd.random() < 0.05 else None
                rows.append(JudgeScore(run_pk=run_pk, item_pk=pk, dimension=d, method="llm_judge", score=score,
                                       rationale="", cost_usd=0.0, tokens_in=0, tokens_out=0, turn=turn,
                                       not_applicable=False).model_dump(exclude={"pk"}))
        conn.execute(insert(JudgeScore), rows)
    return run_pk


def _plain(conn: Connection, run_pk: int) -> dict[str, dict[float, int]]:
    """The rule: the database's GROUP BY of every row."""
    score = col(JudgeScore.score)
    q = (select(col(JudgeScore.dimension), score, func.count())
         .where(col(JudgeScore.run_pk) == run_pk, col(JudgeScore.turn).is_(None), score.is_not(None))
         .group_by(col(JudgeScore.dimension), score))
    out: dict[str, dict[float, int]] = {}
    for d, v, n in conn.execute(q):
        assert v is not None
        out.setdefault(d, {})[float(v)] = int(n)
    return out


def _as_dict(counts: Counts) -> dict[str, dict[float, int]]:
    out: dict[str, dict[float, int]] = {}
    for d, (values, ns) in counts.items():
        assert len(set(values)) == len(values), d  # each distinct score once
        out[d] = dict(zip(values, ns, strict=True))
    return out


@pytest.fixture
def statements(store: Store) -> Iterator[list[str]]:
    """Every statement the store's engine runs while the test does."""
    seen: list[str] = []

    def log(conn: object, cursor: object, statement: str, *rest: object) -> None:
        seen.append(statement)

    event.listen(store.db.engine, "before_cursor_execute", log)
    yield seen
    event.remove(store.db.engine, "before_cursor_execute", log)


def _counted(store: Store, statements: list[str], run_pk: int,
             expected: list[tuple[str, float]]) -> tuple[dict[str, dict[float, int]], list[str]]:
    """:func:`score_counts` of the run's top-level scores, checked against the plain GROUP BY,
    and the grouping statements it ran."""
    where = [col(JudgeScore.run_pk) == run_pk, col(JudgeScore.turn).is_(None), col(JudgeScore.score).is_not(None)]
    with store.db.read() as conn:
        want = _plain(conn, run_pk)
        statements.clear()
        got = _as_dict(score_counts(conn, where, expected))
    assert got == want
    return want, [s for s in statements if "GROUP BY" in s]


@pytest.mark.parametrize("odd", [0.0, 0.2])
def test_the_counts_are_the_plain_group_by_on_random_data(store: Store, statements: list[str], odd: float) -> None:
    run_pk = _fill(store, random.Random(int(odd * 10) + 3), 400, odd)
    # "c" is left out of the expected pairs, "b" lists a level no row has: both counted all the same
    expected = [(d, float(v)) for d in ("a", "b") for v in range(1, 6)] + [("b", 9.0), ("a", 1.0)]
    want, grouped = _counted(store, statements, run_pk, expected)
    assert sum(want["c"].values()) > 300
    assert len(grouped) == 1
    if store.db.dialect == "sqlite":  # every row coded; only the rows off the expected pairs grouped
        assert "= ?" in grouped[0].split("WHERE", 1)[1]


def test_rows_on_the_expected_levels_alone_are_never_sorted(store: Store, statements: list[str]) -> None:
    run_pk = _fill(store, random.Random(5), 300, 0.0)
    _, grouped = _counted(store, statements, run_pk, [(d, float(v)) for d in DIMS for v in range(1, 6)])
    assert (grouped == []) if store.db.dialect == "sqlite" else (len(grouped) == 1)


def test_the_numeric_reads_separator_is_written_into_the_statement(tmp_path: Path) -> None:
    """(SQLite's aggregated texts: elsewhere the rows are streamed.)"""
    store = open_store(str(tmp_path / "s.db"))
    statements: list[str] = []
    event.listen(store.db.engine, "before_cursor_execute", lambda c, cur, statement, *rest: statements.append(statement))
    _fill(store, random.Random(9), 50, 0.3)
    with store.db.read() as conn:
        statements.clear()
        cols = read_numeric(conn, col(JudgeScore.pk), [col(JudgeScore.turn).is_(None)], {"item": col(JudgeScore.item_pk)},
                            {"score": col(JudgeScore.score)})
        plain = conn.execute(select(col(JudgeScore.pk), col(JudgeScore.item_pk), col(JudgeScore.score))
                             .where(col(JudgeScore.turn).is_(None)).order_by(col(JudgeScore.pk))).all()
    assert cols["pk"].tolist() == [r[0] for r in plain]
    assert cols["item"].tolist() == [r[1] for r in plain]
    assert [None if s != s else s for s in cols["score"].tolist()] == [r[2] for r in plain]
    store.close()
    concat = [s for s in statements if "group_concat" in s]
    assert concat and all("group_concat(judge_score.pk, ' ')" in s for s in concat), concat


def test_more_expected_scores_than_the_bound_are_refused_where_the_case_is_made(store: Store) -> None:
    """Each expected score is a CASE branch on every row: past EXPECTED_LEVELS for a dimension the
    coding refuses in one line, and a rubric's own list (expected_scores) never lists that many."""
    from reviewer.store.score_counts import EXPECTED_LEVELS, expected_scores
    from rubrics.loader import load_rubric_text

    many = [("a", float(v)) for v in range(EXPECTED_LEVELS + 1)]
    with store.db.read() as conn:
        if store.db.dialect == "sqlite":
            with pytest.raises(ValueError, match=f"at most {EXPECTED_LEVELS} expected scores"):
                score_counts(conn, [col(JudgeScore.score).is_not(None)], many)
        else:  # (the database groups every row: no CASE is made)
            assert score_counts(conn, [col(JudgeScore.score).is_not(None)], many) == {}
    wide = load_rubric_text(WIDE)
    assert {d for d, _ in expected_scores(wide.dimensions)} == {"narrow"}


WIDE = """\
id: wide
version: 1.0.0
name: Wide
owner: tests
description: One scale of five levels, one of a hundred and one.
scale: {min: 1, max: 5}
dimensions:
  - {id: narrow, name: Narrow, description: Five levels., method: llm_judge, weight: 0.5, threshold: 60,
     anchors: [{range: [1, 5], label: All}]}
  - {id: wide, name: Wide, description: A hundred and one levels., method: llm_judge, weight: 0.5, threshold: 60,
     scale: {min: 0, max: 100}, anchors: [{range: [0, 100], label: All}]}
"""
