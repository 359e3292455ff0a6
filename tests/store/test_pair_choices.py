"""Pair choices on both backends: validated, append-only (by trigger), latest row wins, and a
database from before the migration opens with its choices kept."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import Store, open_store
from tests.store.conftest import DEMO

REF = "reval-issue-framing@1.0.0"


def _pair(store: Store) -> tuple[int, int]:
    """The first pair of the demo's counterfactual file (its people's names came with the import:
    the OS user is made the lead, who may act for them)."""
    import_file(store, DEMO / "reval-issue-framing.jsonl", REF, dataset="demo")
    store.roles.add_reviewer("lee", "lead")
    groups = store.scores.group_overalls(REF)
    (a, _, _), (b, _, _) = groups["frame-01"]
    return a, b


def test_choices_are_validated_and_the_latest_wins(store: Store) -> None:
    a, b = _pair(store)
    store.scores.add_pair_choice(a, "ana", b)
    store.scores.add_pair_choice(b, "ben", None)  # a tie, recorded from either item of the pair
    store.scores.add_pair_choice(a, "ana", a)  # ana changed her mind
    assert store.scores.pair_choices(REF) == {"frame-01": {"ana": a, "ben": None}}
    other = store.scores.group_overalls(REF)["frame-02"][0][0]
    with pytest.raises(UserError, match="is not in group 'frame-01'"):
        store.scores.add_pair_choice(a, "ana", other)
    import_file(store, DEMO / "general-quality.jsonl", "general-quality@1.0.0", dataset="demo")
    lone = store.queue.queue_page("triage", "general-quality@1.0.0", limit=1)[0].item_pk
    with pytest.raises(UserError, match="has no group"):
        store.scores.add_pair_choice(lone, "ana", None)
    with store.db.read() as conn:
        assert conn.execute(text("SELECT count(*) FROM pair_choice")).scalar() == 3  # refusals wrote nothing


def test_choices_are_append_only(store: Store) -> None:
    a, b = _pair(store)
    store.scores.add_pair_choice(a, "ana", b)
    for sql in ("UPDATE pair_choice SET winner_item_pk = NULL", "DELETE FROM pair_choice"):
        with pytest.raises(Exception, match="append-only"), store.db.write() as conn:
            conn.execute(text(sql))
    with store.db.write() as conn:  # without the trigger the same UPDATE goes through
        if store.db.dialect == "sqlite":
            conn.execute(text("DROP TRIGGER pair_choice_no_update"))
        else:
            conn.execute(text("DROP TRIGGER pair_choice_no_change ON pair_choice"))
        assert conn.execute(text("UPDATE pair_choice SET winner_item_pk = NULL")).rowcount == 1


def test_a_database_from_before_pair_choices_opens(db_url: str) -> None:
    store = open_store(db_url)
    a, b = _pair(store)
    with store.db.engine.begin() as conn:  # make it what release 0004 left behind
        conn.execute(text("DROP INDEX ix_pair_choice_rubric_ref"))
        conn.execute(text("ALTER TABLE pair_choice DROP COLUMN rubric_ref"))
        if store.db.dialect == "sqlite":
            conn.execute(text("DROP TRIGGER pair_choice_no_update"))
            conn.execute(text("DROP TRIGGER pair_choice_no_delete"))
        else:
            conn.execute(text("DROP TRIGGER pair_choice_no_change ON pair_choice"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0005_pair_choices'"))
    store.close()
    again = open_store(db_url)
    again.scores.add_pair_choice(a, "ana", b)
    assert again.scores.pair_choices(REF) == {"frame-01": {"ana": b}}
    with pytest.raises(Exception, match="append-only"), again.db.write() as conn:
        conn.execute(text("DELETE FROM pair_choice"))
    again.close()


def test_the_calibration_report_carries_pair_figures(store: Store) -> None:
    from reviewer.services.calibrate_service import calibrate
    from reviewer.services.report_render import calibration_markdown

    a, b = _pair(store)
    assert "pairs" not in calibrate(store, REF, draws=50)  # nobody has chosen yet
    overall = {pk: o for pk, _, o in store.scores.group_overalls(REF)["frame-01"]}
    oa, ob = overall[a], overall[b]
    assert oa is not None and ob is not None
    judge_pick = a if oa > ob + 0.05 else b if ob > oa + 0.05 else None
    store.scores.add_pair_choice(a, "ana", judge_pick)
    store.scores.add_pair_choice(a, "ben", judge_pick)
    pairs = calibrate(store, REF, draws=50)["pairs"]
    assert pairs["n_pairs"] == 1 and pairs["n_choices"] == 2 and pairs["agreement"] == 1.0
    assert pairs["reviewer_agreement"] == 1.0
    store.scores.add_pair_choice(a, "ben", a if judge_pick == b else b)  # ben now disagrees with ana: a split
    pairs = calibrate(store, REF, draws=50)["pairs"]
    assert pairs["n_pairs"] == 0 and pairs["split"] == 1 and pairs["reviewer_agreement"] == 0.0
    assert "1 split evenly" in calibration_markdown(calibrate(store, REF, draws=50))


def test_claiming_ahead_and_claiming_a_partner(store: Store) -> None:
    a, b = _pair(store)
    first = store.queue.claim_next("triage", "ana", REF)
    assert first is not None
    # without exclude the reviewer's own lease comes back (a restart resumes the same item)
    again = store.queue.claim_next("triage", "ana", REF)
    assert again is not None and again.item_pk == first.item_pk
    ahead = store.queue.claim_next("triage", "ana", REF, exclude=[first.item_pk])
    assert ahead is not None and ahead.item_pk != first.item_pk
    # claim_item leases one given item, unless someone else holds it
    held = store.queue.claim_item(ahead.item_pk, "triage", "ben")
    assert held is None
    store.queue.release(ahead)
    partner = store.queue.claim_item(ahead.item_pk, "triage", "ben")
    assert partner is not None and partner.item_pk == ahead.item_pk
    assert store.queue.claim_next("triage", "ana", REF, exclude=[first.item_pk, ahead.item_pk]) is not None
