"""Worker processes for the concurrency and crash tests (importable by spawned processes)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from sqlalchemy import select, text, update
from sqlmodel import col


def claim_all(db: str, reviewer: str, out: str, naive: bool) -> None:
    """Claim and complete items until the queue is empty; write the claimed keys to ``out``."""
    from reviewer.store import open_store
    from reviewer.store.tables import Item

    store = open_store(db)
    claimed: list[int] = []
    misses = 0
    while True:
        if naive:
            # The broken way: read a free item, then lease it in a second step without re-checking.
            with store.db.read() as conn:
                pk = conn.execute(select(col(Item.pk)).where(col(Item.lease_reviewer).is_(None), col(Item.n_reviewed) == 0)
                                  .order_by(col(Item.pk)).limit(1)).scalar()
            if pk is None:
                misses += 1
                if misses > 3:
                    break
                continue
            time.sleep(0.0005)
            with store.db.write() as conn:
                conn.execute(update(Item).where(col(Item.pk) == pk).values(lease_reviewer=reviewer, n_reviewed=1))
            claimed.append(pk)
            continue
        claim = store.queue.claim_next("triage", reviewer, lease_seconds=600)
        if claim is None:
            break
        claimed.append(claim.item_pk)
        store.scores.add_human_score(claim.item_pk, "accuracy", reviewer, 5.0)
        assert store.queue.complete(claim)  # the review is complete: done, not served again
    Path(out).write_text(json.dumps(claimed))


def score_forever(db: str, item_pk: int, ack: str) -> None:
    """Write human scores one after another, appending each acknowledged row id to ``ack``."""
    from reviewer.store import open_store

    store = open_store(db)
    with open(ack, "a", buffering=1) as fh:
        i = 0
        while True:
            pk = store.scores.add_human_score(item_pk, "accuracy", "crash", float(1 + i % 10))
            fh.write(f"{pk}\n")  # acknowledged only after the store returned
            i += 1


if __name__ == "__main__":
    if sys.argv[1] == "score":
        score_forever(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    _ = text
