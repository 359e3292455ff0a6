"""A reviewer's history on a queue, on both backends: one line per item they decided on in that
queue's sample, newest decision first, their current score per dimension (an undo shows as
None), paged; other reviewers' rows and other queues' are not theirs here."""

from __future__ import annotations

import json
from pathlib import Path

from reviewer.services.importing import import_file
from reviewer.store import Store
from tests.store.conftest import DEMO


def test_history_is_newest_first_current_and_paged(demo_store: Store) -> None:
    store = demo_store
    pks = [r.item_pk for r in store.queue.queue_page("triage", limit=6)]
    add = store.scores.add_human_score
    add(pks[0], "accuracy", "tess", 4.0, sample="triage")
    add(pks[1], "accuracy", "tess", 6.0, sample="triage")
    add(pks[1], "clarity", "tess", 2.0, sample="triage")
    add(pks[2], "accuracy", "tess", 9.0, sample="audit")  # another queue
    add(pks[3], "accuracy", "omar", 9.0, sample="triage")  # another reviewer
    add(pks[0], "accuracy", "tess", None, kind="undo", sample="triage")  # item 0 decided on last
    add(pks[4], "relevance", "tess", 3.0, sample="triage")
    got = store.history.recent_decisions("tess", "triage")
    assert [d.item_pk for d in got] == [pks[4], pks[0], pks[1]]
    assert [d.scores for d in got] == [(("relevance", 3.0),), (("accuracy", None),),
                                       (("accuracy", 6.0), ("clarity", 2.0))]
    assert got[0].item_id and got[0].at >= got[1].at >= got[2].at
    # paged: two, then the rest
    first, rest = (store.history.recent_decisions("tess", "triage", limit=2, offset=o) for o in (0, 2))
    assert [d.item_pk for d in first + rest] == [d.item_pk for d in got] and len(first) == 2
    assert store.history.recent_decisions("tess", "safety") == []
    assert [d.item_pk for d in store.history.recent_decisions("tess", "audit")] == [pks[2]]


def test_your_scores_are_your_standing_votes_on_the_current_content(demo_store: Store, tmp_path: Path) -> None:
    """A lead's adjudication is not their vote, and a score given on the item's earlier content is
    not their current score: the history reads the fold's standing votes, not the latest row."""
    store = demo_store
    store.roles.add_reviewer("tess", "lead")
    first = json.loads((DEMO / "general-quality.jsonl").read_text(encoding="utf-8").splitlines()[0])
    pk = store.items.items_by_id(first["id"], "demo")[0][0]
    add = store.scores.add_human_score
    add(pk, "accuracy", "tess", 4.0, sample="triage")
    add(pk, "clarity", "tess", 7.0, kind="adjudication", sample="triage")  # settles clarity: not a vote
    assert store.history.recent_decisions("tess", "triage")[0].scores == (("accuracy", 4.0),)
    add(pk, "accuracy", "tess", 6.0, kind="adjudication", sample="triage")  # their vote still stands beside it
    assert store.history.recent_decisions("tess", "triage")[0].scores == (("accuracy", 4.0),)
    # the item's content changes: the score tess gave read the old text
    path = tmp_path / "revised.jsonl"
    path.write_text(json.dumps({**first, "output": first["output"] + " (rewritten)"}) + "\n", encoding="utf-8")
    import_file(store, path, "general-quality@1.0.0", dataset="demo", update_existing=True)
    got = store.history.recent_decisions("tess", "triage")
    assert [d.item_pk for d in got] == [pk] and got[0].scores == ()
    add(pk, "relevance", "tess", 3.0, sample="triage")
    assert store.history.recent_decisions("tess", "triage")[0].scores == (("relevance", 3.0),)
