"""The ratings door: calibration's reads — judge and human scores side by side, per item and
dimension, as rows (:mod:`reviewer.store.fold`) or as columns (:mod:`reviewer.store.rating_columns`)
— and what a corrected pass rate is computed from (the audit sample's verdicts, the judge's totals)."""

from __future__ import annotations

import typing
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import (
    ColumnElement,
    Connection,
    ScalarSelect,
    case,
    func,
    select,
)
from sqlmodel import col

from reviewer.domain.columns import RatingColumns, RawColumns, fold, score_sums
from reviewer.store import rating_columns as rc
from reviewer.store.base import any_item_revised
from reviewer.store.db import Db
from reviewer.store.fold import label_rows
from reviewer.store.items import Items
from reviewer.store.judging import cost_sums
from reviewer.store.numeric_read import joined, key_range, read_numeric, split_range
from reviewer.store.rating_columns import (
    Layout,
    Packed,
    T,
    _items,
    _thread,
    _unpack,
    packed,
    reviewers_in_scope,
)
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.score_counts import expected_scores, score_counts
from reviewer.store.tables import AuditSample, HumanScore, Item, JudgeRun, JudgeScore
from reviewer.store.views import DimensionCost, Record


class Ratings:
    """What calibration and the corrected estimates are computed from: rating rows, their columns,
    the judge's verdicts and costs."""

    def __init__(self, db: Db, rubrics: Rubrics, items: Items) -> None:
        self.db = db
        self.rubrics = rubrics
        self.items = items

    def rubrics_with_items(self) -> list[str]:
        """The rubric versions that have items, in order."""
        with self.db.read() as conn:
            return sorted(conn.execute(select(col(Item.rubric_ref)).distinct()).scalars())

    def rating_rows(self, rubric_ref: str, dataset: str | None = None, sample: str = "all",
                    human_aggregate: str = "mean", all_revisions: bool = False) -> list[Record]:
        """Per item, read from its fold (:func:`rating_row`): ``judge[dim][model]`` (latest score,
        errors left out), ``panel[dim]`` (the fold's panel score) and ``judge_std``, ``human[dim][reviewer]`` (current score; with sample
        ``blind`` only the first score given before the judge was shown, and ``revised[dim][reviewer]``
        = (blind score, its revision after the reveal)), ``adjudicated[dim]``, the item's
        ``effective`` scores, ``overall`` and ``safety``, and its group and metadata. Only rows of
        the item's current content revision count, unless ``all_revisions`` (``calibrate
        --all-revisions``: the history too); on the ``audit`` sample only people's labels
        (:func:`reviewer.store.fold.label_rows`)."""
        from reviewer.domain.rating import rating_row

        ref = self.rubrics.get_rubric(rubric_ref).ref
        pks = None
        if sample == "audit":
            with self.db.read() as conn:
                pks = list(conn.execute(select(col(AuditSample.item_pk)).where(col(AuditSample.rubric_ref) == ref)).scalars())
        return [rating_row(it.pk, it.item_id, it.grp, it.meta, fold, sample)
                for it, fold in self.items.item_folds(ref, dataset, pks, human_aggregate, all_revisions,
                                                labels=sample == "audit")]

    def judge_cost_by_dimension(self, rubric_ref: str) -> dict[str, DimensionCost]:
        """Judge cost, calls and errors per dimension over every run of a rubric."""
        ref = self.rubrics.get_rubric(rubric_ref).ref
        mine = col(JudgeScore.run_pk).in_(select(col(JudgeRun.pk)).where(col(JudgeRun.rubric_ref) == ref))
        with self.db.read() as conn:
            rows = conn.execute(select(col(JudgeScore.dimension), func.count(), func.count(col(JudgeScore.error)))
                                .where(mine).group_by(col(JudgeScore.dimension))).all()
            costs, _ = cost_sums(conn, mine)
        return {d: {"cost_usd": costs.get(d, 0.0), "calls": int(n), "errors": int(e)} for d, n, e in rows}

    def audit_judge_verdicts(self, rubric_ref: str) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """The judge's verdict on each item of the rubric's audit sample that has a complete one,
        as two columns, item keys ascending (50,000 audit items without a Python object each)."""
        ref = self.rubrics.get_rubric(rubric_ref).ref
        audit = select(col(AuditSample.item_pk)).where(col(AuditSample.rubric_ref) == ref)
        passed = case((col(Item.judge_passed).is_(True), 1), else_=0)
        with self.db.read() as conn:
            got = read_numeric(conn, col(Item.pk), [col(Item.pk).in_(audit), col(Item.judge_passed).is_not(None)],
                               {"passed": passed}, {})
        return got["pk"], got["passed"] > 0

    def judge_pass_totals(self, rubric_ref: str, dataset: str | None = None) -> tuple[int, int]:
        """(items with a complete judge verdict, how many of them pass) over the rubric (and
        dataset), counted by the database: a million items never leave it."""
        ref = self.rubrics.get_rubric(rubric_ref).ref
        passed = func.sum(case((col(Item.judge_passed).is_(True), 1), else_=0))
        q = select(func.count(col(Item.judge_passed)), passed).where(col(Item.rubric_ref) == ref)
        if dataset:
            q = q.where(col(Item.dataset) == dataset)
        with self.db.read() as conn:
            n, k = conn.execute(q).one()
        return int(n or 0), int(k or 0)

    def judge_passed_of(self, item_pks: list[int]) -> dict[int, bool]:
        """The judge's verdict on each of these items that has a complete one."""
        out: dict[int, bool] = {}
        with self.db.read() as conn:
            for i in range(0, len(item_pks), 5000):
                q = select(col(Item.pk), col(Item.judge_passed)).where(col(Item.pk).in_(item_pks[i:i + 5000]),
                                                             col(Item.judge_passed).is_not(None))
                out.update((int(pk), bool(v)) for pk, v in conn.execute(q))
        return out

    def judge_score_totals(self, rubric_ref: str, dataset: str | None = None,
                           ) -> dict[str, tuple[int, float, float]] | None:
        """Per dimension (count, sum, sum of squares) of the judge's current top-level score over
        every item, counted by the database — or None where that count could differ from the
        items' folds, and the caller must fold columns instead.

        The count is exact when the rubric's scores come from one run (an import or one judge
        model: one top-level row per item and dimension, so the latest row is the only row and the
        panel is that model) and no item has a later content revision."""
        from reviewer.store.tables import JudgeRun, JudgeScore

        rubric = self.rubrics.get_rubric(rubric_ref)
        ref = rubric.ref
        with self.db.read() as conn:
            runs = conn.execute(select(col(JudgeRun.pk), col(JudgeRun.dataset)).where(col(JudgeRun.rubric_ref) == ref)).all()
            if len(runs) != 1 or (dataset and (runs[0][1] or "") != dataset):
                return None
            if any_item_revised(conn, ref):
                return None
            # how many of each distinct score, not the database's SUM: summed here by score_sums,
            # the figures do not depend on the order the database adds in
            score = col(JudgeScore.score)
            seen = score_counts(conn, [col(JudgeScore.run_pk) == runs[0][0], col(JudgeScore.turn).is_(None),
                                       score.is_not(None)], expected_scores(rubric.dimensions))
        return {d: score_sums(np.array(v, dtype=np.float64), np.array(c, dtype=np.int64)) for d, (v, c) in seen.items()}

    def rating_columns(self, rubric_ref: str, dataset: str | None = None, sample: str = "all",
                       group_by: str | None = None, all_revisions: bool = False,
                       humans: bool = True) -> RatingColumns:
        """The folded human and judge scores of every item of a rubric version (``sample``
        audit: the audit sample only, people's labels only, :func:`label_rows`; blind: first blind
        scores), with each item's group value
        when ``group_by`` (``group``, ``variant`` or ``metadata.KEY``) is given. Rows of an item's earlier
        content revisions count only with ``all_revisions`` (``calibrate --all-revisions``).
        ``humans`` False: the judge's side alone (no human row is read; every human cell is
        empty), for a caller that reads nothing else (the corrected estimates' unlabelled side).
        On SQLite the judge rows and the two halves of the human rows are read at once, each on a
        connection of its own (see :meth:`_beside`)."""
        rubric = self.rubrics.get_rubric(rubric_ref)
        ref = rubric.ref
        dims = [d.id for d in rubric.dimensions]
        where: list[ColumnElement[bool]] = [col(Item.rubric_ref) == ref]
        if dataset:
            where.append(col(Item.dataset) == dataset)
        # which human rows count: every one, or on the audit sample its labels only
        people: list[ColumnElement[bool]] = []
        if sample == "audit":
            where.append(col(Item.pk).in_(select(col(AuditSample.item_pk)).where(col(AuditSample.rubric_ref) == ref)))
            people.append(label_rows())
        with self.db.read() as conn:
            stamp = rc._stamp(conn, ref)
            items = key_range(conn, col(Item.pk))
            last_item = items[1] if items is not None else 0
            scope = select(col(Item.pk)).where(*where).scalar_subquery()
            # no item revised: every row is of its item's current revision (no per-row lookup)
            every = all_revisions or not any_item_revised(conn, ref)

            def judge_side(conn: Connection) -> tuple[list[str], Packed]:
                model = func.coalesce(col(JudgeScore.model), "judge")
                # the models of the rubric's runs, a small table: a run's rows nearly always carry
                # its model (the fold drops any model left without a row); a row with another
                # model reads as unknown, and then the rows' own models are looked up
                runs = sorted({m or "judge" for m in conn.execute(
                    select(col(JudgeRun.model)).where(col(JudgeRun.rubric_ref) == ref)).scalars()})
                rows = packed(conn, JudgeScore, scope, dims, model, runs, last_item, human=False,
                                    all_revisions=every)
                if not rc._unknown_names(rows, Layout.of(len(dims), len(runs), last_item)):
                    return runs, rows
                models = sorted((m or "judge") for m in conn.execute(select(col(JudgeScore.model)).distinct().where(
                    col(JudgeScore.item_pk).in_(scope), col(JudgeScore.turn).is_(None))).scalars())
                return models, packed(conn, JudgeScore, scope, dims, model, models, last_item, human=False,
                                            all_revisions=every)

            beside = self._beside(stamp, judge_side) if stamp is not None else None
            if humans:
                reviewers, human, (item_pk, groups) = self._human_side(
                    conn, stamp, scope, people, dims, every, last_item, lambda: _items(conn, where, group_by))
            else:
                reviewers, human = [], {"item": np.zeros(0, np.int64), "key": np.zeros(0, np.int64),
                                        "score": np.zeros(0)}
                item_pk, groups = _items(conn, where, group_by)
            got = beside.result() if beside is not None else None
            models, judge = got if got is not None else judge_side(conn)
        h = _unpack(human, item_pk, Layout.of(len(dims), len(reviewers), last_item))
        del human
        j = _unpack(judge, item_pk, Layout.of(len(dims), len(models), last_item))
        del judge
        raw = RawColumns(item_pk, dims, reviewers, models,
                         h["item"], h["dim"], h["who"], h["score"], h["kind"], h["blind"], h["current"],
                         j["item"], j["dim"], j["who"], j["score"], j["std"], j["current"], groups)
        return fold(raw, sample)

    def _human_side(self, conn: Connection, stamp: tuple[object, ...] | None, scope: ScalarSelect[int], people: list[ColumnElement[bool]],
                    dims: list[str], every: bool, last_item: int,
                    meanwhile: Callable[[], T]) -> tuple[list[str], Packed, T]:
        """(reviewer names, packed rows) of the human scores in ``scope`` that meet ``people``, and what ``meanwhile``
        gave. On SQLite many rows (the most of any table) are read in two halves at once: the
        second half on a connection of its own (:meth:`_beside`), which first looks up the names
        both halves are coded with while this connection does ``meanwhile``."""
        def names(c: Connection) -> list[str]:
            return reviewers_in_scope(c, scope, people)

        def part(c: Connection, found: list[str], keys: tuple[int, int] | None) -> Packed:
            return packed(c, HumanScore, scope, dims, col(HumanScore.reviewer), found, last_item, human=True,
                                all_revisions=every, keys=keys, rows=people)

        span = key_range(conn, col(HumanScore.pk)) if stamp is not None else None
        if stamp is None or span is None or span[1] - span[0] < rc.SPLIT_ROWS:
            got = meanwhile()
            found = names(conn)
            return found, part(conn, found, None), got
        first, second = split_range(span, 2)
        told: Future[list[str]] = Future()

        def second_half(c: Connection) -> Packed:
            mine = names(c)
            told.set_result(mine)
            return part(c, mine, second)

        reading = self._beside(stamp, second_half)
        got = meanwhile()
        wait(typing.cast("list[Future[object]]", [told, reading]), return_when=FIRST_COMPLETED)  # the names, or that connection's other snapshot
        found = told.result() if told.done() else names(conn)
        rows = [part(conn, found, first)]
        other = reading.result()
        rows.append(other if other is not None else part(conn, found, second))
        return found, joined(rows), got

    def _beside(self, stamp: tuple[object, ...], read: Callable[[Connection], T]) -> Future[T | None]:
        """``read`` on a connection of its own, on its own thread (SQLite works on both tables at
        once, letting go of the GIL) — or None when that connection's snapshot is not the
        caller's (:func:`rc._stamp` differs: something was written in between), and the caller must
        read on its own connection."""
        def run() -> T | None:
            with self.db.read() as conn:
                return read(conn) if rc._stamp(conn, str(stamp[0])) == stamp else None

        return _thread(run)
