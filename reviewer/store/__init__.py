"""The store: every table and every SQL statement of rubricate lives in this package.

``open_store(db)`` opens (and migrates) a SQLite file or a PostgreSQL database and returns the
one :class:`Store` that owns its connections; its doors (``store.items``, ``store.queue``, …:
:mod:`reviewer.store.core`) each own one concern.

The names below load on first use (PEP 562), so that ``reviewer.store.lite`` — the TUI's first
page, read with the standard library alone — does not pull SQLAlchemy in with the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reviewer.store.core import Store, open_store
    from reviewer.store.queue_settings import QueueSettings
    from reviewer.store.views import Claim, ItemView, QueueRow

_LAZY = {"Store": "reviewer.store.core", "open_store": "reviewer.store.core",
         "QueueSettings": "reviewer.store.queue_settings", "Claim": "reviewer.store.views",
         "ItemView": "reviewer.store.views", "QueueRow": "reviewer.store.views"}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'reviewer.store' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


__all__ = ["Claim", "ItemView", "QueueRow", "QueueSettings", "Store", "open_store"]
