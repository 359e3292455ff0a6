"""Labels are labels: only scores given in the audit queue (or imported, or adjudicated) on
audit-sample items count for the audit agreement and the corrected estimates. A triage session
that reaches audit items changes neither; a score given in the audit queue does. Both backends,
through every path that selects labels: calibrate's columns, the per-item rows and folds, and
the corrected leaderboard."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reviewer.services.calibrate_service import calibrate
from reviewer.services.estimates import audit_folds, corrected_leaderboard
from reviewer.services.importing import import_file
from reviewer.store import Store
from tests.store.conftest import DEMO

REF = "general-quality@1.0.0"


def _close(a: Any, b: Any) -> bool:
    """``a == b`` through dicts and lists, numbers to the last bit (NaN equal to NaN)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    return bool(a == b)


def _import(store: Store, tmp_path: Path) -> None:
    """The demo's items with the judge's scores and no people's, neither gold items nor in an
    audit sample (the tests draw their own), a model name per item: groups."""
    rows = [json.loads(line) for line in (DEMO / "general-quality.jsonl").read_text().splitlines() if line]
    for i, r in enumerate(rows):
        r.pop("human", None)
        r.pop("audit", None)
        r.pop("gold", None)
        r["metadata"] = {"model": "a" if i % 2 else "b"}
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_file(store, path, REF, dataset="demo")


def _review(store: Store, claim: Any, score: float) -> None:
    """Score every dimension of the claimed item, as the TUI writes it (the claim's queue as the
    sample, under its lease), and complete the claim."""
    for d in store.rubrics.get_rubric(REF).dimensions:
        value = score if d.scale.contains(score) else d.scale.min
        store.scores.add_human_score(claim.item_pk, d.id, claim.reviewer, value, sample=claim.queue, claim=claim)
    assert store.queue.complete(claim)


def _figures(store: Store) -> dict[str, Any]:
    """What the labels feed: the audit agreement's item counts, every corrected estimate, the
    corrected pass rate, the labelled folds' people and the per-item audit rows."""
    report = calibrate(store, REF, draws=0)
    assert report["sample"] == "audit"
    folds = audit_folds(store, store.rubrics.get_rubric(REF), None, "mean") or []
    return {"n": {d["dimension"]: d["n"] for d in report["dimensions"]},
            "estimates": {d["dimension"]: d.get("estimate") for d in report["dimensions"]},
            "pass_rate": report["pass_rate_estimate"],
            "people": {pk: {k: f.people for k, f in fold.dims.items()} for pk, fold in folds},
            "rows": [r["human"] for r in store.ratings.rating_rows(REF, None, "audit")],
            "board": corrected_leaderboard(store, store.rubrics.get_rubric(REF), None, "metadata.model")}


def _labelled(figures: dict[str, Any]) -> int:
    return int(figures["estimates"]["accuracy"]["n_labelled"])


def test_a_triage_session_on_audit_items_leaves_the_labels_alone(store: Store, tmp_path: Path) -> None:
    _import(store, tmp_path)
    assert store.queue.create_audit_sample(REF, 30, seed=4) == 30
    audit = store.queue.audit_pks(REF)
    for i in range(8):  # an audit session: ana labels eight audit items
        claim = store.queue.claim_next("audit", "ana", REF)
        assert claim is not None and claim.item_pk in audit
        _review(store, claim, 2.0 + i % 3)
    before = _figures(store)
    verdicts = store.ratings.judge_passed_of(sorted(audit))  # the pass rate counts items the judge completed
    passes = before["pass_rate"]["n_labelled"]
    assert _labelled(before) == 8 and passes >= 6

    # a triage session that reaches audit items, labelled and not yet labelled alike
    reached = 0
    while reached < 6:
        claim = store.queue.claim_next("triage", "bo", REF)
        assert claim is not None
        reached += claim.item_pk in audit
        _review(store, claim, 5.0)
    after = _figures(store)
    # the same figures, to the last bit: no sum depends on the order the database hands rows in
    assert _close(after, before)
    # triage scores still count for the all sample
    assert "bo" in store.ratings.rating_columns(REF, None, "all").reviewers
    assert "bo" not in store.ratings.rating_columns(REF, None, "audit").reviewers

    # a score given in the audit queue is a label
    claim = store.queue.claim_next("audit", "cy", REF)
    assert claim is not None and claim.item_pk in audit
    _review(store, claim, 4.0)
    later = _figures(store)
    assert _labelled(later) == 9 and later["pass_rate"]["n_labelled"] == passes + (claim.item_pk in verdicts)
    assert later["n"]["accuracy"] == 9 and later["estimates"] != before["estimates"]


def test_a_lead_adjudication_is_a_label(store: Store, tmp_path: Path) -> None:
    """A score no queue served: a lead's adjudication settles an audit item (imported scores, the
    other such kind, are the labels of tests/estimates)."""
    _import(store, tmp_path)
    store.roles.add_reviewer("lee", "lead")
    assert store.queue.create_audit_sample(REF, 10, seed=2) == 10
    pk = min(store.queue.audit_pks(REF))
    store.scores.add_human_score(pk, "accuracy", "bo", 2.0, sample="triage")
    assert _labelled(_figures(store)) == 0
    store.scores.add_human_score(pk, "accuracy", "lee", 4.0, kind="adjudication")
    assert _labelled(_figures(store)) == 1
