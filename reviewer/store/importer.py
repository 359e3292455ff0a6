"""Import and export: one transaction per file, bulk inserts through SQLAlchemy Core."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import select, update

from reviewer.errors import UserError
from reviewer.itemfile import FileErrors, Row, read_rows
from reviewer.store.base import StoreBase, records
from reviewer.store.tables import HumanScore, Item, ItemRevision, JudgeRun, JudgeScore, SafetyFlag
from rubrics.aggregate import score_item
from rubrics.schema import Rubric

Progress = Callable[[int, int], None]
CHUNK = 5000


class ImportMixin(StoreBase):
    """Items in, effective scores out."""

    def import_items(self, path: str | Path, rubric_ref: str, dataset: str | None = None,
                     update_existing: bool = False, progress: Progress | None = None) -> Any:
        """Import a JSON Lines or CSV file; a file with any bad line is refused whole."""
        from reviewer.store.views import ImportSummary

        started = time.perf_counter()
        rubric = self.get_rubric(rubric_ref)
        try:
            rows = read_rows(Path(path), rubric)
        except FileErrors as exc:
            raise UserError(str(exc)) from None
        ds = dataset or ""
        summary = ImportSummary(rows=len(rows))
        with self.write() as conn:
            existing: dict[str, tuple[int, str, int]] = {}
            ids = [r.item_id for r in rows]
            for i in range(0, len(ids), CHUNK):
                q = select(Item.item_id, Item.pk, Item.content_hash, Item.revision).where(
                    Item.rubric_ref == rubric.ref, Item.dataset == ds, Item.item_id.in_(ids[i:i + CHUNK]))  # type: ignore[attr-defined]
                existing.update({a: (b, c, d) for a, b, c, d in conn.execute(q)})
            new, changed = [], []
            for r in rows:
                if r.item_id not in existing:
                    new.append(r)
                elif existing[r.item_id][1] != r.content_hash:
                    changed.append(r)
            if changed and not update_existing:
                lines = [f"{path}:{r.line}: item {r.item_id} already exists with other content; "
                         "pass --update to record the change" for r in changed[:20]]
                more = f"\n... and {len(changed) - 20} more" if len(changed) > 20 else ""
                raise UserError("\n".join(lines) + more)
            summary.unchanged = len(rows) - len(new) - len(changed)
            pks: dict[str, int] = {}
            for i in range(0, len(new), CHUNK):
                chunk = new[i:i + CHUNK]
                conn.execute(Item.__table__.insert(), [_item_values(rubric, ds, r) for r in chunk])  # type: ignore[attr-defined]
                q = select(Item.item_id, Item.pk).where(Item.rubric_ref == rubric.ref, Item.dataset == ds,
                                                        Item.item_id.in_([r.item_id for r in chunk]))  # type: ignore[attr-defined]
                pks.update(dict(conn.execute(q).all()))
                if progress:
                    progress(min(i + CHUNK, len(new)), len(rows))
            for r in changed:
                pk, old_hash, revision = existing[r.item_id]
                old = records(conn, select(Item).where(Item.pk == pk))[0]
                conn.execute(ItemRevision.__table__.insert().values(  # type: ignore[attr-defined]
                    item_pk=pk, revision=revision, content_hash=old_hash,
                    payload={"input": old.input, "output": old.output, "context": old.context,
                             "reference": old.reference, "metadata": old.meta}))
                values = _item_values(rubric, ds, r)
                values["revision"] = revision + 1
                conn.execute(update(Item).where(Item.pk == pk).values(**values))
                pks[r.item_id] = pk
            summary.inserted, summary.updated = len(new), len(changed)
            from reviewer.store.queue import refresh_triage_keys

            refresh_triage_keys(conn, "rubric_ref = :ref AND dataset = :ds", {"ref": rubric.ref, "ds": ds})
            summary.judge_scores, summary.human_scores = self._write_scores(conn, rubric, ds, new + changed, pks)
        summary.seconds = time.perf_counter() - started
        return summary

    def _write_scores(self, conn: Any, rubric: Rubric, ds: str, rows: list[Row],
                      pks: dict[str, int]) -> tuple[int, int]:
        runs: dict[str | None, int] = {}
        judge_rows: list[dict[str, Any]] = []
        human_rows: list[dict[str, Any]] = []
        for r in rows:
            pk = pks[r.item_id]
            if r.judge:
                if r.judge_model not in runs:
                    res = conn.execute(JudgeRun.__table__.insert().values(  # type: ignore[attr-defined]
                        rubric_ref=rubric.ref, model=r.judge_model, params={}, dataset=ds or None,
                        source="import", status="done"))
                    runs[r.judge_model] = int(res.inserted_primary_key[0])
                for dim_id, e in r.judge.items():
                    dim = rubric.dimension(dim_id)
                    judge_rows.append(dict(
                        run_pk=runs[r.judge_model], item_pk=pk, dimension=dim_id, model=r.judge_model,
                        method=dim.method, score=e.score,
                        normalised=(dim.judge_scale or dim.scale).normalise(e.score) if e.score is not None else None,
                        samples=e.samples, std=statistics.stdev(e.samples) if len(e.samples) > 1 else None,
                        rationale=e.rationale, evidence=e.evidence, confidence=e.confidence,
                        error=e.error, raw_reply=e.raw_reply, examples_used=[]))
            for reviewer, dim_id, score, reason, tags, blind in r.human:
                human_rows.append(dict(item_pk=pk, dimension=dim_id, reviewer=reviewer, score=score,
                                       reason=reason, tags=tags, blind=blind, kind="import"))
        for i in range(0, len(judge_rows), CHUNK):
            conn.execute(JudgeScore.__table__.insert(), judge_rows[i:i + CHUNK])  # type: ignore[attr-defined]
        for i in range(0, len(human_rows), CHUNK):
            conn.execute(HumanScore.__table__.insert(), human_rows[i:i + CHUNK])  # type: ignore[attr-defined]
        return len(judge_rows), len(human_rows)

    def export_rows(self, rubric_ref: str | None = None, dataset: str | None = None) -> Iterator[dict[str, Any]]:
        """Per item: each dimension's effective score (human consensus, else judge) and where it
        came from, the judge score beside it, the human scores, overall, band, pass and safety."""
        with self.read() as conn:
            q = select(Item)
            if rubric_ref:
                q = q.where(Item.rubric_ref == self.get_rubric(rubric_ref).ref)
            if dataset:
                q = q.where(Item.dataset == dataset)
            items = records(conn, q.order_by(Item.pk))
            judge: dict[int, dict[str, Any]] = {}
            for j in records(conn, select(JudgeScore).where(JudgeScore.turn.is_(None)).order_by(JudgeScore.pk)):  # type: ignore[union-attr]
                judge.setdefault(j.item_pk, {})[j.dimension] = j
            human: dict[int, dict[str, dict[str, float | None]]] = {}
            for h in records(conn, select(HumanScore).order_by(HumanScore.pk)):
                human.setdefault(h.item_pk, {}).setdefault(h.dimension, {})[h.reviewer] = h.score
            flags = {pk: st for pk, st in conn.execute(select(SafetyFlag.item_pk, SafetyFlag.status))}
        for it in items:
            rubric = self.get_rubric(it.rubric_ref)
            dims, effective = {}, {}
            for dim in rubric.dimensions:
                j = judge.get(it.pk, {}).get(dim.id)
                hs = {k: v for k, v in human.get(it.pk, {}).get(dim.id, {}).items() if v is not None}
                if hs:
                    eff, source = statistics.fmean(hs.values()), "human"
                else:
                    eff, source = (j.score if j is not None else None), ("judge" if j is not None and j.score is not None else None)
                effective[dim.id] = eff
                dims[dim.id] = {"effective": eff, "source": source,
                                "judge": j.score if j is not None else None,
                                "judge_error": j.error if j is not None else None, "human": hs}
            safety = flags.get(it.pk)
            agg = score_item(rubric, effective, safety_failed=safety in ("open", "confirmed", "escalated"))
            yield {"id": it.item_id, "dataset": it.dataset, "rubric": it.rubric_ref, "dimensions": dims,
                   "overall": agg.overall, "band": agg.band.label if agg.band else None, "passed": agg.passed,
                   "safety": safety or "none", "metadata": it.meta or {}, "group": it.grp}


def _item_values(rubric: Rubric, ds: str, r: Row) -> dict[str, Any]:
    d = r.data
    agg = score_item(rubric, {k: e.score for k, e in r.judge.items()})
    return dict(judge_overall=agg.overall, judge_band=agg.band.label if agg.band else None,
                judge_passed=agg.passed if agg.overall is not None else None,
                n_errors=sum(1 for e in r.judge.values() if e.error),item_id=r.item_id, dataset=ds, rubric_ref=rubric.ref, content_hash=r.content_hash,
                input=str(d.get("input") or ""), output=str(d.get("output") or ""),
                context=str(d.get("context") or ""), reference=str(d.get("reference") or ""),
                conversation=d.get("conversation"), grp=d.get("group"), variant=d.get("variant"),
                metadata=d.get("metadata") or {}, gold=d.get("gold"))
