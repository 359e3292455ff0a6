"""Ordered, non-blocking writes to the store.

Every human score is handed to the writer the moment it is entered. One background thread runs
the writes in the order they were entered (a score then its undo must land in that order), so the
UI thread never waits on the database; the result comes back as a message to the app.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from textual.message import Message


@dataclass
class WriteDone(Message):
    """A write finished (``error`` is the exception's text when it failed)."""

    label: str
    result: Any = None
    error: str | None = None


class StoreWriter:
    """Runs store writes one at a time off the UI thread and reports back to ``post``."""

    def __init__(self, post: Callable[[Message], Any]) -> None:
        self._post = post
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rubricate-writer")
        self.pending = 0

    def submit(self, label: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future[Any]:
        """Queue ``fn(*args, **kwargs)``; a :class:`WriteDone` is posted when it has run."""
        self.pending += 1

        def run() -> Any:
            try:
                result = fn(*args, **kwargs)
            except Exception as exc:  # reported to the reviewer, never swallowed
                from reviewer.errors import UserError
                from reviewer.faults import explained

                said = f"UserError: {explained(exc)}" if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}"
                self._post(WriteDone(label, error=said))
                raise
            self._post(WriteDone(label, result=result))
            return result

        future = self._pool.submit(run)
        future.add_done_callback(lambda _f: self._done())
        return future

    def _done(self) -> None:
        self.pending -= 1

    def drain(self) -> None:
        """Wait for every queued write (used on exit, so nothing entered is lost)."""
        self._pool.shutdown(wait=True)
