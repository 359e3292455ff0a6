"""Small helpers the TUI tests share (test modules import these, never one another)."""

from __future__ import annotations

from reviewer.store import Store
from tests.tui.conftest import REVIEWER


def next_pk(store: Store) -> int:
    """The item the triage queue will serve the reviewer next (claimed and given back)."""
    claim = store.queue.claim_next("triage", REVIEWER)
    assert claim is not None
    store.queue.release(claim)
    return int(claim.item_pk)
