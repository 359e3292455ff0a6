"""Every view reads one fold: random histories (scores, agrees, undos, blind scores revised after
the reveal, adjudications, judge runs from several models with errors and not-applicable answers,
flags and safety decisions, content updates) on SQLite and PostgreSQL, and export, the TUI's item
view (``adapter.load_item``), ``calibrate``'s rating rows and ``report`` must tell the same story
of every item: effective scores, safety status and overall (and calibrate's columnar read holds
the same people, judge and adjudication as the rating row); the gap between the judge and the
people stored for the queue's filter is the fold's, whichever write came last."""

from __future__ import annotations

import contextlib
import itertools
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reviewer.domain import PEOPLE_APART, human_gap
from reviewer.errors import UserError
from reviewer.services.run_report import run_report
from reviewer.store import Store
from reviewer.store.views import QueueFilter
from reviewer.tui import adapter
from rubrics.results import ScoreResult
from tests.fold.conftest import REF, add_items, as_

JUDGED = ("accuracy", "clarity", "style")
DIMS = (*JUDGED, "empathy")
LEVELS = (1.0, 2.0, 3.0, 4.0, 5.0)

judge_op = st.tuples(st.just("judge"), st.sampled_from(("m1", "m2", "m3")), st.sampled_from(JUDGED),
                     st.one_of(st.sampled_from(LEVELS), st.just("error"), st.just("n/a")))
human_op = st.tuples(st.just("human"), st.sampled_from(("ana", "ben", "lee")), st.sampled_from(DIMS),
                     st.one_of(st.sampled_from(LEVELS), st.none()),
                     st.sampled_from(("score", "agree", "blind", "revision", "adjudication", "import")))
flag_op = st.tuples(st.just("flag"), st.sampled_from(("ana", "ben")))
decide_op = st.tuples(st.just("decide"), st.integers(0, 2), st.sampled_from(("sam", "sol", "viv")),
                      st.sampled_from(("clear", "escalate", "confirm")))
update_op = st.tuples(st.just("update"))
history = st.lists(st.one_of(judge_op, judge_op, human_op, human_op, human_op, flag_op, decide_op, update_op),
                   max_size=14)
#: What the item is imported with: the judge's scores (or an error) and maybe people's scores.
start = st.fixed_dictionaries({
    "judge": st.fixed_dictionaries({d: st.one_of(st.sampled_from(LEVELS), st.just("error")) for d in JUDGED}),
    "human": st.dictionaries(st.sampled_from(("ana", "ben")), st.dictionaries(st.sampled_from(DIMS),
                                                                              st.sampled_from(LEVELS)), max_size=2),
})
ids = itertools.count()


