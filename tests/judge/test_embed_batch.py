"""Embeddings in batches with the real MiniLM: a run encodes its distinct texts in one model call
per chunk, the scores match item-by-item scoring, and a rerun over the store encodes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from reviewer.services import judging
from reviewer.services.importing import import_file
from reviewer.store import Store
from rubrics.judge.cache import MemoryVectors
from rubrics.judge.runner import JudgeRunner
from rubrics.loader import load_rubric_file
from rubrics.methods.semantic import Embedder, load_model, score_semantic
from rubrics.results import ScoreResult
from tests.judge.helpers import dim, item, rubric
from tests.store.conftest import db_url, store  # noqa: F401  (the store on SQLite and PostgreSQL)

pytestmark = pytest.mark.slow

REFERENCE = "Opened items can be returned within 14 days for a full refund."

RUBRIC = """\
id: embed-test
version: 1.0.0
name: Embed test
owner: tests
description: A semantic dimension and a rule.
scale: {min: 1, max: 5}
dimensions:
  - {id: sim, name: Similarity, description: Close to the reference., method: semantic_similarity,
     weight: 1, threshold: 60, params: {range: [0.3, 0.9]},
     anchors: [{range: [1, 2], label: Far, description: Far.}, {range: [3, 5], label: Near, description: Near.}]}
  - {id: brief, name: Brief, description: Under twenty words., method: deterministic,
     weight: 0, threshold: 60, rule: {max_words: 20},
     anchors: [{range: [1, 2], label: Long, description: Too long.}, {range: [3, 5], label: Short, description: Short.}]}
