"""The audit queue counts labels: an audit-sample item reviewed in the triage queue has no label
yet, so the audit queue still serves it — its claim, progress, "done" count, first page and
status filter all read the item's count of reviews made of labels (``item.n_labelled``), while the
triage queue keeps counting every review (``n_reviewed``). Both backends; a database from before
gets the count filled, and on PostgreSQL the logins granted before may write it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from reviewer.store import Store, open_store
from reviewer.store.lite import first_page, sqlite_path
from reviewer.store.views import QueueFilter
from tests.hostile.team import Team, make_team
from tests.store.labelled import REF, import_labelled, review_as_label

SAMPLE = 6


def _triage_all(store: Store, who: str) -> set[int]:
    """``who`` reviews every item the triage queue serves them (with N=1: every item once)."""
    seen: set[int] = set()
    while (claim := store.queue.claim_next("triage", who, REF)) is not None:
        assert claim.item_pk not in seen
        seen.add(claim.item_pk)
        review_as_label(store, claim, 3.0)
    return seen


def _triaged_then_labelled(store: Store, tmp_path: Path) -> Any:
    """The items imported, an audit sample drawn, every item reviewed in triage by bo, then one
    audit item labelled by cy in the audit queue; returns cy's claim."""
    import_labelled(store, tmp_path)
    assert store.queue.create_audit_sample(REF, SAMPLE, seed=7) == SAMPLE
    _triage_all(store, "bo")
    claim = store.queue.claim_next("audit", "cy", REF)
    assert claim is not None
    review_as_label(store, claim, 4.0)
    return claim


def _audit_state(store: Store) -> dict[str, Any]:
    """What the audit queue shows: its progress for a newcomer, the reviews its rows count and
    the items each status filter keeps."""
    rows = store.queue.queue_page("audit", REF)
    return {"progress": store.queue.queue_progress("audit", "zed", REF),
            "reviewed": {r.item_pk: r.reviewed for r in rows},
            **{s: store.queue.queue_count("audit", REF, filt=QueueFilter(status=s)) for s in ("new", "in progress", "done")}}


def test_an_audit_item_reviewed_in_triage_is_still_served_for_its_label(store: Store, tmp_path: Path) -> None:
    import_labelled(store, tmp_path)
    store.queue.set_queue_settings("audit", reviewers_per_item=1)
    store.queue.set_queue_settings("triage", reviewers_per_item=1)
    assert store.queue.create_audit_sample(REF, SAMPLE, seed=7) == SAMPLE
    audit = store.queue.audit_pks(REF)
    everything = _triage_all(store, "bo")
    assert audit <= everything
    # the triage queue counts every review: with N=1 it is done
    total = store.queue.queue_progress("triage", "zed", REF)[0]
    assert store.queue.queue_progress("triage", "zed", REF) == (total, total, 0)
    assert store.queue.claim_next("triage", "zed", REF) is None
    assert {r.reviewed for r in store.queue.queue_page("triage", REF)} == {1}

    # the audit queue counts labels: none yet, so every audit item is new and served
    assert _audit_state(store) == {"progress": (SAMPLE, 0, SAMPLE), "reviewed": dict.fromkeys(audit, 0),
                                   "new": SAMPLE, "in progress": 0, "done": 0}
    path = sqlite_path(str(store.db.engine.url.database)) if store.db.dialect == "sqlite" else None
    if path is not None:  # the TUI's first page, read before the store loads, says the same
        lite = first_page(path, "audit", REF, None, 50)
        assert lite is not None and {r.item_pk: r.reviewed for r in lite[0]} == dict.fromkeys(audit, 0)
    claim = store.queue.claim_next("audit", "cy", REF)
    assert claim is not None and claim.item_pk in audit
    review_as_label(store, claim, 4.0)

    # once labelled it is done in the audit queue and served to nobody again
    state = _audit_state(store)
    assert state["progress"] == (SAMPLE, 1, SAMPLE - 1) and state["reviewed"][claim.item_pk] == 1
    assert (state["new"], state["done"]) == (SAMPLE - 1, 1)
    served = set()
    while (c := store.queue.claim_next("audit", "dee", REF)) is not None:
        served.add(c.item_pk)
        review_as_label(store, c, 2.0)
    assert served == audit - {claim.item_pk}
    assert store.queue.claim_next("audit", "cy", REF) is None
    assert store.queue.queue_progress("audit", "zed", REF) == (SAMPLE, SAMPLE, 0)
    # the triage queue still counts every review: the audit items' labels are reviews there too
    assert store.queue.queue_progress("triage", "zed", REF) == (total, total, 0)
    assert {r.item_pk: r.reviewed for r in store.queue.queue_page("triage", REF)} == {
        pk: 2 if pk in audit else 1 for pk in everything}


