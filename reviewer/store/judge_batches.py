"""``rubricate judge --batch``'s side of the store: a batch run's provider batches, what each
request was answered, and which items the run has already stored (so storing again after a crash
stores nothing twice)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from sqlalchemy import bindparam, func, select, update
from sqlmodel import col

from reviewer.errors import UserError
from reviewer.store.base import inserted_pk
from reviewer.store.db import Db
from reviewer.store.tables import JudgeBatch, JudgeBatchAnswer, JudgeRun, JudgeScore, now, table_of

#: A request's answer as stored: the reply's body, or the error the batch gave (both None: not yet).
Answer = tuple[dict[str, object] | None, str | None]


@dataclass(frozen=True)
class BatchRun:
    """A judge run as a batch run reads it back to go on with it."""

    run: int
    rubric_ref: str
    model: str | None
    dataset: str | None
    params: Mapping[str, object]
    status: str


@dataclass(frozen=True)
class ProviderBatch:
    """One provider batch of a run, as last seen."""

    pk: int
    round: int
    batch_id: str
    requests: int
    status: str


class JudgeBatches:
    """Batch runs' provider batches and their answers (the owner's to write, like judge runs)."""

    def __init__(self, db: Db) -> None:
        self.db = db

    def run_of(self, run_id: int) -> BatchRun:
        """The judge run ``run_id`` (a :class:`UserError` when there is none)."""
        with self.db.read() as conn:
            row = conn.execute(select(col(JudgeRun.rubric_ref), col(JudgeRun.model), col(JudgeRun.dataset),
                                      col(JudgeRun.params), col(JudgeRun.status))
                               .where(col(JudgeRun.pk) == run_id)).first()
        if row is None:
            raise UserError(f"no judge run {run_id}: rubricate judge --batch prints the run it starts")
        ref, model, dataset, params, status = row
        return BatchRun(run_id, str(ref), model, dataset, dict(params or {}), str(status))

    def set_run_status(self, run_id: int, status: str) -> None:
        """Mark a run still open (``batch``: its batches are at the provider)."""
        with self.db.write() as conn:
            conn.execute(update(JudgeRun).where(col(JudgeRun.pk) == run_id).values(status=status))

    def add_batch(self, run_id: int, round_no: int, batch_id: str, input_file_id: str,
                  keys: Collection[str]) -> int:
        """Record a batch the provider accepted and the requests (cache keys) it carries."""
        with self.db.write() as conn:
            pk = inserted_pk(conn.execute(table_of(JudgeBatch).insert().values(
                run_pk=run_id, round=round_no, batch_id=batch_id, input_file_id=input_file_id,
                requests=len(keys))))
            if keys:
                conn.execute(table_of(JudgeBatchAnswer).insert(),
                             [{"run_pk": run_id, "key": k, "batch_pk": pk} for k in keys])
            return pk

    def batches(self, run_id: int) -> list[ProviderBatch]:
        """The run's batches, oldest first."""
        with self.db.read() as conn:
            rows = conn.execute(select(col(JudgeBatch.pk), col(JudgeBatch.round), col(JudgeBatch.batch_id),
                                       col(JudgeBatch.requests), col(JudgeBatch.status))
                                .where(col(JudgeBatch.run_pk) == run_id).order_by(col(JudgeBatch.pk))).all()
        return [ProviderBatch(int(pk), int(r), str(b), int(n), str(s)) for pk, r, b, n, s in rows]

    def last_round(self, run_id: int) -> int:
        """The run's latest round (0 before its first batch)."""
        with self.db.read() as conn:
            found = conn.execute(select(func.max(col(JudgeBatch.round)))
                                 .where(col(JudgeBatch.run_pk) == run_id)).scalar()
        return int(found or 0)

    def set_batch_status(self, batch_pk: int, status: str) -> None:
        """The status the provider gave a batch (not once it is stored)."""
        with self.db.write() as conn:
            conn.execute(update(JudgeBatch).where(col(JudgeBatch.pk) == batch_pk,
                                                  col(JudgeBatch.status) != "stored").values(status=status))

    def store_answers(self, batch_pk: int, answers: Mapping[str, Answer], missing: str) -> bool:
        """A finished batch's answers, in one transaction: each of its requests gets its answer,
        or the error ``missing`` when the output has none; the batch is then ``stored``. A batch
        already stored is left as it is (returns False): reading its output again changes nothing."""
        with self.db.write() as conn:
            done = conn.execute(update(JudgeBatch).where(col(JudgeBatch.pk) == batch_pk,
                                                         col(JudgeBatch.status) != "stored")
                                .values(status="stored", stored_at=now()))
            if not done.rowcount:
                return False
            keys = set(conn.execute(select(col(JudgeBatchAnswer.key))
                                    .where(col(JudgeBatchAnswer.batch_pk) == batch_pk)).scalars())
            rows = [{"b_key": k, "b_body": answers[k][0] if k in answers else None,
                     "b_error": answers[k][1] if k in answers else missing} for k in sorted(keys)]
            if rows:
                table = table_of(JudgeBatchAnswer)
                conn.execute(table.update().where(table.c.batch_pk == batch_pk, table.c.key == bindparam("b_key"))
                             .values(body=bindparam("b_body"), error=bindparam("b_error")), rows)
            return True

    def answers(self, run_id: int) -> dict[str, Answer]:
        """Every request the run has sent, by cache key, with what it was answered so far."""
        with self.db.read() as conn:
            rows = conn.execute(select(col(JudgeBatchAnswer.key), col(JudgeBatchAnswer.body),
                                       col(JudgeBatchAnswer.error))
                                .where(col(JudgeBatchAnswer.run_pk) == run_id)).all()
        return {str(k): (dict(body) if isinstance(body, dict) else None, error) for k, body, error in rows}

    def stored_items(self, run_id: int) -> set[int]:
        """The items the run has stored results for (each item's results are written together)."""
        with self.db.read() as conn:
            return {int(pk) for pk in conn.execute(select(col(JudgeScore.item_pk))
                                                   .where(col(JudgeScore.run_pk) == run_id).distinct()).scalars()
                    if pk is not None}
