"""The judge's side of the store: runs, scores, safety hits, the reply cache, item summaries."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace

from sqlalchemy import ColumnElement, Connection, Update, bindparam, func, select, update
from sqlmodel import col

from reviewer.errors import UserError
from reviewer.store.base import insert_new_keys, inserted_pk, records, values_by_key
from reviewer.store.corrections import latest_on_current
from reviewer.store.db import Db
from reviewer.store.queue import refresh_triage_keys
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.tables import (
    HumanScore,
    Item,
    JudgeCache,
    JudgeRun,
    JudgeScore,
    SafetyFlag,
    now,
    table_of,
)
from reviewer.store.vectors import read_vectors, write_vectors
from reviewer.store.views import JudgeDimensionReport, JudgeRunReport, Record
from rubrics.results import SafetyHit, ScoreResult

#: How a human correction is named in a judge score's ``examples_used``: ``human:<human score key>``.
EXAMPLE_PREFIX = "human:"


def _summary_update() -> Update:
    """The UPDATE of one item's judge summaries, its values bound by name (executed for many)."""
    item = table_of(Item)
    names = ("judge_overall", "judge_band", "judge_passed", "judge_headline", "judge_spread", "human_gap",
             "n_errors", "flagged", "safety")
    return update(item).where(item.c.pk == bindparam("v_pk")).values(
        {n: bindparam(n, type_=item.c[n].type) for n in names})


_SUMMARY_UPDATE = _summary_update()


