"""Import and export: one transaction per file, bulk inserts through SQLAlchemy Core."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlmodel import col

from reviewer.domain.itemlimits import name_problem
from reviewer.domain.pairs import PairLines
from reviewer.errors import FileErrors, UserError
from reviewer.store.bulk import deferred_indexes
from reviewer.store.comments import CommentsMixin
from reviewer.store.fold import FoldMixin
from reviewer.store.guards import BulkGuardError, set_checked_inserts
from reviewer.store.import_batches import (
    PARALLEL_FROM_LINES,
    ItemSource,
    batches_in_child,
    build_batches,
    can_fork,
)
from reviewer.store.import_writer import RowWriter
from reviewer.store.judging import JudgeMixin
from reviewer.store.pair_verdicts import PairVerdictsMixin, write_pairs
from reviewer.store.pairs import PairsMixin
from reviewer.store.tables import Item
from rubrics.schema import Rubric

Progress = Callable[[int, int], None]
#: The tables an import writes most rows into, its scores (their plain indexes built at the end:
#: :func:`deferred_indexes`). The item table's indexes are kept up to date as the rows go in: a
#: fifth as many rows, written while the reader process reads the next batch anyway, where a
#: rebuild would add to the time after the last one.
IMPORTED_TABLES = ("judge_score", "human_score")


class ImportMixin(FoldMixin, CommentsMixin, PairVerdictsMixin, PairsMixin, JudgeMixin):
    """Items in, effective scores out."""

    def import_items(self, source: ItemSource, rubric_ref: str, dataset: str | None = None,
                     update_existing: bool = False, progress: Progress | None = None,
                     pairs: PairLines | None = None) -> Any:
        """Import the checked rows of ``source`` (an item file read by :mod:`reviewer.io`; see
        :func:`reviewer.services.importing.import_file`) and its pair records (``pairs``; their
        items in the file or already stored: :mod:`reviewer.store.pair_verdicts`) in one
        transaction; a file with any bad line is refused whole (every bad line listed), and
        nothing of it is written."""
        from reviewer.store.views import ImportSummary

        if isinstance(source, (str, Path)):
            raise TypeError("the store reads no files: pass reviewer.io.itemfile.ItemFile(path), "
                            "or call reviewer.services.importing.import_file(store, path, ...)")

        if dataset:  # a dataset name is shown and exported like an id: the same rule
            problem = name_problem(dataset, "the dataset name")
            if problem is not None:
                raise UserError(f"--dataset: {problem}")
        started = time.perf_counter()
        rubric = self.get_rubric(rubric_ref)
        summary = ImportSummary()
        errs: list[str] = list(pairs.errors) if pairs else []
        with paused_gc():
            try:
                with self.write() as conn:
                    self._stream(conn, source, rubric, dataset or "", update_existing, progress, errs, summary)
                    if pairs and pairs.records and not errs:
                        summary.pair_choices, summary.pair_judgments = write_pairs(
                            conn, rubric.ref, dataset or "", pairs.records, pairs.source or str(source.path), errs)
                    if errs:
                        raise FileErrors(errs)  # leaving the block rolls the transaction back
            except FileErrors as exc:
                raise UserError(str(exc)) from None
            except BulkGuardError as exc:
                raise UserError(f"import refused, nothing written: {exc}") from None
        summary.seconds = time.perf_counter() - started
        return summary

    def _stream(self, conn: Any, source: ItemSource, rubric: Rubric, ds: str, update_existing: bool,
                progress: Progress | None, errs: list[str], summary: Any) -> None:
        """Read, check and write chunk by chunk; after the first bad line only check."""
        scope = (col(Item.rubric_ref) == rubric.ref, col(Item.dataset) == ds)
        fresh = conn.execute(select(col(Item.pk)).where(*scope).limit(1)).first() is None
        sqlite = self.dialect == "sqlite"
        total = source.count_lines()
        if sqlite:
            # Four index b-trees grow at once; SQLite's 2 MB default page cache thrashes on them.
            conn.exec_driver_sql("PRAGMA cache_size=-131072")
        next_pk = [(conn.execute(select(func.max(col(Item.pk)))).scalar() or 0) + 1]

        def reserve(n: int) -> list[int]:
            if not sqlite:  # PostgreSQL: ids from the table's own sequence
                return [int(v) for (v,) in conn.exec_driver_sql(
                    "SELECT nextval(pg_get_serial_sequence('item', 'pk')) FROM generate_series(1, %s)", (n,))]
            # SQLite: the write transaction holds the lock, so the next ids are ours
            start = next_pk[0]
            next_pk[0] += n
            return list(range(start, start + n))

        def lookup(ids: list[str]) -> dict[str, tuple[int, str, int]]:
            return _existing(conn, rubric.ref, ds, ids)

        def stored(pks: list[int]) -> dict[int, tuple[Any, ...]]:
            return _stored_content(conn, pks)

        if sqlite and fresh and total >= PARALLEL_FROM_LINES and can_fork():
            batches = batches_in_child(source, rubric, errs, next_pk[0])
            summary.reader = "child"
        else:
            batches = build_batches(source, rubric, errs, reserve, None if fresh else lookup, update_existing, stored)
        writer = RowWriter(conn, rubric, ds)
        # a large file: SQLite's per-row insert guards checked as a set over the rows written instead,
        # batch by batch (while the next batch is being read) and once more at the end
        large = total >= PARALLEL_FROM_LINES
        guarded = set_checked_inserts(conn) if large else nullcontext(_no_check)
        # as many rows as the tables hold already, or more: their indexes built once at the end
        reindexed = deferred_indexes(conn, IMPORTED_TABLES) if large and total >= next_pk[0] - 1 else nullcontext()
        rescored: set[int] = set()
        with reindexed, guarded as check:
            for batch in batches:
                summary.rows += batch.rows
                summary.inserted += len(batch.items)
                summary.updated += len(batch.changed)
                summary.unchanged += batch.unchanged
                if not errs:
                    writer.put(batch)
                    check()
                    rescored.update(batch.rescored)
                if progress:
                    progress(summary.rows, max(total, summary.rows))
        if errs:
            return
        if rescored:  # scores added to stored items' current revision: their summaries and coverage
            from reviewer.store.coverage import refresh_coverage

            self._refresh_summaries(conn, rubric.ref, rescored)
            for pk in sorted(rescored):
                refresh_coverage(conn, rubric, pk)
        if not fresh:  # the writer refreshed the keys of the items it wrote; the scope's others too
            from reviewer.store.queue import refresh_triage_keys

            refresh_triage_keys(conn, "rubric_ref = :ref AND dataset = :ds", {"ref": rubric.ref, "ds": ds})
        summary.judge_scores, summary.human_scores = writer.judge_scores, writer.human_scores

    def export_rows(self, rubric_ref: str | None = None, dataset: str | None = None) -> Iterator[dict[str, Any]]:
        """Per item (its current content revision): each dimension's effective score and where it
        came from (a lead's adjudication, else the human consensus, else the judge panel), the judge
        score beside it, the human scores, overall (None when incomplete, with the reason), band,
        pass and safety status — all read from the item's fold (:mod:`reviewer.domain`)."""
        folds = list(self.item_folds(rubric_ref, dataset))
        turns = self.turn_scores({it.pk: it.revision for it, _ in folds})
        comments = self.comments(it.pk for it, _ in folds)
        grouped = {it.rubric_ref for it, _ in folds if it.grp is not None}
        pairs, judged = self.pair_choices_by_item(grouped), self.pair_judgments_by_item(grouped)
        stated = self.stated_overalls({it.pk: it.revision for it, _ in folds})
        for it, fold in folds:
            row = export_row(it, fold, self.get_rubric(it.rubric_ref), turns.get(it.pk, {}), comments.get(it.pk, []),
                             stated.get(it.pk))
            if it.grp is not None:  # grouped items: each current choice on a pair it is in
                row["pair_choices"] = pairs.get(it.pk, [])
                row["pair_verdicts"] = judged.get(it.pk, [])
            yield row

    def turn_scores(self, revisions: dict[int, int]) -> dict[int, dict[str, dict[tuple[str | None, int], Any]]]:
        """Per item, dimension and (model, turn): the latest turn-level judge row of the item's
        current revision (conversations scored turn by turn)."""
        from reviewer.domain.rows import revision_of
        from reviewer.store.base import records
        from reviewer.store.tables import JudgeScore

        out: dict[int, dict[str, dict[tuple[str | None, int], Any]]] = {}
        pks = sorted(revisions)
        with self.read() as conn:
            for i in range(0, len(pks), 500):
                q = (select(JudgeScore).where(col(JudgeScore.item_pk).in_(pks[i:i + 500]),
                                              col(JudgeScore.turn).is_not(None))
                     .order_by(col(JudgeScore.pk)))
                for j in records(conn, q):
                    if revision_of(j) == revisions[j.item_pk]:
                        out.setdefault(j.item_pk, {}).setdefault(j.dimension, {})[(j.model, j.turn)] = j
        return out


    def stated_overalls(self, revisions: dict[int, int]) -> dict[int, dict[str, float]]:
        """Per item and model: the latest overall the judge stated in its own reply (the flat reply's
        ``overall``) on the item's current revision — the judge's figure, not rubricate's."""
        from reviewer.domain import NO_MODEL
        from reviewer.store.tables import JudgeScore

        out: dict[int, dict[str, float]] = {}
        pks = sorted(revisions)
        with self.read() as conn:
            for i in range(0, len(pks), 500):
                q = (select(col(JudgeScore.item_pk), col(JudgeScore.revision), col(JudgeScore.model),
                            col(JudgeScore.stated_overall))
                     .where(col(JudgeScore.item_pk).in_(pks[i:i + 500]), col(JudgeScore.stated_overall).is_not(None))
                     .order_by(col(JudgeScore.pk)))
                for pk, revision, model, value in conn.execute(q):
                    if revision == revisions[pk] and value is not None:
                        out.setdefault(pk, {})[model or NO_MODEL] = float(value)
        return out


def turn_rows(by_turn: dict[tuple[str | None, int], Any], how: str = "mean") -> list[dict[str, Any]]:
    """A turn-level dimension's turn scores for export: per turn, the panel's models' scores and
    the panel's score on the turn (the one panel rule, ``how``: the rubric's
    ``judge.panel_aggregate``; one model: its score), or the error, or not applicable."""
    from reviewer.domain import NO_MODEL
    from rubrics.aggregate import panel_score

    out: dict[int, dict[str, Any]] = {}
    for (model, turn), j in sorted(by_turn.items(), key=lambda kv: (kv[0][1], kv[0][0] or "")):
        row = out.setdefault(turn, {"turn": turn, "scores": {}})
        if j.score is not None:
            row["scores"][model or NO_MODEL] = j.score
        elif j.error:
            row["error"] = j.error
        else:
            row["not_applicable"] = True
    rows = list(out.values())
    for row in rows:
        row["score"] = panel_score(list(row["scores"].values()), how)
    return rows


def headline_of(rubric: Rubric, effective: dict[str, float | None]) -> dict[str, Any]:
    """The rubric's headline dimension as the item's top-level score (on [0, 1]) and band."""
    assert rubric.headline is not None
    dim = rubric.dimension(rubric.headline)
    raw = effective.get(dim.id)
    score = dim.scale.normalise(raw) if raw is not None else None
    return {"dimension": dim.id, "score": score,
            "band": rubric.band_for(score).label if score is not None else None}



def _no_check() -> None:
    return None


@contextmanager
def paused_gc() -> Iterator[None]:
    """Hold the cyclic garbage collector while a large file is read and written: the rows are
    long-lived, and repeated full collections over them cost more than the import itself."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def export_row(it: Any, fold: Any, rubric: Rubric,
               turns: dict[str, dict[tuple[str | None, int], Any]] | None = None,
               comments: list[Any] | None = None, stated: dict[str, float] | None = None) -> dict[str, Any]:
    """One item's export record from its fold (``turns``: its turn-level judge rows;
    ``comments``: its comments, oldest first; ``stated``: per model, the overall the judge stated
    itself, exported beside the computed overall as ``judge_stated_overall``)."""
    from reviewer.domain import judge_only
    from reviewer.domain.provenance import comment_records, human_records

    dims = {}
    turns = turns or {}
    for dim_id, f in fold.dims.items():
        judge = f.judge
        dims[dim_id] = {"effective": f.effective, "source": f.source, "state": f.state, "judge": judge.panel,
                        "judge_error": judge.error,
                        "human": {w: v.score for w, v in sorted(f.human.votes.items())},
                        "adjudication": f.human.adjudication.score if f.human.adjudication else None,
                        "bias": f.bias, "human_scores": human_records(fold, dim_id)}
        if len(judge.models) > 1:  # a panel: each model's score and how far apart (normalised)
            dims[dim_id].update(judge_models=judge.scores, judge_spread=judge.spread)
        by_turn = turns.get(dim_id)
        if by_turn:  # a turn-level dimension: each turn's score and the rule that rolled them up
            dims[dim_id].update(turns=turn_rows(by_turn, rubric.judge.panel_aggregate), turn_aggregate=rubric.dimension(dim_id).turn_aggregate)
    agg, alone = fold.score, judge_only(rubric, fold)
    return {"id": it.item_id, "dataset": it.dataset, "rubric": it.rubric_ref, "revision": fold.revision,
            "dimensions": dims, "overall": agg.overall, "band": agg.band.label if agg.band else None,
            "passed": agg.passed, "incomplete": agg.reason if agg.overall is None else None,
            "capped_by": list(agg.capped_by), "judge_overall": alone.overall,
            "safety": fold.safety.status, "metadata": it.meta or {}, "group": it.grp,
            "comments": comment_records(comments or [], fold.revision),
            **({"headline": headline_of(rubric, fold.effective)} if rubric.headline is not None else {}),
            **({"judge_stated_overall": dict(sorted(stated.items()))} if stated else {})}


def _stored_content(conn: Any, pks: list[int]) -> dict[int, tuple[Any, ...]]:
    """The stored content of these items, in CONTENT_COLUMNS order (see :func:`build_batches`)."""
    q = select(col(Item.pk), col(Item.input), col(Item.output), col(Item.context), col(Item.reference),
               col(Item.conversation), col(Item.grp), col(Item.variant), col(Item.meta), col(Item.gold)
               ).where(col(Item.pk).in_(pks))
    return {row[0]: tuple(row[1:]) for row in conn.execute(q)}


def _existing(conn: Any, ref: str, ds: str, ids: list[str]) -> dict[str, tuple[int, str, int]]:
    """(pk, content hash, revision) of the ids already stored in this rubric and dataset."""
    q = select(col(Item.item_id), col(Item.pk), col(Item.content_hash), col(Item.revision)).where(
        col(Item.rubric_ref) == ref, col(Item.dataset) == ds, col(Item.item_id).in_(ids))
    return {a: (b, c, d) for a, b, c, d in conn.execute(q)}
