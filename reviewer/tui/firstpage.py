"""Read the queue's first page in a thread that starts before the TUI is even imported.

`rubricate review` spends most of its first half second importing Textual; the first page of a
SQLite queue takes a few milliseconds with the standard library (``reviewer.store.lite``), so it
is fetched alongside, and the queue screen paints it as soon as the app is up.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reviewer.store.views import QueueRow

#: The queue's first rows and its size (store records), or None when the lite read cannot serve
FirstPage = tuple[list["QueueRow"], int] | None


def start(db: str | None, queue: str, rubric_ref: str | None, dataset: str | None, limit: int) -> Future[FirstPage]:
    """A future of the queue's first page, read with the standard library alone."""
    future: Future[FirstPage] = Future()

    def run() -> None:
        try:
            from reviewer.store.lite import first_page, sqlite_path

            path = sqlite_path(db)
            future.set_result(first_page(path, queue, rubric_ref, dataset, limit) if path else None)
        except Exception:  # the caller falls back to the full store
            future.set_result(None)

    threading.Thread(target=run, name="rubricate-first-page", daemon=True).start()
    return future