class Runs:
    """Judge runs and what they produce."""

    def __init__(self, db: Db, rubrics: Rubrics) -> None:
        self.db = db
        self.rubrics = rubrics

    def create_judge_run(self, rubric_ref: str, model: str | None, params: Mapping[str, object] | None = None,
                         dataset: str | None = None, source: str = "judge") -> int:
        """Open a run; its scores are kept apart from every other run's."""
        ref = self.rubrics.get_rubric(rubric_ref).ref
        with self.db.write() as conn:
            res = conn.execute(table_of(JudgeRun).insert().values(
                rubric_ref=ref, model=model, params=params or {}, dataset=dataset, source=source))
            return inserted_pk(res)

    def _run(self, conn: Connection, run_id: int) -> SimpleNamespace:
        found = records(conn, select(JudgeRun).where(col(JudgeRun.pk) == run_id))
        run = found[0] if found else None
        if run is None:
            raise UserError(f"no judge run {run_id}")
        return run

    def _pks(self, conn: Connection, run: SimpleNamespace, ids: set[str]) -> dict[str, int]:
        """Item keys by id, for results that carry no key (made outside a store). An id that
        names items in several datasets of the run's rubric is refused: which one is meant
        cannot be told, and a guess would put one item's verdict on another."""
        q = select(col(Item.item_id), col(Item.pk)).where(col(Item.rubric_ref) == run.rubric_ref,
                                               col(Item.item_id).in_(sorted(ids)))
        if run.dataset:
            q = q.where(col(Item.dataset) == run.dataset)
        found: dict[str, int] = {}
        for item_id, pk in conn.execute(q).all():
            if item_id in found:
                raise UserError(f"item id {item_id!r} is in several datasets of {run.rubric_ref}: "
                                "say which with --dataset")
            found[item_id] = pk
        return found

    def _targets(self, conn: Connection, run: SimpleNamespace, keyed: Sequence[ScoreResult | SafetyHit]) -> tuple[list[int | None], dict[int, int]]:
        """The item key each result or hit belongs to (its own ``item_key``, else found by id
        within the run's rubric and dataset; None when there is no such item), and each of those
        items' current content revision."""
        keys = {k.item_key for k in keyed if k.item_key is not None}
        by_id = self._pks(conn, run, {k.item_id for k in keyed if k.item_key is None}) \
            if any(k.item_key is None for k in keyed) else {}
        wanted = keys | set(by_id.values())
        revision: dict[int, int] = {}
        for i in range(0, len(wanted), 500):
            chunk = sorted(wanted)[i:i + 500]
            revision.update(conn.execute(select(col(Item.pk), col(Item.revision)).where(
                col(Item.pk).in_(chunk), col(Item.rubric_ref) == run.rubric_ref)).all())
        out = [k.item_key if k.item_key is not None else by_id.get(k.item_id) for k in keyed]
        return [pk if pk in revision else None for pk in out], revision

    def record_results(self, run_id: int, results: Iterable[ScoreResult]) -> None:
        """Store judge scores (errors included, with the raw reply) on the items they are of
        (by key: the same id may name items in several datasets) and their current content
        revision, and refresh the items' summaries."""
        results = list(results)
        if not results:
            return
        with self.db.write() as conn:
            run = self._run(conn, run_id)
            targets, revision = self._targets(conn, run, results)
            rows: list[dict[str, object]] = [dict(
                run_pk=run_id, item_pk=pk, revision=revision[pk], dimension=r.dimension, model=r.model or run.model,
                method=r.method, score=r.score, normalised=r.normalised, samples=list(r.samples),
                std=r.std, rationale=r.rationale, evidence=list(r.evidence), confidence=r.confidence,
                error=r.error, raw_reply=r.raw_reply, prompt_hash=r.prompt_hash, cost_usd=r.cost_usd,
                tokens_in=r.tokens_in, tokens_out=r.tokens_out, turn=r.turn,
                not_applicable=r.not_applicable, examples_used=list(r.examples_used),
                stated_overall=r.stated_overall,
            ) for r, pk in zip(results, targets, strict=True) if pk is not None]
            if rows:
                conn.execute(table_of(JudgeScore).insert(), rows)
            self.refresh_summaries(conn, run.rubric_ref, {pk for pk in targets if pk is not None})

    def refresh_summaries(self, conn: Connection, rubric_ref: str, item_pks: set[int]) -> None:
        """Recompute the queue's judge overall/band/pass/errors/spread and the safety status of
        these items from their fold (:mod:`reviewer.domain`): the judge's side alone, each model's
        latest row per dimension, the panel's score, the safety status over every flag, and how
        far the judge is from the people (``human_gap``)."""
        from reviewer.domain import fold_item, human_gap, judge_only
        from reviewer.store.fold import item_rows

        if not item_pks:
            return
        rubric = self.rubrics.get_rubric(rubric_ref)
        pks = sorted(item_pks)
        for i in range(0, len(pks), 500):
            chunk = pks[i:i + 500]
            revs = conn.execute(select(col(Item.pk), col(Item.revision)).where(col(Item.pk).in_(chunk))).all()
            rows = item_rows(conn, [(pk, rev) for pk, rev in revs])
            summaries: list[dict[str, object]] = []
            for pk, _ in revs:
                fold = fold_item(rubric, rows[pk])
                res = judge_only(rubric, fold)
                spreads = [f.judge.spread for f in fold.dims.values() if f.judge.spread is not None]
                # not applicable has neither a score nor an error
                errors = sum(1 for f in fold.dims.values() for r in f.judge.models.values() if r.error)
                summaries.append(dict(
                    v_pk=pk, judge_overall=res.overall, judge_band=res.item_band.label if res.item_band else None,
                    judge_passed=res.passed if res.overall is not None else None, judge_headline=res.headline,
                    judge_spread=max(spreads) if spreads else None, human_gap=human_gap(rubric, fold.dims),
                    n_errors=errors, flagged=fold.safety.capped, safety=fold.safety.status))
            if summaries:  # one statement for the chunk (built once, not once per item)
                conn.execute(_SUMMARY_UPDATE, summaries)
            refresh_triage_keys(conn, "pk IN (" + ",".join(str(int(p)) for p in chunk) + ")", {})

    def record_safety_hits(self, run_id: int | None, hits: Iterable[SafetyHit],
                           rubric_ref: str | None = None) -> int:
        """Open a safety flag for each hit (not twice for the same span); returns how many."""
        hits = list(hits)
        if not hits:
            return 0
        with self.db.write() as conn:
            if run_id is not None:
                run = self._run(conn, run_id)
            else:
                run = SimpleNamespace(rubric_ref=self.rubrics.get_rubric(rubric_ref or "").ref, dataset=None)
            targets, revision = self._targets(conn, run, hits)
            existing = {(pk, gate, start) for pk, gate, start in conn.execute(
                select(col(SafetyFlag.item_pk), col(SafetyFlag.gate), col(SafetyFlag.start))
                .join(Item, (col(Item.pk) == col(SafetyFlag.item_pk)) & (col(Item.revision) == col(SafetyFlag.revision)))
                .where(col(SafetyFlag.item_pk).in_(list(revision))))}
            rows: list[dict[str, object]] = []
            flagged: set[int] = set()
            for h, pk in zip(hits, targets, strict=True):
                if pk is None or (pk, h.gate, h.start) in existing:
                    continue
                existing.add((pk, h.gate, h.start))
                flagged.add(pk)
                rows.append(dict(item_pk=pk, revision=revision[pk], run_pk=run_id, gate=h.gate,
                                 detector=h.detector, start=h.start, end=h.end, matched=h.matched,
                                 context=h.context, severity=h.severity))
            if rows:
                conn.execute(table_of(SafetyFlag).insert(), rows)
            self.refresh_summaries(conn, run.rubric_ref, flagged)
            return len(rows)

    def finish_judge_run(self, run_id: int, status: str, totals: Record) -> None:
        """Close a run with its status (done, interrupted, cost_cap...) and totals."""
        with self.db.write() as conn:
            conn.execute(update(JudgeRun).where(col(JudgeRun.pk) == run_id).values(
                status=status, totals=totals, finished_at=now()))

    def panel_disagreement(self, rubric_ref: str, dataset: str | None = None,
                           at_least: float | None = None) -> tuple[int, int]:
        """Items scored by a panel (two models or more), and how many of them have models at
        least ``at_least`` of the scale apart on some dimension (default: the domain's
        ``PANEL_APART``, a quarter of the scale)."""
        from reviewer.domain import PANEL_APART

        at_least = PANEL_APART if at_least is None else at_least
        ref = self.rubrics.get_rubric(rubric_ref).ref
        conds = [col(Item.rubric_ref) == ref, col(Item.judge_spread).is_not(None)]
        if dataset:
            conds.append(col(Item.dataset) == dataset)
        with self.db.read() as conn:
            n, apart = conn.execute(select(func.count(), func.count().filter(
                col(Item.judge_spread) >= at_least)).where(*conds)).one()
        return int(n), int(apart)

    def judge_cache_get(self, key: str) -> Record | None:
        """A cached judge reply, or None."""
        with self.db.read() as conn:
            row = conn.execute(select(col(JudgeCache.value)).where(col(JudgeCache.key) == key)).first()
        return dict(row[0]) if row else None

    def judge_cache_get_many(self, keys: Collection[str]) -> dict[str, Record]:
        """The cached values of those ``keys`` that have one (a query per many keys)."""
        with self.db.read() as conn:
            return {k: dict(v) for k, v in values_by_key(conn, table_of(JudgeCache), "value", keys).items()}

    def judge_cache_put(self, key: str, value: Record) -> None:
        """Cache a judge reply (first write wins)."""
        with self.db.write() as conn:
            if conn.execute(select(col(JudgeCache.key)).where(col(JudgeCache.key) == key)).first() is None:
                conn.execute(table_of(JudgeCache).insert().values(key=key, value=value))

    def judge_cache_keys(self, limit: int) -> set[str] | None:
        """Every judge cache key, or None when there are more than ``limit``."""
        with self.db.read() as conn:
            keys = set(conn.execute(select(col(JudgeCache.key)).limit(limit + 1)).scalars())
        return None if len(keys) > limit else keys

    def judge_cache_put_many(self, entries: dict[str, Record]) -> None:
        """Cache several judge replies in one transaction (first write wins). Not fsynced on
        SQLite: a power cut can only lose cache entries, which the next run asks for again."""
        if not entries:
            return
        with self.db.write(durable=False) as conn:
            insert_new_keys(conn, table_of(JudgeCache), "value", entries)

    def embedding_vectors(self, keys: Collection[str]) -> dict[str, bytes]:
        """The cached embedding vectors of those ``keys`` that have one (float32 bytes; a few
        queries for a whole chunk of texts)."""
        with self.db.read() as conn:
            return read_vectors(conn, keys)

    def keep_embedding_vectors(self, vectors: Mapping[str, bytes]) -> None:
        """Cache embedding vectors in one transaction (first write wins). Not fsynced on SQLite:
        a power cut can only lose vectors, which the next run encodes again."""
        if vectors:
            with self.db.write(durable=False) as conn:
                write_vectors(conn, vectors)

    def judge_pending_path(self) -> Path:
        """Where a judge run that could not write its replies keeps them until the next run stores
        them: beside a SQLite file (``NAME.judge-pending.json``), or for a server database in the
        user data directory, named by the database's URL (its password left out)."""
        url = self.db.engine.url
        if self.db.dialect == "sqlite" and url.database and url.database != ":memory:":
            return Path(f"{url.database}.judge-pending.json")
        from reviewer.locations import data_dir

        name = hashlib.sha256(url.render_as_string(hide_password=True).encode("utf-8")).hexdigest()[:16]
        return data_dir() / f"judge-pending-{name}.json"

    def items_for_judging(self, rubric_ref: str, dataset: str | None = None,
                          only_missing_for_model: str | None = None) -> Iterator[Record]:
        """The items of a rubric (in a dataset); with ``only_missing_for_model``, only those
        that model has not finished: some item-level dimension has no answer from it yet (never
        scored, cut off by Ctrl-C or the cost cap, or its judge call failed). Not applicable
        counts as an answer."""
        rubric = self.rubrics.get_rubric(rubric_ref)
        ref = rubric.ref
        wanted = sorted(d.id for d in rubric.dimensions if not d.is_pair and d.method != "human")
        with self.db.read() as conn:
            q = select(Item).where(col(Item.rubric_ref) == ref)
            if dataset:
                q = q.where(col(Item.dataset) == dataset)
            items = records(conn, q.order_by(col(Item.pk)))
            done: set[int] = set()
            if only_missing_for_model is not None and wanted:
                answered = func.count(col(JudgeScore.dimension).distinct())
                # by item key, on the item's current content: an id repeated in another dataset,
                # or an earlier revision's answers, do not count
                scope = [col(Item.rubric_ref) == ref] + ([col(Item.dataset) == dataset] if dataset else [])
                done = set(conn.execute(
                    select(col(JudgeScore.item_pk))
                    .join(Item, (col(Item.pk) == col(JudgeScore.item_pk)) & (col(Item.revision) == col(JudgeScore.revision)))
                    .where(*scope, col(JudgeScore.model) == (only_missing_for_model or None),
                           col(JudgeScore.error).is_(None),
                           col(JudgeScore.dimension).in_(wanted))
                    .group_by(col(JudgeScore.item_pk)).having(answered == len(wanted))).scalars())
        for it in items:
            if it.pk in done:
                continue
            yield {"pk": it.pk, "id": it.item_id, "dataset": it.dataset, "output": it.output, "input": it.input,
                   "context": it.context, "reference": it.reference, "conversation": it.conversation or (),
                   "group": it.grp, "variant": it.variant, "metadata": it.meta or {}}

    def judge_run_report(self, run_id: int) -> JudgeRunReport:
        """Per-dimension counts, errors, cost and tokens of a run."""
        with self.db.read() as conn:
            run = self._run(conn, run_id)
            mine = col(JudgeScore.run_pk) == run_id
            rows = conn.execute(select(
                col(JudgeScore.dimension), func.count(), func.count(col(JudgeScore.error)), func.avg(col(JudgeScore.score)),
                func.sum(col(JudgeScore.tokens_in)), func.sum(col(JudgeScore.tokens_out)),
            ).where(mine).group_by(col(JudgeScore.dimension))).all()
            costs, total = cost_sums(conn, mine)
        dims: dict[str, JudgeDimensionReport] = {d: {"scores": n, "errors": e, "mean": m, "cost_usd": costs.get(d, 0.0),
                    "tokens_in": int(ti or 0), "tokens_out": int(to or 0)} for d, n, e, m, ti, to in rows}
        return {"run": run_id, "rubric": run.rubric_ref, "model": run.model, "status": run.status,
                "totals": run.totals or {}, "dimensions": dims, "cost_usd": total}

    def human_examples(self, rubric_ref: str, dimension: str, k: int) -> list[Record]:
        """People's recent corrections of the judge on a dimension, newest first, one example per
        correction: a person's current score (or a lead's standing adjudication) on an item's
        current content, with a reason, that differs from the judge's score on that content (the
        panel's, as the item's fold reads it). A reason given on an earlier revision of the content
        is never paired with the text as it is now.

        Enough are returned that leaving out any one item's still leaves ``k`` (or all there
        are): the judge must never see its own item's answer, so the runner drops the examples of
        the item it is judging (``item_key``) and keeps the first ``k`` of the rest."""
        from reviewer.domain import sides
        from reviewer.store.fold import item_rows

        if k <= 0:
            return []
        rubric = self.rubrics.get_rubric(rubric_ref)
        newest = func.max(col(HumanScore.pk))
        # items with a reasoned score on their current content, by their newest such row: no
        # current vote of an item further down is newer than the row that ranks it
        candidates = (select(col(Item.pk), col(Item.revision), col(Item.item_id), newest)
                      .join(Item, (col(Item.pk) == col(HumanScore.item_pk))
                            & (col(Item.revision) == col(HumanScore.revision)))
                      .where(col(Item.rubric_ref) == rubric.ref, col(HumanScore.dimension) == dimension,
                             col(HumanScore.score).is_not(None), col(HumanScore.reason).is_not(None))
                      .group_by(col(Item.pk), col(Item.revision), col(Item.item_id))
                      .order_by(newest.desc()))
        found: list[Record] = []
        with self.db.read() as conn:
            ranked = conn.execute(candidates).all()
            for i in range(0, len(ranked), EXAMPLE_CHUNK):
                chunk = ranked[i:i + EXAMPLE_CHUNK]
                rows = item_rows(conn, [(pk, rev) for pk, rev, _, _ in chunk], flags=False)
                for pk, _, item_id, _ in chunk:
                    humans, judges = sides(rubric, rows[pk])
                    judged, people = judges.get(dimension), humans.get(dimension)
                    if judged is None or judged.panel is None or people is None:
                        continue
                    standing = [*people.votes.values(), *([people.adjudication] if people.adjudication else [])]
                    found += [{"id": f"{EXAMPLE_PREFIX}{v.pk}", "item_key": pk, "item_id": item_id,
                               "human_score": v.score, "reason": v.reason, "judge_score": judged.panel}
                              for v in standing if v.reason and v.score != judged.panel]
                settled = sorted((e for e in found if int(e["id"].removeprefix(EXAMPLE_PREFIX)) >= chunk[-1][3]),
                                 key=lambda e: -int(e["id"].removeprefix(EXAMPLE_PREFIX)))
                enough = _enough(settled, k)
                if enough is not None:
                    found = enough
                    break
            else:
                found.sort(key=lambda e: -int(e["id"].removeprefix(EXAMPLE_PREFIX)))
            outputs = dict(conn.execute(select(col(Item.pk), col(Item.output)).where(
                col(Item.pk).in_(sorted({e["item_key"] for e in found})))).all()) if found else {}
            corrected = latest_on_current(conn, (e["item_key"] for e in found))
        for e in found:
            e["output"] = outputs[e["item_key"]]
            if e["item_key"] in corrected:  # the answer as a person says it should have been
                e["corrected"] = corrected[e["item_key"]]
        return found


