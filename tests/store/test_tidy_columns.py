"""The tidy table is built as columns (reviewer.services.tidy_build) for speed; it must be the
per-item fold's reading row for row. The reference here reads each item's fold
(``store.items.item_folds``), its people's standing scores (``human_records``) and its judge
scores' provenance (read here by SQL) one item at a time, as the export did before it was made
fast — on a store with what makes the rule hard: undos of votes and of adjudications,
two leads' adjudications, a re-score, a judge error, two judge models re-run, an item revised twice
with scores on each revision, tags, hostile text; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlmodel import col

from reviewer.domain import NO_MODEL
from reviewer.domain.marks import mark_records
from reviewer.domain.provenance import as_utc, human_records
from reviewer.services import tidy
from reviewer.services.importing import import_file
from reviewer.services.tidy import tidy_rows, trace_id
from reviewer.store import Store
from reviewer.store.tables import Item, JudgeRun, JudgeScore

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")
HOSTILE = "\x1b[31mred\x1b[0m [b]x[/b] \u202egnp"


def reference_rows(store: Store, rubric_ref: str | None = None) -> list[dict[str, Any]]:
    """The tidy rows as the per-item fold reads them, item by item."""
    out: list[dict[str, Any]] = []
    folds = list(store.items.item_folds(rubric_ref))
    marks = store.marks.marks([it.pk for it, _ in folds])
    with store.db.read() as conn:  # each judge score's run, the run's source, the rationale and time
        details = {pk: SimpleNamespace(run=run, source=source, rationale=rationale or "", created_at=at)
                   for pk, run, source, rationale, at in conn.execute(
                       select(col(JudgeScore.pk), col(JudgeRun.pk), col(JudgeRun.source), col(JudgeScore.rationale),
                              col(JudgeScore.created_at)).join(JudgeRun, col(JudgeRun.pk) == col(JudgeScore.run_pk)))}
    for it, fold in folds:
        rubric = store.rubrics.get_rubric(it.rubric_ref)
        meta = it.meta or {}
        records = mark_records(marks.get(it.pk, []), fold.revision)
        common = {"rubric": it.rubric_ref, "dataset": it.dataset, "item_id": it.item_id, "trace_id": trace_id(meta),
                  "metadata": json.dumps(meta, ensure_ascii=False, sort_keys=True)}
        for dim in rubric.dimensions:
            f = fold.dims[dim.id]
            scale = dim.judge_scale or dim.scale
            for model, j in sorted(f.judge.models.items()):
                d = details.get(j.pk)
                norm = j.normalised if j.normalised is not None else (
                    scale.normalise(j.score) if j.score is not None else None)
                out.append({**common, "revision": fold.revision, "current_revision": True, "dimension": dim.id,
                            "scorer_type": "judge", "scorer": model or NO_MODEL, "kind": d.source if d else "judge",
                            "score": j.score, "normalised": norm, "reason": (d.rationale or None) if d else None,
                            "error": j.error, "not_applicable": j.not_applicable, "tags": [], "blind": None,
                            "run": d.run if d else None, "created_at": as_utc(d.created_at) if d else None,
                            "marks": "[]"})
            for h in human_records(fold, dim.id):
                out.append({**common, "revision": h["revision"], "current_revision": h["current_revision"],
                            "dimension": dim.id, "scorer_type": "human", "scorer": h["reviewer"], "kind": h["kind"],
                            "score": h["score"], "normalised": dim.scale.normalise(h["score"]),
                            "reason": h["reason"], "error": None, "not_applicable": False, "tags": list(h["tags"]),
                            "blind": h["blind"], "run": None,
                            "created_at": datetime.fromisoformat(h["created_at"]) if h["created_at"] else None,
                            "marks": json.dumps([m for m in records if m["author"] == h["reviewer"]
                                                 and m["dimension"] == dim.id and m["revision"] == h["revision"]],
                                                ensure_ascii=False)})
    return out


def _import(store: Store, tmp: Path, rows: list[dict[str, Any]], update: bool = False) -> None:
    path = tmp / f"items-{len(list(tmp.iterdir()))}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_file(store, path, REF, dataset="d", update_existing=update)


#: Each item's metadata (part of its content: a re-import with other metadata is a new revision).
META: dict[str, dict[str, Any]] = {"a": {"trace_id": "t-a", "note": HOSTILE}, "b": {}, "c": {"trace_id": 3}}


def _item(i: str, output: str, model: str, judge: float | dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"id": i, "output": output, "metadata": META[i], "judge": {"model": model, "scores": dict.fromkeys(DIMS, judge)},
            **extra}


def hard_store(store: Store, tmp: Path) -> dict[str, int]:
    """A store whose standing scores need every part of the rule; the items' keys by id."""
    _import(store, tmp, [
        _item("a", "one", "m1", 5,
              human=[{"reviewer": "ana", "scores": {"accuracy": {"score": 4, "reason": HOSTILE, "tags": ["x", "y"]}}}]),
        _item("b", "two", "m1", {"error": "timeout"}),
        _item("c", "three", "m1", 7)])
    _import(store, tmp, [_item("a", "one", "m2", 6), _item("c", "three", "m2", 2)])
    _import(store, tmp, [_item("a", "one", "m1", 8)])  # m1 again: its later answer stands
    pks = {it.item_id: it.pk for it, _ in store.items.item_folds(REF)}
    a, b, c = pks["a"], pks["b"], pks["c"]
    for lead in ("lee", "max"):
        store.roles.add_reviewer(lead, "lead")
    add = store.scores.add_human_score
    add(a, "accuracy", "ben", 3, blind=True, tags=["t1"])
    add(a, "accuracy", "ben", 6, kind="revision", reason="saw the judge")
    add(a, "relevance", "ben", 2)
    add(a, "relevance", "ben", None, kind="undo")  # withdrawn: no relevance row for ben
    add(a, "accuracy", "lee", 9, kind="adjudication")
    add(a, "accuracy", "max", 7, kind="adjudication")  # the later lead's adjudication settles it
    add(a, "clarity", "lee", 5)
    add(a, "clarity", "lee", 4, kind="adjudication")
    add(a, "clarity", "lee", None, kind="undo")  # withdraws the adjudication, the vote stays
    add(b, "accuracy", "ana", 2)
    add(b, "accuracy", "ana", 3)  # re-scored: only the latest stands
    add(b, "completeness", "ana", 1)
    add(b, "completeness", "ana", None, kind="undo")
    add(b, "completeness", "ana", 8)  # scored again after the undo
    add(c, "accuracy", "chen", 5)
    store.marks.add_mark(c, "accuracy", "chen", 0, 5)  # on revision 1: stays with chen's revision-1 row
    store.marks.add_mark(a, "accuracy", "ben", 1, 3)
    store.marks.add_mark(a, "accuracy", "ben", 0, 2)
    # c's content changes: its scores so far belong to revision 1, new ones to revision 2
    _import(store, tmp, [{**_item("c", "three, edited", "m1", 4), "metadata": {"trace_id": "t-c"}}], update=True)
    add(c, "accuracy", "chen", 6)
    add(c, "accuracy", "ana", 2, tags=[HOSTILE])
    # and again: revision 3 is current, 2 and 1 are earlier (read newest first)
    _import(store, tmp, [{**_item("c", "three, edited twice", "m1", 5), "metadata": {"trace_id": "t-c"}}], update=True)
    add(c, "accuracy", "ben", 9)
    return pks


