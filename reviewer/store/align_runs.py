"""``rubricate align``'s runs: opened before the candidates are judged, finished with the whole
result (split, candidates and their prompts, dev and test figures), read back by the CLI and the
calibration screen."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlmodel import col

from reviewer.errors import UserError
from reviewer.store.base import inserted_pk, records
from reviewer.store.db import Db
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.tables import AlignRun, now, table_of


@dataclass(frozen=True)
class AlignRunRecord:
    """A finished align run as stored: what it was asked (``params``) and everything it found
    (``result``), both kept as the JSON the align service wrote."""

    run: int
    rubric: str
    dimension: str
    model: str | None
    params: Mapping[str, object]
    status: str
    result: Mapping[str, object]
    written_ref: str | None
    finished_at: datetime | None


class AlignRuns:
    """Align runs: one row per dimension aligned."""

    def __init__(self, db: Db, rubrics: Rubrics) -> None:
        self.db = db
        self.rubrics = rubrics

    def create_align_run(self, rubric_ref: str, dimension: str, model: str | None,
                         params: Mapping[str, object]) -> int:
        """Open a run of one dimension; its status is ``running`` until finished."""
        ref = self.rubrics.get_rubric(rubric_ref).ref
        with self.db.write() as conn:
            return inserted_pk(conn.execute(table_of(AlignRun).insert().values(
                rubric_ref=ref, dimension=dimension, model=model, params=params)))

    def finish_align_run(self, run_id: int, status: str, result: Mapping[str, object],
                         written_ref: str | None = None) -> None:
        """Close a run with how it ended and everything it found."""
        with self.db.write() as conn:
            done = conn.execute(update(table_of(AlignRun)).where(col(AlignRun.pk) == run_id).values(
                status=status, result=result, written_ref=written_ref, finished_at=now()))
            if not done.rowcount:
                raise UserError(f"no align run {run_id}")

    def last_align_run(self, rubric_ref: str, dimension: str) -> AlignRunRecord | None:
        """The newest finished align run of a rubric version's dimension, or None."""
        ref = self.rubrics.get_rubric(rubric_ref).ref
        with self.db.read() as conn:
            found = records(conn, select(AlignRun).where(
                col(AlignRun.rubric_ref) == ref, col(AlignRun.dimension) == dimension,
                col(AlignRun.finished_at).is_not(None)).order_by(col(AlignRun.pk).desc()).limit(1))
        if not found:
            return None
        run = found[0]
        return AlignRunRecord(run.pk, run.rubric_ref, run.dimension, run.model, run.params or {}, run.status,
                              run.result or {}, run.written_ref, run.finished_at)
