"""Build a demo database: bundled rubrics, the demo items, reviewers with roles, safety flags.

Everything here is DEMONSTRATION DATA. The safety flags come from running the real safety gates
over the demo outputs, so the safety queue shows what the detectors actually catch.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING

from rubrics.safety import check_gates

if TYPE_CHECKING:  # (the store's class, for its type alone: importing it loads SQLAlchemy)
    from reviewer.store import Store

HERE = Path(__file__).resolve().parent
FILES = {
    "general-quality.jsonl": "general-quality@1.0.0",
    "rag-answer.jsonl": "rag-answer@1.0.0",
    "reval-issue-framing.jsonl": "reval-issue-framing@1.0.0",
}
ROLES = {"ana": ("reviewer",), "ben": ("reviewer", "safety"), "chen": ("reviewer", "lead")}


def build_demo(db: str, reviewer: str) -> str:
    """Fill ``db`` with the demo (idempotent: a second build changes nothing); returns a summary."""
    from reviewer.services.importing import import_file
    from reviewer.store import open_store

    store = open_store(db)
    try:
        items = flags = 0
        for name, ref in FILES.items():
            summary = import_file(store, HERE / name, ref, dataset="demo")
            items += summary.rows
            rubric = store.rubrics.get_rubric(ref)
            hits = []
            for row in store.runs.items_for_judging(ref, dataset="demo"):
                hits += check_gates(rubric.safety_gates, row["output"], row)
            flags += store.runs.record_safety_hits(None, hits, rubric_ref=ref)
        # The user is the store's first lead (bound to their login), then grants the others.
        people = [(reviewer, ("lead", "reviewer", "safety"))] + [p for p in ROLES.items() if p[0] != reviewer]
        for name, roles in people:
            for role in roles:
                store.roles.add_reviewer(name, role)
        _pair_choices(store, "reval-issue-framing@1.0.0")
        return f"{items} items, {flags} new safety flags, reviewer {reviewer} with every role"
    finally:
        store.close()


def _pair_choices(store: Store, ref: str) -> None:
    """The demo reviewers' choices on most counterfactual pairs: usually the side the judge rates
    higher, sometimes a tie or the other side (seeded; skipped when choices exist already)."""
    if store.scores.pair_choices(ref):
        return
    groups = sorted(store.scores.group_overalls(ref).items())
    for grp, items in groups[: len(groups) * 3 // 4]:
        if len(items) != 2:
            continue
        (pk_a, _, a), (pk_b, _, b) = items
        better, worse = (pk_a, pk_b) if (a or 0) >= (b or 0) else (pk_b, pk_a)
        for name in ROLES:
            rng = random.Random(f"{grp}-{name}")
            if rng.random() < 0.2:
                continue
            pick = rng.random()
            store.scores.add_pair_choice(pk_a, name, better if pick < 0.7 else (None if pick < 0.85 else worse))
