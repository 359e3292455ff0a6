"""Late submits: a score written under a lease that ran out, after another person claimed the
item, is refused in one line and nothing of it is stored or counted; with nobody else claiming
since, a score written after the lease ran out still lands. Both backends."""

from __future__ import annotations

import time

import pytest

from reviewer.errors import UserError
from reviewer.store import Store
from reviewer.store.views import Claim

REF = "general-quality@1.0.0"


def _reviewed(store: Store, pk: int) -> int:
    return next(r.reviewed for r in store.queue.queue_page("triage", REF, limit=500) if r.item_pk == pk)


def _score_all(store: Store, claim: Claim) -> None:
    for d in store.rubrics.get_rubric(REF).dimensions:
        store.scores.add_human_score(claim.item_pk, d.id, claim.reviewer, d.scale.min, sample=claim.queue, claim=claim)


def test_a_submit_after_another_person_claimed_is_refused(demo_store: Store) -> None:
    # (kai and bo are names of their own: the demo's imported names are bound to no login)
    store = demo_store
    mine = store.queue.claim_next("triage", "kai", REF, lease_seconds=1)
    assert mine is not None
    time.sleep(1.2)  # the lease runs out
    theirs = store.queue.claim_item(mine.item_pk, "triage", "bo")
    assert theirs is not None  # the item was free again: bo holds it now
    before = (len(store.scores.human_rows(mine.item_pk)), _reviewed(store, mine.item_pk))
    dim = store.rubrics.get_rubric(REF).dimensions[0]
    with pytest.raises(UserError) as err:
        store.scores.add_human_score(mine.item_pk, dim.id, "kai", dim.scale.min, sample="triage", claim=mine)
    line = str(err.value)
    assert "\n" not in line and mine.item_id in line and "bo has claimed the item" in line
    assert "not stored" in line and "open the item from the queue again" in line
    assert (len(store.scores.human_rows(mine.item_pk)), _reviewed(store, mine.item_pk)) == before  # nothing written
    # bo's review lands and counts; kai's late one never did
    _score_all(store, theirs)
    assert store.queue.complete(theirs)
    assert _reviewed(store, mine.item_pk) == before[1] + 1
    assert {h.reviewer for h in store.scores.human_rows(mine.item_pk)} & {"kai", "bo"} == {"bo"}


def test_a_submit_after_the_lease_ran_out_lands_when_nobody_claimed(demo_store: Store) -> None:
    store = demo_store
    mine = store.queue.claim_next("triage", "kai", REF, lease_seconds=1)
    assert mine is not None
    time.sleep(1.2)
    _score_all(store, mine)
    assert store.queue.complete(mine)
    assert "kai" in {h.reviewer for h in store.scores.human_rows(mine.item_pk)}


def test_a_reclaim_by_the_same_person_is_not_late(demo_store: Store) -> None:
    store = demo_store
    mine = store.queue.claim_next("triage", "kai", REF, lease_seconds=1)
    assert mine is not None
    time.sleep(1.2)
    theirs = store.queue.claim_item(mine.item_pk, "triage", "bo", lease_seconds=1)
    assert theirs is not None
    store.queue.release(theirs)
    again = store.queue.claim_item(mine.item_pk, "triage", "kai")
    assert again is not None
    _score_all(store, again)  # under the new lease: accepted
    assert store.queue.complete(again)
