"""The items: imported and exported, looked up by id, and each one's state folded from its rows
(:mod:`reviewer.domain`) — the item view every screen reads."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import nullcontext
from pathlib import Path
from types import SimpleNamespace

from sqlalchemy import Connection, func, select
from sqlmodel import col

from reviewer.domain import ItemFold, fold_item, revision_of
from reviewer.domain.itemlimits import NUL_PROBLEM, name_problem, nul_field
from reviewer.domain.pairs import PairLines
from reviewer.errors import FileErrors, UserError
from reviewer.store.base import records
from reviewer.store.bulk import deferred_indexes
from reviewer.store.comments import Comments
from reviewer.store.corrections import correction_rows
from reviewer.store.db import Db
from reviewer.store.fold import CHUNK, item_rows
from reviewer.store.guards import BulkGuardError, set_checked_inserts
from reviewer.store.import_batches import (
    PARALLEL_FROM_LINES,
    ItemSource,
    batches_in_child,
    build_batches,
    can_fork,
)
from reviewer.store.import_writer import RowWriter
from reviewer.store.importer import (
    IMPORTED_TABLES,
    Progress,
    _existing,
    _no_check,
    _stored_content,
    export_row,
    paused_gc,
)
from reviewer.store.judging import Runs
from reviewer.store.marks import mark_rows
from reviewer.store.pair_verdicts import PairVerdicts, write_pairs
from reviewer.store.people import Scores, _human, _latest_judges
from reviewer.store.reveals import revealed_to
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.safety import Safety
from reviewer.store.tables import HumanScore, Item, JudgeScore
from reviewer.store.views import HumanRecord, ImportSummary, ItemView, JudgeRecord, Record
from rubrics.schema import Rubric

#: Items an import writes past which PostgreSQL samples the item table again at once.
ANALYZE_AFTER = 10_000


class Items:
    """Items in and out, found by id, and read as their folds and views."""

    def __init__(self, db: Db, rubrics: Rubrics, safety: Safety, runs: Runs, comments: Comments, scores: Scores,
                 pair_verdicts: PairVerdicts) -> None:
        self.db = db
        self.pair_verdicts = pair_verdicts
        self.rubrics = rubrics
        self.safety = safety
        self.runs = runs
        self.comments = comments
        self.scores = scores

    def item_folds(self, rubric_ref: str | None = None, dataset: str | None = None,
                   item_pks: Iterable[int] | None = None, how: str = "mean",
                   all_revisions: bool = False, labels: bool = False) -> Iterator[tuple[SimpleNamespace, ItemFold]]:
        """(item row, its fold) for the items of a rubric (and dataset, or given keys), by key.
        The item row has every ``item`` column (``metadata`` as ``meta``). ``labels``: people's
        side folded from their labels only (:func:`label_rows`: for the audit sample's items)."""
        from reviewer.store.base import records

        with self.db.read() as conn:
            q = select(Item)
            if rubric_ref:
                q = q.where(col(Item.rubric_ref) == self.rubrics.get_rubric(rubric_ref).ref)
            if dataset:
                q = q.where(col(Item.dataset) == dataset)
            if item_pks is None:
                items = records(conn, q.order_by(col(Item.pk)))
            else:  # keys in chunks: each is a bound parameter, and both databases cap how many
                keys = sorted(set(item_pks))
                items = [it for i in range(0, len(keys), CHUNK)
                         for it in records(conn, q.where(col(Item.pk).in_(keys[i:i + CHUNK])).order_by(col(Item.pk)))]
            rows = item_rows(conn, [(it.pk, it.revision) for it in items], labels=labels)
        for it in items:
            yield it, fold_item(self.rubrics.get_rubric(it.rubric_ref), rows[it.pk], how, all_revisions)

    def item_fold(self, item_pk: int, how: str = "mean") -> ItemFold:
        """One item's fold."""
        from reviewer.errors import UserError

        for _, fold in self.item_folds(item_pks=[item_pk], how=how):
            return fold
        raise UserError(f"no item with key {item_pk}")

    def items_by_id(self, item_id: str, dataset: str | None = None,
                    rubric_ref: str | None = None) -> list[tuple[int, str, str]]:
        """(key, dataset, rubric) of every item with this exact id (in ``dataset`` / ``rubric_ref``
        when given), by key."""
        q = select(col(Item.pk), col(Item.dataset), col(Item.rubric_ref)).where(col(Item.item_id) == item_id)
        if dataset is not None:
            q = q.where(col(Item.dataset) == dataset)
        if rubric_ref is not None:
            q = q.where(col(Item.rubric_ref) == self.rubrics.get_rubric(rubric_ref).ref)
        with self.db.read() as conn:
            return [(int(pk), str(ds), str(ref)) for pk, ds, ref in conn.execute(q.order_by(col(Item.pk)))]

    def item_view(self, item_pk: int, viewer: str | None = None) -> ItemView:
        """The item with its judge records, current human scores, safety flags and its fold (the
        state every view reads, from every row whoever the viewer is).

        Peers' scores on a dimension stay hidden from ``viewer`` until the viewer has scored it.
        """
        from reviewer.domain import fold_item
        from reviewer.store.fold import item_rows

        with self.db.read() as conn:
            found = records(conn, select(Item).where(col(Item.pk) == item_pk))
            if not found:
                raise UserError(f"no item with key {item_pk}")
            it = found[0]
            jrows = records(conn, select(JudgeScore).where(col(JudgeScore.item_pk) == item_pk)
                            .order_by(col(JudgeScore.pk)))
            hrows = records(conn, select(HumanScore).where(col(HumanScore.item_pk) == item_pk)
                            .order_by(col(HumanScore.pk)))
            rows = item_rows(conn, [(it.pk, it.revision)])[it.pk]
            revealed = viewer is not None and revealed_to(conn, it.pk, it.revision, viewer)
        rubric = self.rubrics.get_rubric(it.rubric_ref)
        fold = fold_item(rubric, rows)
        judge = _latest_judges(jrows, it.revision)
        by_pk = {h.pk: _human(h) for h in hrows}
        current: dict[str, dict[str, HumanRecord]] = {
            dim: {who: by_pk[v.pk] for who, v in f.human.votes.items()} for dim, f in fold.dims.items()}
        if viewer is not None:
            for dim, by in current.items():
                if viewer not in by:
                    current[dim] = {}
        states = {fs.flag.pk: fs for fs in fold.safety.flags}
        with self.db.read() as conn:
            flags = [f for f in self.safety.flags(conn, [item_pk]) if f.pk in states]
        return ItemView(
            pk=it.pk, item_id=it.item_id, dataset=it.dataset, rubric_ref=it.rubric_ref,
            input=it.input, output=it.output, context=it.context, reference=it.reference,
            conversation=it.conversation, group=it.grp, variant=it.variant, metadata=it.meta or {},
            judge={d: list(v.values()) for d, v in judge.items()}, human=current,
            history=[_human(h) for h in hrows if h.reviewer == viewer and revision_of(h, it.revision) == it.revision],
            flags=flags, fold=fold, revealed=revealed,
        )

    def current_judges(self, item_pks: Iterable[int]) -> dict[int, dict[str, list[JudgeRecord]]]:
        """Each item's judge records per dimension, as :meth:`item_view` shows them (on the item's
        current content, the latest run per model and turn), for many items in one read per
        :data:`reviewer.store.fold.CHUNK` keys; an item with no judge record maps to ``{}``."""
        from reviewer.store.fold import CHUNK

        keys = sorted(set(item_pks))
        out: dict[int, dict[str, list[JudgeRecord]]] = {}
        with self.db.read() as conn:
            for i in range(0, len(keys), CHUNK):
                chunk = keys[i:i + CHUNK]
                revisions = {pk: rev for pk, rev in conn.execute(
                    select(col(Item.pk), col(Item.revision)).where(col(Item.pk).in_(chunk)))}
                jrows: dict[int, list[SimpleNamespace]] = {pk: [] for pk in revisions}
                for j in records(conn, select(JudgeScore).where(col(JudgeScore.item_pk).in_(chunk))
                                 .order_by(col(JudgeScore.pk))):
                    jrows[j.item_pk].append(j)
                for pk, rows in jrows.items():
                    out[pk] = {d: list(v.values()) for d, v in _latest_judges(rows, revisions[pk]).items()}
        return out

    def group_items(self, item_pk: int) -> list[int]:
        """Keys of the items sharing this item's group (itself included), by variant."""
        with self.db.read() as conn:
            it = conn.execute(select(col(Item.grp), col(Item.rubric_ref)).where(col(Item.pk) == item_pk)).first()
            if it is None or it[0] is None:
                return [item_pk]
            rows = conn.execute(select(col(Item.pk)).where(col(Item.grp) == it[0], col(Item.rubric_ref) == it[1])
                                .order_by(col(Item.variant), col(Item.pk))).scalars().all()
        return list(rows)

    def import_items(self, source: ItemSource, rubric_ref: str, dataset: str | None = None,
                     update_existing: bool = False, progress: Progress | None = None,
                     pairs: PairLines | None = None) -> ImportSummary:
        """Import the checked rows of ``source`` (an item file read by :mod:`reviewer.io`; see
        :func:`reviewer.services.importing.import_file`) and its pair records (``pairs``; their
        items in the file or already stored: :mod:`reviewer.store.pair_verdicts`) in one
        transaction; a file with any bad line is refused whole (every bad line listed), and
        nothing of it is written."""
        if isinstance(source, (str, Path)):
            raise TypeError("the store reads no files: pass reviewer.io.itemfile.ItemFile(path), "
                            "or call reviewer.services.importing.import_file(store, path, ...)")

        if dataset:  # a dataset name is shown and exported like an id: the same rule
            problem = name_problem(dataset, "the dataset name")
            if problem is not None:
                raise UserError(f"--dataset: {problem}")
        started = time.perf_counter()
        rubric = self.rubrics.get_rubric(rubric_ref)
        summary = ImportSummary()
        errs: list[str] = list(pairs.errors) if pairs else []
        with paused_gc():
            try:
                with self.db.write() as conn:
                    self._stream(conn, source, rubric, dataset or "", update_existing, progress, errs, summary)
                    if pairs and pairs.records and not errs and self.db.dialect != "sqlite":
                        errs.extend(_nul_pairs(pairs, str(source.path)))
                    if pairs and pairs.records and not errs:
                        summary.pair_choices, summary.pair_judgments = write_pairs(
                            conn, rubric.ref, dataset or "", pairs.records, pairs.source or str(source.path), errs)
                    if errs:
                        raise FileErrors(errs)  # leaving the block rolls the transaction back
            except FileErrors as exc:
                raise UserError(str(exc)) from None
            except BulkGuardError as exc:
                raise UserError(f"import refused, nothing written: {exc}") from None
        if self.db.dialect == "postgresql" and summary.inserted + summary.updated >= ANALYZE_AFTER:
            # PostgreSQL plans from its last sample of the table: after a large import, one of a
            # table a fraction of this size until autovacuum's next pass, and the queue list's
            # filtered pages are then read by a scan (a login not the owner's is skipped, warned)
            with self.db.write() as conn:
                conn.exec_driver_sql("ANALYZE item")
        summary.seconds = time.perf_counter() - started
        return summary

    def _stream(self, conn: Connection, source: ItemSource, rubric: Rubric, ds: str, update_existing: bool,
                progress: Progress | None, errs: list[str], summary: ImportSummary) -> None:
        """Read, check and write chunk by chunk; after the first bad line only check."""
        scope = (col(Item.rubric_ref) == rubric.ref, col(Item.dataset) == ds)
        fresh = conn.execute(select(col(Item.pk)).where(*scope).limit(1)).first() is None
        sqlite = self.db.dialect == "sqlite"
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

        def stored(pks: list[int]) -> dict[int, tuple[object, ...]]:
            return _stored_content(conn, pks)

        if sqlite and fresh and total >= PARALLEL_FROM_LINES and can_fork():
            batches = batches_in_child(source, rubric, errs, next_pk[0])
            summary.reader = "child"
        else:
            batches = build_batches(source, rubric, errs, reserve, None if fresh else lookup, update_existing, stored,
                                    refuse_nul=not sqlite)
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

            self.runs.refresh_summaries(conn, rubric.ref, rescored)
            for pk in sorted(rescored):
                refresh_coverage(conn, rubric, pk)
        if not fresh:  # the writer refreshed the keys of the items it wrote; the scope's others too
            from reviewer.store.queue import refresh_triage_keys

            refresh_triage_keys(conn, "rubric_ref = :ref AND dataset = :ds", {"ref": rubric.ref, "ds": ds})
        summary.judge_scores, summary.human_scores = writer.judge_scores, writer.human_scores

    def export_rows(self, rubric_ref: str | None = None, dataset: str | None = None) -> Iterator[Record]:
        """Per item (its current content revision): each dimension's effective score and where it
        came from (a lead's adjudication, else the human consensus, else the judge panel), the judge
        score beside it, the human scores, overall (None when incomplete, with the reason), band,
        pass and safety status — all read from the item's fold (:mod:`reviewer.domain`)."""
        folds = list(self.item_folds(rubric_ref, dataset))
        turns = self.turn_scores({it.pk: it.revision for it, _ in folds})
        comments = self.comments.comments(it.pk for it, _ in folds)
        grouped = {it.rubric_ref for it, _ in folds if it.grp is not None}
        pairs = self.scores.pair_choices_by_item(grouped)
        judged = self.pair_verdicts.pair_judgments_by_item(grouped)
        stated = self.stated_overalls({it.pk: it.revision for it, _ in folds})
        with self.db.read() as conn:
            corrected = correction_rows(conn, (it.pk for it, _ in folds))
            marks = mark_rows(conn, (it.pk for it, _ in folds))
        for it, fold in folds:
            row = export_row(it, fold, self.rubrics.get_rubric(it.rubric_ref), turns.get(it.pk, {}), comments.get(it.pk, []),
                             stated.get(it.pk), corrected.get(it.pk, []), marks.get(it.pk))
            if it.grp is not None:  # grouped items: each current choice on a pair it is in
                row["pair_choices"] = pairs.get(it.pk, [])
                row["pair_verdicts"] = judged.get(it.pk, [])
            yield row

    def turn_scores(self, revisions: dict[int, int]) -> dict[int, dict[str, dict[tuple[str | None, int], SimpleNamespace]]]:
        """Per item, dimension and (model, turn): the latest turn-level judge row of the item's
        current revision (conversations scored turn by turn)."""
        from reviewer.domain.rows import revision_of
        from reviewer.store.base import records
        from reviewer.store.tables import JudgeScore

        out: dict[int, dict[str, dict[tuple[str | None, int], SimpleNamespace]]] = {}
        pks = sorted(revisions)
        with self.db.read() as conn:
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
        with self.db.read() as conn:
            for i in range(0, len(pks), 500):
                q = (select(col(JudgeScore.item_pk), col(JudgeScore.revision), col(JudgeScore.model),
                            col(JudgeScore.stated_overall))
                     .where(col(JudgeScore.item_pk).in_(pks[i:i + 500]), col(JudgeScore.stated_overall).is_not(None))
                     .order_by(col(JudgeScore.pk)))
                for pk, revision, model, value in conn.execute(q):
                    if revision == revisions[pk] and value is not None:
                        out.setdefault(pk, {})[model or NO_MODEL] = float(value)
        return out


def _nul_pairs(pairs: PairLines, path: str) -> list[str]:
    """Each pair record holding a NUL character (which PostgreSQL cannot store), as ``FILE:LINE: what``."""
    found = []
    for rec in pairs.records:
        name = nul_field({"human": rec.human, "judge": rec.judge})
        if name is not None:
            found.append(f"{pairs.source or path}:{rec.line}: the pair of {rec.a} and {rec.b}: its {name} "
                         f"verdict {NUL_PROBLEM}")
    return found