"""


def _items(n: int) -> list[Any]:
    return [item(id=f"i{i}", output=f"Answer {i % (n // 2)}: opened items come back within two weeks.",
                 reference=REFERENCE, context=REFERENCE, group=f"g{i // 2}", variant="ab"[i % 2])
            for i in range(n)]


async def test_a_run_encodes_its_distinct_texts_in_one_model_call() -> None:
    r = rubric(dim("sim", "semantic_similarity", weight=1, params={"range": [0.3, 0.9]}),
               dim("ground", "groundedness", weight=0), dim("pair", "pair_similarity", weight=0))
    items = _items(40)
    embedder = Embedder(cache=MemoryVectors())
    got: list[ScoreResult] = []
    totals = await JudgeRunner(r, client=None, embedder=embedder, concurrency=8).run(
        items, lambda rs, hs: got.extend(rs))
    assert totals.status == "done" and totals.errors == 0
    # Twenty distinct outputs (each twice), one reference: 21 texts, all in one call; the pairs'
    # texts are the outputs, already encoded.
    assert embedder.model_calls == 1 and embedder.encoded == 21 == totals.embedded
    alone = Embedder()  # nothing shared: every item encoded on its own, as before batching
    sim = dim("sim", "semantic_similarity", weight=1, params={"range": [0.3, 0.9]})
    for it in items[:6]:
        mine = next(x for x in got if x.item_id == it.id and x.dimension == "sim")
        own = score_semantic(it, sim, alone)
        assert mine.evidence[0]["cosine"] == pytest.approx(own.evidence[0]["cosine"], abs=1e-4)
    assert {x.dimension for x in got} == {"sim", "ground", "pair"}


def test_a_rerun_over_the_store_encodes_nothing(store: Store, tmp_path: Path) -> None:  # noqa: F811
    path = tmp_path / "rubric.yaml"
    path.write_text(RUBRIC)
    store.rubrics.add_rubric(load_rubric_file(path), RUBRIC)
    rows = [{"id": f"q{i}", "input": "Refunds?", "output": f"Returns of opened items: {i} days.",
             "reference": REFERENCE} for i in range(30)]
    data = tmp_path / "items.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    import_file(store, str(data), "embed-test@1.0.0")
    options = judging.JudgeOptions(rubric_ref="embed-test@1.0.0")
    [first] = judging.run(store, options)
    assert first.totals.status == "done" and first.totals.errors == 0
    assert first.totals.embedded == 31  # thirty outputs and the one reference
    [second] = judging.run(store, options)  # a new Embedder: only the store's cache remembers
    assert second.totals.status == "done" and second.totals.embedded == 0
    assert store.runs.judge_run_report(second.run_id) is not None


def test_the_store_reads_many_cache_keys_at_once(store: Store) -> None:  # noqa: F811
    entries = {f"emb:{i:04d}": {"v": [i, 0.5]} for i in range(1200)}
    store.runs.judge_cache_put_many(entries)
    wanted = [f"emb:{i:04d}" for i in range(0, 1200, 3)] + ["emb:none", "judge:none"]
    assert store.runs.judge_cache_get_many(wanted) == {k: entries[k] for k in wanted if k in entries}


def test_cached_vectors_come_back_exactly_from_the_store(store: Store) -> None:  # noqa: F811
    """Vectors go to the store's embedding cache as bytes in one write per encoding call and come
    back bit for bit in one read (a new process: only the store remembers)."""
    texts = ["Opened items can be returned.", "Refunds go to the original card.", "Opened items can be returned."]
    cold = Embedder(cache=store.runs).encode(texts)
    again = Embedder(cache=store.runs)
    warm = again.encode(texts)
    assert again.encoded == 0 and again.model_calls == 0
    assert all(w.dtype == c.dtype == np.float32 and w.tobytes() == c.tobytes() for w, c in zip(warm, cold, strict=True))
    assert len(store.runs.embedding_vectors([again._key(t) for t in texts])) == 2


async def test_a_chunk_never_outgrows_the_embedders_memory() -> None:
    """Forty items' eighty texts against a memory of 16 vectors and no cache behind it: the chunks
    are cut to fit it, so each text reaches the model once (a chunk past the memory evicted its
    own vectors, and each item then encoded its texts again, one by one)."""
    r = rubric(dim("sim", "semantic_similarity", weight=1, params={"range": [0.3, 0.9]}))
    items = [item(id=f"i{i}", output=f"Answer {i}: opened items come back within {i} days.",
                  reference=f"Reference {i}: returns within {i + 1} weeks.") for i in range(40)]
    embedder = Embedder(lru_size=16)
    model = load_model()
    seen: list[str] = []
    encode = model.encode

    def counted(texts: list[str], **kw: Any) -> Any:
        seen.extend(texts)
        return encode(texts, **kw)

    model.encode = counted
    try:
        got: list[ScoreResult] = []
        totals = await JudgeRunner(r, client=None, embedder=embedder, concurrency=4).run(
            items, lambda rs, hs: got.extend(rs))
    finally:
        del model.encode
    assert totals.status == "done" and totals.errors == 0
    assert len(seen) == len(set(seen)) == 80 == embedder.encoded  # every output and reference, once
    assert embedder.lru_size == 16 and embedder.model_calls > 1  # in several chunks, the memory as it was
    assert len(got) == 40 and all(x.score is not None for x in got)


async def test_one_item_past_the_memory_leaves_the_memory_as_it_is() -> None:
    """An offline groundedness item with more distinct texts (claims and source sentences) than the
    embedder holds in memory: it is not encoded ahead (it could not stay in memory), its scoring
    encodes it in one call, and the memory keeps its size (it used to widen for the item, for good)."""
    sentences = [f"Fact {i}: opened items return within {i} days." for i in range(6)]
    r = rubric(dim("ground", "groundedness", weight=1))
    big = item(id="big", output=" ".join(sentences[:3]), context=" ".join(sentences))
    small = Embedder(lru_size=4)
    got: list[ScoreResult] = []
    totals = await JudgeRunner(r, client=None, embedder=small, concurrency=2).run([big], lambda rs, hs: got.extend(rs))
    assert totals.status == "done" and totals.errors == 0
    assert small.lru_size == 4 and len(small._lru) <= 4 and small.model_calls == 1
    [alone], _ = await JudgeRunner(r, client=None, embedder=Embedder()).score_item(big)
    assert [x.normalised for x in got] == [alone.normalised] and got[0].evidence == alone.evidence


def test_an_embedder_memory_below_two_vectors_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 2 vectors, not 1"):
        Embedder(lru_size=1)