#: Items folded at once when looking for correction examples.
EXAMPLE_CHUNK = 200


def cost_sums(conn: Connection, *where: ColumnElement[bool]) -> tuple[dict[str, float], float]:
    """The judge's cost per dimension over the score rows that meet ``where``, and over all of
    them: how many rows cost each distinct amount, counted by the database, summed by
    :func:`reviewer.domain.columns.exact_sum` — not the database's ``SUM``, whose figure depends
    on the order it adds the rows in (and differs between SQLite and PostgreSQL)."""
    from reviewer.domain.columns import exact_sum

    cost = col(JudgeScore.cost_usd)
    seen: dict[str, list[tuple[float, int]]] = {}
    for d, value, n in conn.execute(select(col(JudgeScore.dimension), cost, func.count())
                                    .where(*where).group_by(col(JudgeScore.dimension), cost)):
        seen.setdefault(d, []).append((float(value or 0), int(n)))
    return ({d: exact_sum(pairs) for d, pairs in seen.items()},
            exact_sum(pair for pairs in seen.values() for pair in pairs))


def _enough(newest_first: list[Record], k: int) -> list[Record] | None:
    """The shortest head of ``newest_first`` that still holds ``k`` examples with any one item's
    left out, or None when the whole list does not."""
    per_item: dict[int, int] = {}
    for n, e in enumerate(newest_first, 1):
        per_item[e["item_key"]] = per_item.get(e["item_key"], 0) + 1
        if n - max(per_item.values()) >= k:
            return newest_first[:n]
    return None
