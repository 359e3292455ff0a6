"""The TUI's one gateway to the store: every store call of the review app goes through here.

Two ways in, both off the UI thread, both answered by messages (never by a callback into the UI):

* **Reads** run in Textual thread workers started with :func:`reads`. A worker posts what it read
  as a message its screen handles (``PageLoaded``, ``ItemLoaded``, …); a read that fails posts
  :class:`ReadFailed` to the app, which shows it as a line: a failed read never ends the app.
* **Writes** run one at a time, in the order they were handed over, on the gateway's one writer
  thread (a score then its undo must land in that order; a claim queued behind a lease's close
  runs after it). Each write is given a ticket; when it has run the app hears :class:`Written` or
  :class:`WriteFailed` with that ticket, and hands it to the screens that keep it on their undo
  stack (a failed score is rolled back on screen).

The store itself may still be opening when the app starts (``rubricate review`` paints the queue's
first page before SQLAlchemy has loaded): :meth:`Gateway.store` waits for it, in worker threads
only. The store calls themselves are written once, in :mod:`reviewer.tui.adapter`.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Concatenate, Generic, Literal, ParamSpec, TypeVar

from textual import work
from textual.dom import DOMNode
from textual.message import Message

from reviewer.tui import adapter
from reviewer.tui.messages import ReadFailed, StoreFailed, StoreOpened, WriteFailed, Written

if TYPE_CHECKING:  # (for their types alone: importing the store loads SQLAlchemy)
    from textual.worker import Worker

    from reviewer.store import Store
    from reviewer.store.views import Claim
    from reviewer.tui.viewmodel import DimState, ItemState

T = TypeVar("T")
P = ParamSpec("P")
N = TypeVar("N", bound=DOMNode)
#: how a lease is closed: finished, skipped, or given back untouched
Close = Literal["complete", "skip", "release"]


class StoreUnavailable(asyncio.CancelledError):
    """The store could not be opened: work that needed it is cancelled, quietly — the app is
    already leaving with the reason (a cancellation, so Textual does not report each worker)."""


def said(exc: BaseException) -> str:
    """An exception as the one line a reviewer reads about a failed read or write."""
    from reviewer.errors import UserError
    from reviewer.faults import explained

    if isinstance(exc, UserError):
        return f"UserError: {explained(exc)}"
    text = str(exc).strip()  # a driver's error: its first line (the SQL and a link follow it)
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"


@dataclass(frozen=True)
class Ticket(Generic[T]):
    """A write handed to the writer: its number, and the future of what the store returned."""

    number: int
    future: Future[T]


def reads(what: str, group: str) -> Callable[[Callable[Concatenate[N, P], None]],
                                             Callable[Concatenate[N, P], Worker[None]]]:
    """Make a method a read: an exclusive thread worker of ``group`` (a newer read of the group
    cancels the older) whose failure is a :class:`ReadFailed` line about ``what``, not the end
    of the app. The method posts what it read as a message."""

    def decorate(fn: Callable[Concatenate[N, P], None]) -> Callable[Concatenate[N, P], Worker[None]]:
        @functools.wraps(fn)
        def run(node: N, /, *args: P.args, **kwargs: P.kwargs) -> None:
            try:
                fn(node, *args, **kwargs)
            except Exception as exc:  # said on screen; the app keeps running
                node.app.post_message(ReadFailed(what, said(exc)))

        return work(thread=True, exclusive=True, group=group, exit_on_error=False)(run)

    return decorate


class Gateway:
    """The store (or its opening) and the one writer thread in front of it."""

    def __init__(self, post: Callable[[Message], object], store: Store | None, db: str | None) -> None:
        self._post = post
        self.db = db
        #: the store, once open (at once when one was passed in)
        self.ready: Future[Store] = Future()
        if store is not None:
            self.ready.set_result(store)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rubricate-writer")
        self._tickets = itertools.count(1)
        # writes handed over (counted on the UI thread) and run (on the writer): each count is
        # written by one thread only, so neither loses an update
        self._handed = self._ran = 0

    @property
    def pending(self) -> int:
        """Writes handed over and not yet run."""
        return self._handed - self._ran

    # --- the store --------------------------------------------------------------------------
    @property
    def opening(self) -> bool:
        """Whether the store is still being opened."""
        return not self.ready.done()

    def store(self) -> Store:
        """The open store (waiting for it to open). Worker threads and the writer only."""
        try:
            return self.ready.result()
        except Exception as exc:
            raise StoreUnavailable(str(exc)) from exc

    def open(self, queue: str, rubric_ref: str | None, settle: Callable[[bool], None]) -> None:
        """Open the database (a worker's work): :class:`StoreOpened` when it is, else
        :class:`StoreFailed` with the one line the app leaves with. ``settle`` hears whether the
        queue is set blind before any read is let through."""
        try:
            from reviewer.store import open_store

            store = open_store(self.db, existing=True)  # a reading command: it creates no database
            store.db.checkpoint()  # here, not in the first commit a reviewer waits for
            blind = store.queue.queue_settings(queue, rubric_ref).blind
        except Exception as exc:
            self.ready.set_exception(exc)
            from reviewer import faults

            code, line = faults.classify(exc, self.db) or (1, f"error: {self.db}: {exc or type(exc).__name__}")
            self._post(StoreFailed(line, code))
            return
        settle(blind)
        self.ready.set_result(store)
        self._post(StoreOpened(blind))

    def read(self, fn: Callable[[Store], T]) -> T:
        """``fn(store)``, once the store is open: a read's work, in a worker thread (:func:`reads`)."""
        return fn(self.store())

    # --- writes -----------------------------------------------------------------------------
    def write(self, label: str, fn: Callable[[Store], T]) -> Ticket[T]:
        """Queue ``fn(store)`` behind every write handed over before it; the app hears
        :class:`Written` or :class:`WriteFailed` with the ticket when it has run."""
        number = next(self._tickets)
        self._handed += 1

        def run() -> T:
            try:
                try:
                    result = fn(self.store())
                except Exception as exc:  # reported to the reviewer and rolled back, never swallowed
                    self._post(WriteFailed(number, label, said(exc)))
                    raise
                self._post(Written(number, label, result))
                return result
            finally:
                self._ran += 1

        return Ticket(number, self._pool.submit(run))

    def behind_writes(self, fn: Callable[[], T]) -> Future[T]:
        """Run ``fn`` on the writer, after every write handed over before it (a claim must not
        overtake the close of the lease before it); its outcome is the future's, not a message."""
        return self._pool.submit(fn)

    def drain(self) -> None:
        """Wait for every queued write (used on exit, so nothing entered is lost)."""
        self._pool.shutdown(wait=True)

    def write_score(self, state: ItemState, d: DimState, reviewer: str, value: float | None, *, kind: str,
                    blind: bool, sample: str | None, reason: str | None, tags: tuple[str, ...]) -> Ticket[int]:
        """One human score, under the item's lease."""
        return self.write(f"{state.item_id}/{d.dim.id}", lambda s: adapter.add_human_score(
            s, state, d, reviewer, value, kind=kind, blind=blind, sample=sample, reason=reason, tags=tags))

    def close_claim(self, claim: Claim, how: Close) -> Ticket[None]:
        """Complete, skip or release a lease."""
        return self.write("lease", lambda s: adapter.close_claim(s, claim, how))

    def renew_claim(self, state: ItemState, lease_seconds: int) -> Ticket[None]:
        """Extend the lease on an item on screen."""
        return self.write("lease", lambda s: adapter.renew_claim(s, state, lease_seconds))

    def add_comment(self, state: ItemState, reviewer: str, text: str) -> Ticket[int]:
        """The reviewer's comment on the item."""
        return self.write(f"comment on {state.item_id}", lambda s: adapter.add_comment(s, state, reviewer, text))

    def add_reveal(self, state: ItemState, reviewer: str) -> Ticket[int]:
        """The reviewer's reveal of the judge on the item."""
        return self.write(f"reveal on {state.item_id}", lambda s: adapter.add_reveal(s, state, reviewer))

    def flag_item(self, state: ItemState, reviewer: str, reason: str) -> Ticket[int]:
        """The item sent to the safety queue; the ticket's future gives the flag's id."""
        return self.write("flag", lambda s: adapter.flag_item(s, state, reviewer, reason))

    def withdraw_flag(self, flag_id: Callable[[], int], reviewer: str) -> Ticket[str]:
        """Withdraw a flag (its id read on the writer: a flag raised just now has it once its own
        write has landed)."""
        return self.write("withdraw flag", lambda s: adapter.withdraw_flag(s, flag_id(), reviewer))

    def decide_flag(self, flag_id: int, reviewer: str, decision: str, reason: str) -> Ticket[str]:
        """A safety decision; the ticket's future gives the flag's status after it."""
        return self.write("safety decision", lambda s: adapter.decide_flag(s, flag_id, reviewer, decision, reason))

    def adjudicate(self, item_pk: int, dimension: str, lead: str, value: float, reason: str) -> Ticket[int]:
        """A lead's settling score."""
        return self.write(f"adjudication {item_pk}/{dimension}",
                          lambda s: adapter.adjudicate(s, item_pk, dimension, lead, value, reason))

    def choose_in_pair(self, group: str | None, a: int, b: int, winner: int | None, reviewer: str,
                       reason: str | None, tags: tuple[str, ...]) -> Ticket[int]:
        """The reviewer's pick between two items of a group (None: a tie)."""
        return self.write(f"pair {group}", lambda s: adapter.choose_in_pair(s, a, b, winner, reviewer, reason, tags))

    def accept_score(self, score_pk: int, label: str, lead: str) -> Ticket[int]:
        """A lead's accept of one of a person's scores (``label``: what it is, for a failure's line)."""
        return self.write(f"accept of {label}", lambda s: adapter.accept_score(s, score_pk, lead))

    def reject_score(self, score_pk: int, label: str, lead: str, value: float, note: str) -> Ticket[tuple[int, int]]:
        """A lead's reject of one of a person's scores: their adjudication and the review."""
        return self.write(f"reject of {label}", lambda s: adapter.reject_score(s, score_pk, lead, value, note))

    def add_correction(self, state: ItemState, reviewer: str, text: str) -> Ticket[int | None]:
        """The reviewer's corrected answer for the item's output (None: unchanged, nothing stored)."""
        return self.write(f"correction of {state.item_id}",
                          lambda s: adapter.add_correction(s, state, reviewer, text))


__all__ = ["Close", "Gateway", "StoreUnavailable", "Ticket", "reads"]
