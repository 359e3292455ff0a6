"""Pair-verdict fixtures: the store fixtures of tests/store on both backends."""

from tests.store.conftest import db_url, store

__all__ = ["db_url", "store"]
