"""The embedding cache's SQL: vectors as bytes by key, read and written many at a time.

A vector is its little-endian float32 bytes (exact; no decoding but a copy into an array). Keys
are ``emb:`` + the sha256 of the model and the text (:meth:`rubrics.methods.semantic.Embedder`
makes them); a key is written once and never changed (the model and the text decide its vector).
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Collection, Mapping

from sqlalchemy import Connection, delete, select
from sqlmodel import col

from reviewer.store.base import insert_new_keys, values_by_key
from reviewer.store.tables import EmbeddingCache, JudgeCache, table_of

#: Rows the migration moves per step (a step's JSON values decoded at once, then dropped).
MOVE_ROWS = 1000
#: How an embedding's key begins (in the judge cache, where older releases kept them, too).
EMB_PREFIX = "emb:"


def read_vectors(conn: Connection, keys: Collection[str]) -> dict[str, bytes]:
    """The vectors of those ``keys`` the cache holds (:func:`reviewer.store.base.values_by_key`)."""
    return {k: bytes(v) for k, v in values_by_key(conn, table_of(EmbeddingCache), "vector", keys).items()}


def write_vectors(conn: Connection, vectors: Mapping[str, bytes]) -> int:
    """Insert the vectors whose keys the cache does not hold yet (first write wins: a key's vector
    never changes); returns how many were inserted."""
    return insert_new_keys(conn, table_of(EmbeddingCache), "vector", vectors)


def _vector_bytes(value: object) -> bytes | None:
    """A judge cache value of an embedding as bytes: ``{"f32": base64}`` or the older list of
    floats ``{"v": [...]}``; None for anything else (left where it is)."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("f32"), str):
        return base64.b64decode(value["f32"])
    floats = value.get("v")
    if isinstance(floats, list) and all(isinstance(f, (int, float)) for f in floats):
        return struct.pack(f"<{len(floats)}f", *floats)
    return None


def move_judge_cache_vectors(conn: Connection) -> int:
    """Move the embeddings the judge cache held (``emb:`` keys) into the embedding cache, a step
    of :data:`MOVE_ROWS` at a time in key order; returns how many moved."""
    moved, last = 0, None
    key_col, value_col = col(JudgeCache.key), col(JudgeCache.value)
    while True:
        q = select(key_col, value_col).where(key_col.like(EMB_PREFIX + "%"))
        if last is not None:
            q = q.where(key_col > last)
        rows = conn.execute(q.order_by(key_col).limit(MOVE_ROWS)).all()
        if not rows:
            return moved
        vectors = {str(k): b for k, v in rows
                   if str(k).startswith(EMB_PREFIX) and (b := _vector_bytes(v)) is not None}
        write_vectors(conn, vectors)
        conn.execute(delete(JudgeCache).where(key_col.in_(list(vectors))))
        moved += len(vectors)
        last = str(rows[-1][0])