def test_an_undo_in_the_audit_queue_takes_the_label_back(store: Store, tmp_path: Path) -> None:
    """The count follows the label fold on every write, an undo included; the triage review of
    the item still counts in triage, never in audit."""
    claim = _triaged_then_labelled(store, tmp_path)
    assert _audit_state(store)["reviewed"][claim.item_pk] == 1
    dim = store.rubrics.get_rubric(REF).dimensions[0].id
    store.scores.add_human_score(claim.item_pk, dim, "cy", None, kind="undo", sample="audit")
    assert _audit_state(store)["reviewed"][claim.item_pk] == 0
    assert store.queue.queue_progress("audit", "zed", REF)[1] == 0
    assert next(r.reviewed for r in store.queue.queue_page("triage", REF) if r.item_pk == claim.item_pk) == 1


def test_a_database_from_before_gets_its_label_counts(db_url: str, tmp_path: Path) -> None:
    store = open_store(db_url)
    claim = _triaged_then_labelled(store, tmp_path)
    want = _audit_state(store)
    with store.db.engine.begin() as conn:  # what an older release left: no such column
        conn.execute(text("ALTER TABLE item DROP COLUMN n_labelled"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0010j_labelled'"))
    store.close()
    again = open_store(db_url)
    try:
        assert _audit_state(again) == want and want["reviewed"][claim.item_pk] == 1
        assert sum(want["reviewed"].values()) == 1
    finally:
        again.close()


@pytest.fixture
def pg_team(tmp_path: Path) -> Iterator[tuple[Team, dict[str, Any]]]:
    """The role tests' team on PostgreSQL (logins granted by ``db roles``)."""
    with ExitStack() as stack:
        yield make_team("postgres", tmp_path, stack)


def test_postgres_logins_granted_before_the_count_may_score(pg_team: tuple[Team, dict[str, Any]]) -> None:
    """A team whose grants were made before ``0010j_labelled`` (``db roles`` grants the item's
    columns one by one) may still score once the owner has opened the database: every score
    rewrites the count, and the migration grants it to whoever may update ``n_reviewed``.
    Checked first: the column made without that grant refuses the reviewer's score."""
    t, info = pg_team
    mal = t.as_("mal")  # opened while the database is up to date (a login may not migrate it)
    with t.owner.db.engine.begin() as conn:  # the release before: no column, so no grant on it
        conn.execute(text("ALTER TABLE item DROP COLUMN n_labelled"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0010j_labelled'"))
        conn.execute(text("ALTER TABLE item ADD COLUMN n_labelled INTEGER NOT NULL DEFAULT 0"))
    with pytest.raises(Exception, match="permission denied"):
        mal.scores.add_human_score(info["pk"], "accuracy", "mal", 3.0, sample="audit")
    with t.owner.db.engine.begin() as conn:
        conn.execute(text("ALTER TABLE item DROP COLUMN n_labelled"))
    t.stores.append(open_store(t.url()))  # the owner opens it: the migration runs
    t.as_("mal").scores.add_human_score(info["pk"], "accuracy", "mal", 3.0, sample="audit")


def test_imported_reviews_are_labels_the_audit_queue_counts(demo_store: Store) -> None:
    """An imported review was served by no queue: it is a label, so the audit queue counts the
    items a file gives complete reviews of as done, as the triage queue does (the demo's own
    audit items come with people's reviews; the sample drawn here adds items without)."""
    demo_store.queue.create_audit_sample(REF, 40, seed=3)
    audit = demo_store.queue.audit_pks(REF)
    assert len(audit) >= 40
    triage = {r.item_pk: r.reviewed for r in demo_store.queue.queue_page("triage", REF) if r.item_pk in audit}
    assert {r.item_pk: r.reviewed for r in demo_store.queue.queue_page("audit", REF)} == triage
    with demo_store.db.read() as conn:  # the demo's gold items: progress leaves them out
        gold = set(conn.execute(text("SELECT pk FROM item WHERE is_gold")).scalars())
    done = sum(1 for pk, n in triage.items() if n >= 1 and pk not in gold)
    assert 0 < done < len(audit)
    assert demo_store.queue.queue_progress("audit", "zed", REF)[1] == done
    served = set()
    while (c := demo_store.queue.claim_next("audit", "zed", REF)) is not None:
        assert c.item_pk not in served
        served.add(c.item_pk)
        demo_store.queue.skip(c)  # not served to zed again
    assert served == {pk for pk, n in triage.items() if n == 0}
