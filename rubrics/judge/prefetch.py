"""Embeddings ahead of scoring: a chunk of items' texts encoded at once, on one thread.

Scored one item at a time, each embedding method encoded an item's two or three texts on its own
worker thread: the model's batch never filled and the threads fought over the cores. The runner
instead takes items in chunks of :data:`CHUNK_ITEMS`; for each chunk the texts every embedding
dimension will encode (the methods' own ``*_texts`` functions, so the rule of what is encoded is
written once) are gathered per embedding model, duplicates dropped, and encoded in one call. Each
item's scoring then finds its vectors in the embedder's memory (or the store's cache on a rerun).

A chunk that fails to encode (a model that cannot load) is left alone: each item's own scoring
meets the same failure and records it as that item's error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence

from rubrics.methods.base import JudgeItem, turn_views
from rubrics.methods.claims import claims_texts
from rubrics.methods.pairs import pair_texts
from rubrics.methods.semantic import DEFAULT_MODEL, Embedder, semantic_texts
from rubrics.schema import Dimension

#: Items per chunk: their texts (a few per item and dimension) must stay within the embedder's
#: in-memory LRU (20,000 vectors) until the chunk is scored.
CHUNK_ITEMS = 1024
#: Pairs per chunk, for the same reason (two or three texts per pair and dimension).
CHUNK_PAIRS = 2048


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

    async def encode(self, texts: dict[str, list[str]]) -> None:
        """Encode the texts, one call per embedding model, off the event loop one at a time."""
        for name, some in texts.items():
            if not some:
                continue
            try:
                await asyncio.to_thread(self._embedder(name).encode, some)
            except Exception:  # each item's scoring meets it again and records it
                continue
