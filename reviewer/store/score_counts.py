"""How many of each distinct (dimension, score) a set of judge score rows holds, at a million rows.

The counts are what the judge's totals over every item are summed from
(:func:`reviewer.domain.columns.score_sums`). A ``GROUP BY dimension, score`` gives them, but
SQLite (which has no hash aggregate) sorts every row first: ~0.5 s of CPU for a million scores.
The scores nearly always sit on the rubric's levels, so on SQLite each row is instead coded by
the database as the position of its (dimension, score) in a list of expected pairs (-1 for any
other), the codes are read as one column (:func:`reviewer.store.numeric_read.read_numeric`) and
counted by numpy; only the rows coded -1, if any, are grouped by the database, and their counts
join the rest. The counts are the same either way (a pair is counted in exactly one of the two);
other databases (PostgreSQL: a hash aggregate, no sort) group every row.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from sqlalchemy import ColumnElement, Connection, case, func, literal, select
from sqlmodel import col

from reviewer.store.numeric_read import read_numeric
from reviewer.store.tables import JudgeScore
from rubrics.schema import Dimension

#: At most this many expected scores of one dimension are listed (a CASE of as many branches per row).
EXPECTED_LEVELS = 64
#: Per dimension, the distinct scores and how many rows hold each.
Counts = dict[str, tuple[list[float], list[int]]]


def expected_scores(dims: Iterable[Dimension]) -> list[tuple[str, float]]:
    """The (dimension, score) pairs a rubric's judge scores nearly always sit on: each item-level
    dimension's judge scale levels (a mean of samples or another value is counted all the same:
    :func:`score_counts`). A scale of more than :data:`EXPECTED_LEVELS` levels is not listed: its
    rows are grouped by the database."""
    out: list[tuple[str, float]] = []
    for d in dims:
        scale = d.judge_scale or d.scale
        many = len(scale.levels) if scale.levels is not None else int(scale.max) - int(scale.min) + 1
        if not d.is_pair and many <= EXPECTED_LEVELS:
            out.extend((d.id, float(v)) for v in scale.level_values())
    return out


def _grouped(conn: Connection, where: list[ColumnElement[bool]], into: Counts) -> None:
    """The database's own count of each (dimension, score) of the rows meeting ``where``, added to ``into``."""
    score = col(JudgeScore.score)
    q = select(col(JudgeScore.dimension), score, func.count()).where(*where).group_by(col(JudgeScore.dimension), score)
    for d, value, n in conn.execute(q):
        if value is None:  # (the callers' conditions leave none: for the type)
            continue
        values, counts = into.setdefault(d, ([], []))
        values.append(float(value))
        counts.append(int(n))


def _code(expected: list[tuple[str, float]]) -> Any:
    """SQL (SQLite): each row's position in ``expected`` (its dimension, then its score), -1 for a
    row on none."""
    by_dim: dict[str, list[tuple[float, int]]] = {}
    for i, (d, v) in enumerate(expected):
        by_dim.setdefault(d, []).append((v, i))
    if any(len(pairs) > EXPECTED_LEVELS for pairs in by_dim.values()):  # (expected_scores lists no more)
        raise ValueError(f"at most {EXPECTED_LEVELS} expected scores a dimension: a CASE branch each, on every row")
    score = col(JudgeScore.score)
    return case({d: case({v: i for v, i in pairs}, value=score, else_=literal(-1)) for d, pairs in by_dim.items()},
                value=col(JudgeScore.dimension), else_=literal(-1))


def score_counts(conn: Connection, where: list[ColumnElement[bool]], expected: list[tuple[str, float]]) -> Counts:
    """Per dimension, each distinct non-NULL score of the judge score rows meeting ``where`` (which
    leaves no NULL score) and how many rows hold it. ``expected``: the (dimension, score) pairs
    most rows are on (SQLite codes those rows instead of sorting them)."""
    expected = list(dict.fromkeys(expected))  # each pair once: one position, one count
    out: Counts = {}
    if conn.dialect.name != "sqlite" or not expected:
        _grouped(conn, where, out)
        return out
    code = _code(expected)
    codes = read_numeric(conn, col(JudgeScore.pk), where, {"code": code}, {})["code"]
    found = np.bincount(codes[codes >= 0], minlength=len(expected))
    for (d, v), n in zip(expected, found.tolist(), strict=True):
        if n:
            values, counts = out.setdefault(d, ([], []))
            values.append(float(v))
            counts.append(int(n))
    if (codes < 0).any():  # scores off the expected pairs: the database groups those rows alone
        _grouped(conn, [*where, code == -1], out)
    return out