def _play(store: Store, tmp: Path, item_id: str, first: dict[str, Any],
          ops: list[tuple[Any, ...]]) -> tuple[int, list[float]]:
    """Import the item as ``first`` says, then write the history; returns the item's key and
    every adjudicated score written."""
    judge = {d: {"score": v} if isinstance(v, float) else {"error": "timeout", "raw_reply": ""}
             for d, v in first["judge"].items()}
    human = [{"reviewer": who, "scores": scores} for who, scores in first["human"].items() if scores]
    pk = add_items(store, tmp, [{"id": item_id, "output": "first", "judge": {"model": "m1", "scores": judge},
                                 **({"human": human} if human else {})}])[item_id]
    flags: list[int] = []
    stale: list[int] = []
    adjudications: list[float] = []
    for op in ops:
        if op[0] == "judge":
            _, model, dim, outcome = op
            run = store.runs.create_judge_run(REF, model)
            score = outcome if isinstance(outcome, float) else None
            store.runs.record_results(run, [ScoreResult(
                item_id, dim, "llm_judge", model, score, None if score is None else (score - 1) / 4,
                error="reply was not JSON" if outcome == "error" else None, not_applicable=outcome == "n/a")])
        elif op[0] == "human":
            _, who, dim, score, kind = op
            if score is None:
                as_(store, who).scores.add_human_score(pk, dim, who, None, kind="undo")
                continue
            if kind == "adjudication":
                who = "lee"
                adjudications.append(score)
            as_(store, who).scores.add_human_score(pk, dim, who, score, blind=kind == "blind",
                                            kind="score" if kind == "blind" else kind)
        elif op[0] == "flag":
            with contextlib.suppress(UserError):  # one waiting flag per item and person
                flags.append(as_(store, op[1]).safety.flag_item(pk, op[1], "looks unsafe"))
        elif op[0] == "decide" and (flags or stale):
            _, index, who, decision = op
            pool = flags + stale
            flag = pool[index % len(pool)]
            if flag in stale:  # raised on content that has since changed: no longer decidable
                with pytest.raises(UserError, match="earlier version"):
                    as_(store, who).safety.add_safety_decision(flag, who, decision, "because")
            else:
                as_(store, who).safety.add_safety_decision(flag, who, decision, "because")
        elif op[0] == "update":
            stale.extend(flags)
            flags.clear()
            # new text every time (two updates with one text would make one revision, not two)
            add_items(store, tmp, [{"id": item_id, "output": f"changed {next(ids)}"}], update=True)
    return pk, adjudications


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(first=start, ops=history)
def test_every_view_tells_one_story(fstore: Store, tmp_path_factory: Any, first: dict[str, Any],
                                    ops: list[tuple[Any, ...]]) -> None:
    tmp = tmp_path_factory.mktemp("h")
    item_id = f"h{next(ids)}"
    pk, adjudications = _play(fstore, tmp, item_id, first, ops)

    exported = {r["id"]: r for r in fstore.items.export_rows(REF)}
    row = exported[item_id]
    effective = {d: v["effective"] for d, v in row["dimensions"].items()}

    state = adapter.load_item(fstore, pk, "ana")
    assert state.fold is not None
    assert state.fold.effective == effective
    assert state.fold.safety.status == row["safety"]
    assert state.fold.score.overall == row["overall"]
    assert state.effective_result().overall == row["overall"]  # the live verdict, "ana"'s votes put back in
    assert state.safety_failed == (row["safety"] in ("open", "escalated", "confirmed"))

    rating = {r["item_pk"]: r for r in fstore.ratings.rating_rows(REF)}[pk]
    assert rating["effective"] == effective
    assert rating["safety"] == row["safety"] and rating["overall"] == row["overall"]

    # what calibrate computes from: the columnar read folds this item as the rating row says
    cols = fstore.ratings.rating_columns(REF)
    i = cols.item_pk.tolist().index(pk)
    for dim in DIMS:
        dc = cols.dims[dim]
        humans = {w: dc.humans[i, k] for k, w in enumerate(cols.reviewers) if not math.isnan(dc.humans[i, k])}
        judge = {m: dc.judge[i, k] for k, m in enumerate(cols.models) if not math.isnan(dc.judge[i, k])}
        assert humans == rating["human"].get(dim, {}) and judge == rating["judge"].get(dim, {})
        settled = rating["adjudicated"].get(dim)
        assert math.isnan(dc.adjudicated[i]) if settled is None else dc.adjudicated[i] == settled

    report = run_report(fstore, REF)
    assert Counter(report["safety"]) == Counter(r["safety"] for r in exported.values())
    assert report["incomplete"] == sum(1 for r in exported.values() if r["overall"] is None)
    queue = {r.item_pk: r for r in fstore.queue.queue_page("triage", REF, limit=10_000)}
    assert queue[pk].flagged == (row["safety"] in ("open", "escalated", "confirmed"))
    # the queue's "judge and people disagree": the stored gap is the fold's, after whatever wrote last
    stored = next(it.human_gap for it, _ in fstore.items.item_folds(item_pks=[pk]))
    gap = human_gap(fstore.rubrics.get_rubric(REF), state.fold.dims)
    assert stored == gap
    apart = {r.item_pk for r in fstore.queue.queue_page("triage", REF, limit=10_000, filt=QueueFilter(people_disagree=True))}
    assert (pk in apart) == (gap is not None and gap >= PEOPLE_APART)

    # the rules themselves, on this item
    if row["safety"] in ("open", "escalated", "confirmed") and row["overall"] is not None:
        assert row["overall"] == 0.0 and not row["passed"]  # the safety cap
    states = {d: v["state"] for d, v in row["dimensions"].items()}
    if any(states[d] in ("failed", "waiting") for d in ("accuracy", "clarity", "empathy")):
        assert row["overall"] is None and row["band"] is None and row["incomplete"]
    for v in row["dimensions"].values():
        if v["source"] == "adjudication":
            assert v["effective"] in adjudications
        elif v["source"] == "human":
            assert v["effective"] == sum(v["human"].values()) / len(v["human"])
        assert v["bias"] is None or v["bias"] == v["judge"] - sum(v["human"].values()) / len(v["human"])
