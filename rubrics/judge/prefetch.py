"""Embeddings ahead of scoring: a chunk of items' texts encoded at once, on one thread.

Scored one item at a time, each embedding method encoded an item's two or three texts on its own
worker thread: the model's batch never filled and the threads fought over the cores. The runner
instead takes items in chunks of :data:`CHUNK_ITEMS`; for each chunk the texts every embedding
dimension will encode (the methods' own ``*_texts`` functions, so the rule of what is encoded is
written once) are gathered per embedding model, duplicates dropped, and encoded in one call. Each
item's scoring then finds its vectors in the embedder's memory (or the store's cache on a rerun).

A chunk holds at most half as many texts per model as that model's embedder keeps in memory, so
its vectors stay there while it is scored, beside the previous chunk's last items still in
flight (encoded, then evicted and encoded again one by one, they would cost the batching's gain).
The memory's size is fixed: a single item (or pair) with more texts than the whole memory holds is
a chunk of its own that is not encoded ahead; its scoring encodes its texts itself, in one call.

A chunk that fails to encode (a model that cannot load) is left alone: each item's own scoring
meets the same failure and records it as that item's error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from rubrics.judge.loop import off_loop
from rubrics.methods.base import JudgeItem, turn_views
from rubrics.methods.claims import claims_texts
from rubrics.methods.pairs import pair_texts
from rubrics.methods.semantic import DEFAULT_MODEL, Embedder, semantic_texts
from rubrics.schema import Dimension

#: Items per chunk at most (fewer where their texts would pass the embedders' memory).
CHUNK_ITEMS = 1024
#: Pairs per chunk at most, likewise.
CHUNK_PAIRS = 2048

U = TypeVar("U")
Texts = dict[str, list[str]]


def model_of(dim: Dimension) -> str:
    """The embedding model a dimension names (``params.model``; MiniLM by default)."""
    return str(dim.params.get("model", DEFAULT_MODEL))


def embeds_offline(dim: Dimension, has_judge: bool) -> bool:
    """Whether the runner scores this item-level dimension with embeddings."""
    if dim.method == "semantic_similarity":
        return True
    if dim.method in ("claim_pipeline", "groundedness"):
        return not has_judge or dim.params.get("checker") == "embedding"
    return False


class Prefetch:
    """Encodes the texts a chunk of items (or pairs) will need, before they are scored."""

    def __init__(self, dims: Sequence[Dimension], has_judge: bool,
                 embedder: Callable[[str], Embedder]) -> None:
        self.dims = [d for d in dims if not d.is_pair and embeds_offline(d, has_judge)]
        self.pair_dims = [d for d in dims if d.is_pair and d.method in ("pair_similarity", "framing_consistency")]
        self._embedder = embedder

    def item_texts(self, items: Iterable[JudgeItem]) -> dict[str, list[str]]:
        """Per embedding model, the distinct texts the scoring of ``items`` encodes."""
        wanted: dict[str, dict[str, None]] = {}
        for item in items:
            for dim in self.dims:
                for view in turn_views(item, dim):
                    texts = semantic_texts(view) if dim.method == "semantic_similarity" else claims_texts(view, dim)
                    wanted.setdefault(model_of(dim), {}).update(dict.fromkeys(texts))
        return {name: list(t) for name, t in wanted.items()}

    def pair_texts(self, pairs: Iterable[tuple[JudgeItem, JudgeItem]]) -> dict[str, list[str]]:
        """Per embedding model, the distinct texts the scoring of ``pairs`` encodes."""
        wanted: dict[str, dict[str, None]] = {}
        for a, b in pairs:
            for dim in self.pair_dims:
                wanted.setdefault(model_of(dim), {}).update(dict.fromkeys(pair_texts(dim, a, b)))
        return {name: list(t) for name, t in wanted.items()}

    def chunks(self, units: Iterable[U], texts_of: Callable[[U], Texts], most: int) -> Iterator[tuple[list[U], Texts]]:
        """``units`` (items, or pairs) in chunks of at most ``most``, each with the distinct texts
        its scoring encodes (``texts_of`` one unit, already distinct): a chunk ends before a unit
        whose texts would take a model's past half what its embedder holds in memory."""
        chunk: list[U] = []
        wanted: dict[str, dict[str, None]] = {}
        for unit in units:
            mine = texts_of(unit)
            if chunk and (len(chunk) >= most or not self._fits(wanted, mine)):
                yield chunk, {name: list(t) for name, t in wanted.items()}
                chunk, wanted = [], {}
            chunk.append(unit)
            for name, t in mine.items():
                wanted.setdefault(name, {}).update(dict.fromkeys(t))
        if chunk:
            yield chunk, {name: list(t) for name, t in wanted.items()}

    def _fits(self, wanted: dict[str, dict[str, None]], more: Texts) -> bool:
        """Whether ``more`` (distinct) texts join the chunk's within half of each model's embedder memory."""
        for name, texts in more.items():
            have = wanted.get(name, {})
            if len(have) + sum(1 for t in texts if t not in have) > self._embedder(name).lru_size // 2:
                return False
        return True

    async def encode(self, texts: Texts) -> None:
        """Encode the texts, one call per embedding model, off the event loop one at a time; a
        model's texts past what its embedder holds in memory (one unit's) are left to the unit's
        own scoring, which encodes them in one call."""
        for name, some in texts.items():
            embedder = self._embedder(name)
            if not some or len(some) > embedder.lru_size:
                continue
            try:
                await off_loop(embedder.encode, some)
            except Exception:  # each item's scoring meets it again and records it
                continue
