"""The judge cache: a key-value Protocol the store implements, and the key it is addressed by;
the embedding vectors' cache Protocol beside it.

The key covers everything that changes a reply (model, the server it is asked on, prompt hash,
parameters, sample index), so a repeated run makes no network call, and a changed prompt,
temperature or ``--api-base`` makes a fresh one: two servers serving one model name never share
replies.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Collection, Mapping
from typing import Any, Protocol


class KeyValueCache(Protocol):
    """What the store offers (``Store.judge_cache_get`` / ``judge_cache_put``)."""

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored value, or None."""
        ...

    def put(self, key: str, value: dict[str, Any]) -> None:
        """Store ``value`` under ``key`` (overwriting)."""
        ...

    def get_many(self, keys: Collection[str]) -> dict[str, dict[str, Any]]:
        """The stored values of those ``keys`` that have one (one read for many keys)."""
        ...


class VectorCache(Protocol):
    """Where embedding vectors outlive the process (the store's ``runs`` door implements it):
    each vector as its little-endian float32 bytes, by the embedder's key."""

    def embedding_vectors(self, keys: Collection[str]) -> dict[str, bytes]:
        """The vectors of those ``keys`` that have one (one read for many keys)."""
        ...

    def keep_embedding_vectors(self, vectors: Mapping[str, bytes]) -> None:
        """Keep ``vectors`` (a key already kept keeps its first vector)."""
        ...


class MemoryVectors:
    """An in-process :class:`VectorCache`, for tests and one-off runs."""

    def __init__(self) -> None:
        self.vectors: dict[str, bytes] = {}

    def embedding_vectors(self, keys: Collection[str]) -> dict[str, bytes]:
        """The vectors of those keys that have one."""
        return {k: v for k in keys if (v := self.vectors.get(k)) is not None}

    def keep_embedding_vectors(self, vectors: Mapping[str, bytes]) -> None:
        """Keep the vectors of keys not kept yet."""
        for key, vector in vectors.items():
            self.vectors.setdefault(key, vector)


class MemoryCache:
    """A bounded in-process cache with the same shape, for tests and one-off runs."""

    def __init__(self, max_entries: int = 100_000) -> None:
        self._data: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._max = max_entries

    def get(self, key: str) -> dict[str, Any] | None:
        """The value, refreshed as most recently used."""
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def get_many(self, keys: Collection[str]) -> dict[str, dict[str, Any]]:
        """The values of those keys that have one."""
        return {k: v for k in keys if (v := self.get(k)) is not None}

    def put(self, key: str, value: dict[str, Any]) -> None:
        """Store, evicting the least recently used entry beyond the bound."""
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self._max:
            self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)


def digest(value: Any) -> str:
    """sha256 of the canonical JSON of ``value``."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def judge_cache_key(model: str, prompt_hash: str, params: Mapping[str, Any], sample: int,
                    api_base: str | None = None) -> str:
    """``judge:`` + digest of model, API base, prompt hash, call parameters and sample index.

    The API base is left out of the digest when there is none (the provider's own endpoint), so
    keys made before it was part of the key still match for those calls."""
    body: dict[str, Any] = {"model": model, "prompt": prompt_hash, "params": dict(params), "sample": sample}
    if api_base:
        body["api_base"] = api_base.rstrip("/")
    return "judge:" + digest(body)
