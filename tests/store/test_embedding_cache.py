"""The store's embedding cache: vectors as bytes by key, many read and written at once, and the
embeddings older releases kept in the judge cache moved into it by the migration."""

from __future__ import annotations

import base64
import struct

import numpy as np
from sqlalchemy import text

from reviewer.store import Store, open_store
from reviewer.store.vectors import move_judge_cache_vectors
from tests.store.conftest import db_url, store  # noqa: F401  (the store on SQLite and PostgreSQL)


def _vector(i: int) -> bytes:
    return np.arange(i, i + 4, dtype="<f4").tobytes()


def test_vectors_come_back_by_key_many_at_once_and_the_first_write_wins(store: Store) -> None:  # noqa: F811
    vectors = {f"emb:{i:05d}": _vector(i) for i in range(2500)}  # past one query's 1,000 keys
    store.runs.keep_embedding_vectors(vectors)
    store.runs.keep_embedding_vectors({"emb:00007": _vector(99), "emb:new": _vector(5)})
    wanted = [f"emb:{i:05d}" for i in range(0, 2500, 3)] + ["emb:none", "emb:new"]
    got = store.runs.embedding_vectors(wanted)
    assert got == {**{k: vectors[k] for k in wanted if k in vectors}, "emb:new": _vector(5)}
    assert store.runs.embedding_vectors(["emb:00007"]) == {"emb:00007": _vector(7)}  # not overwritten
    assert store.runs.embedding_vectors([]) == {}


def test_the_migration_moves_the_judge_caches_embeddings_exactly(db_url: str) -> None:  # noqa: F811
    """A database whose judge cache holds embeddings (as older releases kept them) opens with them
    in the embedding cache: base64 float32 and the older list of floats both arrive as the same
    float32 bytes; judge replies, and a value under an ``emb:`` key that is no vector, stay."""
    opened = open_store(db_url)
    with opened.db.write() as conn:  # as the release before the embedding cache left it
        conn.execute(text("DROP TABLE embedding_cache"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0015e_embedding_cache'"))
    packed = {f"emb:{i:05d}": {"f32": base64.b64encode(_vector(i)).decode("ascii")} for i in range(1500)}
    opened.runs.judge_cache_put_many({**packed, "emb:list": {"v": [0.1, 0.25, -3]}, "emb:odd": {"text": "?"},
                                     "judge:abc": {"content": "{}"}})
    opened.close()
    opened = open_store(db_url)
    got = opened.runs.embedding_vectors([*packed, "emb:list", "emb:odd"])
    assert got == {**{k: base64.b64decode(v["f32"]) for k, v in packed.items()},
                   "emb:list": struct.pack("<3f", 0.1, 0.25, -3)}
    assert np.frombuffer(got["emb:list"], dtype="<f4").tolist() == np.asarray([0.1, 0.25, -3], dtype=np.float32).tolist()
    left = opened.runs.judge_cache_get_many([*packed, "emb:list", "emb:odd", "judge:abc"])
    assert set(left) == {"emb:odd", "judge:abc"}
    with opened.db.write() as conn:  # moved once: nothing is left to move
        assert move_judge_cache_vectors(conn) == 0
    opened.close()
