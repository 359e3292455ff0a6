"""Labels are labels: only scores given in the audit queue (or imported, or adjudicated) on
audit-sample items count for the audit agreement and the corrected estimates. A triage session
that reaches audit items changes neither; a score given in the audit queue does. Both backends,
through every path that selects labels: calibrate's columns, the per-item rows and folds, and
the corrected leaderboard."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reviewer.services.calibrate_service import calibrate
from reviewer.services.estimates import audit_folds, corrected_leaderboard
from reviewer.store import Store
from tests.store.labelled import REF, import_labelled, review_as_label


def _close(a: Any, b: Any) -> bool:
    """``a == b`` through dicts and lists, numbers to the last bit (NaN equal to NaN)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    return bool(a == b)


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
    import_labelled(store, tmp_path)
    assert store.queue.create_audit_sample(REF, 30, seed=4) == 30
    audit = store.queue.audit_pks(REF)
    for i in range(8):  # an audit session: ana labels eight audit items
        claim = store.queue.claim_next("audit", "ana", REF)
        assert claim is not None and claim.item_pk in audit
        review_as_label(store, claim, 2.0 + i % 3)
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
        review_as_label(store, claim, 5.0)
    after = _figures(store)
    # the same figures, to the last bit: no sum depends on the order the database hands rows in
    assert _close(after, before)
    # triage scores still count for the all sample
    assert "bo" in store.ratings.rating_columns(REF, None, "all").reviewers
    assert "bo" not in store.ratings.rating_columns(REF, None, "audit").reviewers

    # a score given in the audit queue is a label
    claim = store.queue.claim_next("audit", "cy", REF)
    assert claim is not None and claim.item_pk in audit
    review_as_label(store, claim, 4.0)
    later = _figures(store)
    assert _labelled(later) == 9 and later["pass_rate"]["n_labelled"] == passes + (claim.item_pk in verdicts)
    assert later["n"]["accuracy"] == 9 and later["estimates"] != before["estimates"]


def test_a_lead_adjudication_is_a_label(store: Store, tmp_path: Path) -> None:
    """A score no queue served: a lead's adjudication settles an audit item (imported scores, the
    other such kind, are the labels of tests/estimates)."""
    import_labelled(store, tmp_path)
    store.roles.add_reviewer("lee", "lead")
    assert store.queue.create_audit_sample(REF, 10, seed=2) == 10
    pk = min(store.queue.audit_pks(REF))
    store.scores.add_human_score(pk, "accuracy", "bo", 2.0, sample="triage")
    assert _labelled(_figures(store)) == 0
    store.scores.add_human_score(pk, "accuracy", "lee", 4.0, kind="adjudication")
    assert _labelled(_figures(store)) == 1
