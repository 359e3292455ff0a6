"""Work done in the demo's triage queue at fixed times, for the team view's tests and pictures:
ana (bound to her own login) finishes three items from 9:00 to 9:25 after one at 7:00, tess
finishes one from 8:00 to 8:30 and skips one at 8:40; ben and chen have not started. tess (a
lead) has reviewed three of ana's scores: two accepted, one rejected."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import update
from sqlmodel import col

from reviewer.store import Store
from reviewer.store.tables import Assignment

DAY = datetime(2026, 3, 2, tzinfo=UTC)


def at(hour: int, minute: int) -> datetime:
    return DAY + timedelta(hours=hour, minutes=minute)


def work(store: Store, reviewer: str, served: datetime, ended: datetime, skip: bool = False) -> None:
    """``reviewer`` is served the next triage item at ``served`` and finishes (or skips) it at ``ended``."""
    claim = store.queue.claim_next("triage", reviewer)
    assert claim is not None
    if skip:
        store.queue.skip(claim)
    else:
        rubric = store.rubrics.get_rubric(store.items.item_view(claim.item_pk).rubric_ref)
        for dim in rubric.person_dimensions():
            store.scores.add_human_score(claim.item_pk, dim.id, reviewer, dim.scale.min, sample="triage")
        assert store.queue.complete(claim)
    with store.db.write() as conn:  # the times the work happened at, not the test's
        conn.execute(update(Assignment).where(col(Assignment.item_pk) == claim.item_pk,
                                              col(Assignment.reviewer) == reviewer)
                     .values(created_at=served, ended_at=ended))


def team_work(store: Store, tmp_path: Path | None = None) -> None:
    """The morning's work (``tmp_path``: unused; the snapshot tests' setup signature)."""
    own = store.roles.login
    store.roles.act_as("ana")
    work(store, "ana", at(7, 0), at(7, 5))
    for start in (0, 10, 20):
        work(store, "ana", at(9, start), at(9, start + 5))
    store.roles.act_as(own)
    work(store, "tess", at(8, 0), at(8, 30))
    work(store, "tess", at(8, 35), at(8, 40), skip=True)
    first, second, third = store.lead_reviews.walk("ana", "tess", limit=3)
    store.lead_reviews.accept(first.score_pk, "tess")
    store.lead_reviews.accept(second.score_pk, "tess")
    store.lead_reviews.reject(third.score_pk, "tess", third.scale_max, "the answer is better than that")
