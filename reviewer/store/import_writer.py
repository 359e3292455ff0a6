"""The write side of an import: batches of checked rows into the caller's open transaction
(the caller rolls it back when any line of the file turns out to be bad)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, select, update
from sqlmodel import col

from reviewer.store.base import inserted_pk, records
from reviewer.store.bulk import bulk_insert, can_derive, db_value
from reviewer.store.import_batches import (
    HUMAN_COLUMNS,
    HUMAN_PLAIN,
    ITEM_COLUMNS,
    JUDGE_COLUMNS,
    JUDGE_SCORE_ONLY,
    Batch,
)
from reviewer.store.queue import TRIAGE_KEY_SQL, refresh_triage_keys
from reviewer.store.tables import (
    AuditSample,
    HumanScore,
    Item,
    ItemRevision,
    JudgeRun,
    JudgeScore,
    now,
    table_of,
)
from rubrics.schema import Rubric

#: The seed recorded for items imported with ``"audit": true`` (drawn at random elsewhere).
IMPORTED_AUDIT_SEED = -1


class RowWriter:
    """Writes batches in order into the caller's transaction; counts what it wrote."""

    def __init__(self, conn: Connection, rubric: Rubric, ds: str) -> None:
        self.conn, self.rubric, self.ds = conn, rubric, ds
        self.runs: dict[str | None, int] = {}
        self.judge_scores = self.human_scores = 0
        # one time for every score of the import that does not give its own (``"at"``)
        self._created = table_of(HumanScore).c.created_at
        self._now = db_value(conn, self._created, now())

    def _timed(self, rows: Sequence[tuple[object, ...]]) -> list[tuple[object, ...]]:
        """Full human rows with their last value, the time, as the driver takes it."""
        conn, column, at_import = self.conn, self._created, self._now
        return [(*r[:-1], at_import if r[-1] is None else db_value(conn, column, r[-1])) for r in rows]

    def _run(self, model: str | None) -> int:
        if model not in self.runs:
            res = self.conn.execute(table_of(JudgeRun).insert().values(
                rubric_ref=self.rubric.ref, model=model, params={}, dataset=self.ds or None,
                source="import", status="done"))
            self.runs[model] = inserted_pk(res)
        return self.runs[model]

    def _drop_known(self, b: Batch) -> None:
        """Scores given again on unchanged content (the same file imported twice) are there
        already: a person's score with the same dimension, score and reason, or a model's with the
        same dimension and score, on the same revision, is not written twice."""
        conn = self.conn
        people = set(conn.execute(select(
            col(HumanScore.item_pk), col(HumanScore.revision), col(HumanScore.dimension), col(HumanScore.reviewer),
            col(HumanScore.score), col(HumanScore.reason)).where(col(HumanScore.item_pk).in_(b.rescored))).all())
        b.human_revised = [r for r in b.human_revised if (r[0], r[7], r[1], r[2], r[3], r[4]) not in people]
        judged = set(conn.execute(select(
            col(JudgeScore.item_pk), col(JudgeScore.revision), col(JudgeScore.model), col(JudgeScore.dimension),
            col(JudgeScore.score)).where(col(JudgeScore.item_pk).in_(b.rescored))).all())
        b.judge_revised = {model: [r for r in rows if (r[0], r[-1], model, r[1], r[3]) not in judged]
                           for model, rows in b.judge_revised.items()}

    def put(self, b: Batch) -> None:
        """Write one batch."""
        conn, ref = self.conn, self.rubric.ref
        # the queue's order key of the new items: the one rule (the SQL's), evaluated as each row
        # goes in where the driver allows, else refreshed over the batch's rows below
        derive = can_derive(conn)
        bulk_insert(conn, table_of(Item), ITEM_COLUMNS, b.items,
                    {"dataset": self.ds, "rubric_ref": ref}, derived={"triage_key": TRIAGE_KEY_SQL} if derive else None)
        for pk, revision, old_hash, values in b.changed:
            old = records(conn, select(Item).where(col(Item.pk) == pk))[0]
            conn.execute(table_of(ItemRevision).insert().values(
                item_pk=pk, revision=revision, content_hash=old_hash,
                payload={"input": old.input, "output": old.output, "context": old.context,
                         "reference": old.reference, "metadata": old.meta}))
            # new content: the earlier revision's judge verdict, flags and reviews are history, not
            # this text's (``values`` holds the judge summary of the scores this file gives, if any)
            conn.execute(update(Item).where(col(Item.pk) == pk).values(
                revision=revision + 1, judge_spread=None, flagged=False, safety="none", **values))
        if b.items and not derive:  # (the importer refreshes the scope's other items at the end)
            pks = [row[0] for row in b.items]
            refresh_triage_keys(conn, "pk >= :lo AND pk <= :hi AND rubric_ref = :ref AND dataset = :ds",
                                {"lo": min(pks), "hi": max(pks), "ref": ref, "ds": self.ds})
        methods = {d.id: d.method for d in self.rubric.dimensions}
        for (model, dim_id), rows in b.judge_rows().items():
            self.judge_scores += bulk_insert(
                conn, table_of(JudgeScore), JUDGE_SCORE_ONLY, rows,
                {"run_pk": self._run(model), "model": model, "dimension": dim_id,
                 "method": methods[dim_id], "samples": "[]", "evidence": "[]", "examples_used": "[]"})
        for model, rows in b.judge_full.items():
            self.judge_scores += bulk_insert(
                conn, table_of(JudgeScore), JUDGE_COLUMNS, rows,
                {"run_pk": self._run(model), "model": model, "examples_used": "[]"})
        self.human_scores += bulk_insert(conn, table_of(HumanScore), HUMAN_PLAIN, b.human_plain,
                                         {"reason": None, "tags": "[]", "blind": False, "kind": "import",
                                          "created_at": self._now})
        self.human_scores += bulk_insert(conn, table_of(HumanScore), (*HUMAN_COLUMNS, "created_at"),
                                         self._timed(b.human), {"kind": "import"})
        if b.rescored:
            self._drop_known(b)
        for model, rows in b.judge_revised.items():
            self.judge_scores += bulk_insert(
                conn, table_of(JudgeScore), (*JUDGE_COLUMNS, "revision"), rows,
                {"run_pk": self._run(model), "model": model, "examples_used": "[]"})
        self.human_scores += bulk_insert(conn, table_of(HumanScore), (*HUMAN_COLUMNS, "revision", "created_at"),
                                         self._timed(b.human_revised), {"kind": "import"})
        if b.audit:
            have = set(conn.execute(select(col(AuditSample.item_pk)).where(
                col(AuditSample.rubric_ref) == ref, col(AuditSample.item_pk).in_(b.audit))).scalars())
            bulk_insert(conn, table_of(AuditSample), ("item_pk",), [(pk,) for pk in b.audit if pk not in have],
                        {"rubric_ref": ref, "seed": IMPORTED_AUDIT_SEED})
