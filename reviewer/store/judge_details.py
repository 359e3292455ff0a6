"""The provenance of judge scores an item's fold already holds by key: the run each came from
(its key and whether it was judged here or imported), the judge's rationale and when it was
written — what the tidy export (:mod:`reviewer.services.tidy`) puts beside each model's score."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import Connection, select
from sqlmodel import col

from reviewer.store.tables import JudgeRun, JudgeScore

#: Keys per query: each is a bound parameter, and both databases cap how many one statement takes.
CHUNK = 5000


class JudgeDetail(NamedTuple):
    """Where one judge score came from."""

    run: int
    #: the run's source: ``judge`` (judged by rubricate) or ``import`` (scores made elsewhere)
    source: str
    rationale: str
    created_at: datetime


def judge_details(conn: Connection, score_pks: Iterable[int]) -> dict[int, JudgeDetail]:
    """Per judge score key (``JudgeRow.pk`` in a fold), its run, the run's source, the
    rationale and the time it was written; keys with no row are left out."""
    keys = sorted(set(score_pks))
    out: dict[int, JudgeDetail] = {}
    for i in range(0, len(keys), CHUNK):
        q = (select(col(JudgeScore.pk), col(JudgeScore.run_pk), col(JudgeRun.source),
                    col(JudgeScore.rationale), col(JudgeScore.created_at))
             .join(JudgeRun, col(JudgeRun.pk) == col(JudgeScore.run_pk))
             .where(col(JudgeScore.pk).in_(keys[i:i + CHUNK])))
        for pk, run, source, rationale, at in conn.execute(q):
            out[int(pk)] = JudgeDetail(int(run), str(source), rationale or "", at)
    return out