@pytest.mark.parametrize("batch", [tidy.BATCH, 2])
def test_the_columns_are_the_per_item_fold_row_for_row(store: Store, tmp_path: Path, batch: int,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """In one batch, and in batches of two items (each read on the reading thread while the one
    before is built)."""
    monkeypatch.setattr(tidy, "BATCH", batch)
    hard_store(store, tmp_path)
    import_file(store, Path(__file__).resolve().parents[2] / "reviewer" / "demo" / "rag-answer.jsonl",
                "rag-answer@1.0.0", dataset="demo")  # a second rubric: its items and dimensions beside
    for ref in (REF, None):
        got, want = list(tidy_rows(store, ref)), reference_rows(store, ref)
        assert len(got) == len(want) > 25
        for g, w in zip(got, want, strict=True):
            assert dict(g) == w
    rows = list(tidy_rows(store, REF))
    c_rev = {(r["revision"], r["current_revision"], r["scorer"]) for r in rows
             if r["item_id"] == "c" and r["dimension"] == "accuracy"}
    assert c_rev == {(3, True, "m1"), (3, True, "ben"), (2, False, "chen"), (2, False, "ana"), (1, False, "chen")}
    settled = [r for r in rows if r["item_id"] == "a" and r["dimension"] == "accuracy" and r["kind"] == "adjudication"]
    assert [(r["scorer"], r["score"]) for r in settled] == [("max", 7.0)]
    marked = {(r["item_id"], r["scorer"], r["revision"]): [m["text"] for m in json.loads(r["marks"])]
              for r in rows if r["marks"] != "[]"}
    assert marked == {("a", "ben", 1): ["ne", "on"], ("c", "chen", 1): ["three"]}


@pytest.mark.parametrize("batch", [2, 5])
def test_the_items_are_read_a_batch_at_a_time(store: Store, tmp_path: Path, batch: int,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The items (metadata and all) are paged by key like their scores: no query of the read
    returns more than a batch of items, and together they return each item once. Each item query
    the read ran is run again afterwards, as it was sent, to count what it returned."""
    monkeypatch.setattr(tidy, "BATCH", batch)
    hard_store(store, tmp_path)
    import_file(store, Path(__file__).resolve().parents[2] / "reviewer" / "demo" / "rag-answer.jsonl",
                "rag-answer@1.0.0", dataset="demo")
    sent: list[tuple[str, Any]] = []

    def item_query(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        if "item.item_id" in statement:  # the items' own read (the scores' reads name only item.pk)
            sent.append((statement, parameters))

    event.listen(store.db.engine, "before_cursor_execute", item_query)
    try:
        rows = list(tidy_rows(store))
    finally:
        event.remove(store.db.engine, "before_cursor_execute", item_query)
    with store.db.engine.connect() as conn:
        read = [conn.exec_driver_sql(statement, parameters).all() for statement, parameters in sent]
        n_items = conn.execute(select(func.count()).select_from(Item)).scalar_one()
    assert len(read) > 2 and max(len(r) for r in read) <= batch
    assert sorted(r[0] for part in read for r in part) == sorted(set(r[0] for part in read for r in part))
    assert sum(len(r) for r in read) == n_items > 3 * batch
    assert len({(r["dataset"], r["item_id"]) for r in rows}) == n_items


#: Reals that travel differently: a level, a third (no short binary form), a negative fraction,
#: zero, a large value with a fraction, values too small or too large for the two exact integers
#: (read again), and NULL.
ODD_REALS = [0.5, 1 / 3, -2 / 9, 0.0, 3e12 + 0.5, 1e-30, -1e-30, 2.0 ** -21 / 3, 1e13 / 3, 1e300, None]


def test_reals_come_back_exactly(store: Store, tmp_path: Path) -> None:
    """Every real read by the tidy table's aggregate read is the stored double, bit for bit (SQLite's
    JSON would give 15 digits: 1/3 would come back as 0.333333333333333)."""
    from reviewer.store.tables import table_of

    _import(store, tmp_path, [_item("a", "one", "m1", 5)])
    with store.db.write() as conn:
        run, item = conn.execute(select(col(JudgeScore.run_pk), col(JudgeScore.item_pk))).first() or (0, 0)
        for value in ODD_REALS:  # (appended rows: the table is append-only)
            conn.execute(table_of(JudgeScore).insert().values(run_pk=run, item_pk=item, dimension="accuracy",
                                                              model="m1", score=5, normalised=value))
    [batch] = list(store.tidy.tidy_batches(REF))
    got = sorted(zip(batch.judge.pk.tolist(), batch.judge.normalised.tolist(), strict=True))[-len(ODD_REALS):]
    for (_, read), value in zip(got, ODD_REALS, strict=True):
        if value is None:
            assert read != read  # NaN
        else:
            assert read.hex() == value.hex()
