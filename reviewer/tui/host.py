"""What a screen may ask of the app that hosts it, without importing the app module.

Screens sit below :mod:`reviewer.tui.app` (the app imports them to push them); they reach the
running app through :class:`ReviewHost`, a protocol the app satisfies, so the import only runs one
way (an import-linter contract in ``pyproject.toml`` keeps it so).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from datetime import datetime

    from rich.text import Text

    from reviewer.tui.config import TuiSettings
    from reviewer.tui.firstpage import FirstPage
    from reviewer.tui.gateway import Gateway, Ticket
    from reviewer.tui.messages import WriteFailed, Written
    from reviewer.tui.viewmodel import DimState, ItemState, PairState


@dataclass(frozen=True)
class ReviewOf:
    """A lead's review of one person's scores (``rubricate review --review-of``): the person,
    the queue their scores were given in (None: any) and the earliest time (None: any)."""

    person: str
    queue: str | None = None
    since: datetime | None = None


@dataclass(frozen=True)
class Session:
    """Who is reviewing what."""

    reviewer: str
    queue: str = "triage"
    rubric_ref: str | None = None
    dataset: str | None = None
    blind: bool = False
    #: The person whose scores the lead reviews, when the session opens on that walk.
    review_of: ReviewOf | None = None


class ReviewHost(Protocol):
    """The review app as its screens see it (:class:`reviewer.tui.app.ReviewApp` is one; mypy
    checks that in ``reviewer/tui/app.py``). Methods that start a worker return it (``Any``)."""

    gateway: Gateway
    session: Session
    settings: TuiSettings
    roles: set[str]
    first_page: Future[FirstPage] | None
    first_page_shown: threading.Event

    def pace(self) -> Text: ...

    def open_next(self) -> Any: ...

    def open_item(self, item_pk: int, remember: bool = True) -> Any: ...

    def open_pair(self, state: ItemState) -> Any: ...

    def jump(self, *states: ItemState) -> Any: ...

    def write_score(self, state: ItemState, d: DimState, value: float | None, *, kind: str, blind: bool,
                    sample: str | None, reason: str | None = None, tags: tuple[str, ...] = ()) -> int: ...

    def advance(self, *states: ItemState, finished: bool, skip: bool = False) -> None: ...

    def go_back(self, state: ItemState) -> None: ...

    def leave_item(self, *states: ItemState) -> None: ...

    def adjudicate(self, item_pk: int, dimension: str, value: float, reason: str) -> None: ...

    def choose_in_pair(self, pair: PairState, choice: int, reason: str | None = None,
                       tags: tuple[str, ...] = ()) -> None: ...

    def cycle_partner(self, pair: PairState, step: int, over_item: bool) -> Any: ...

    def write_comment(self, state: ItemState, text: str) -> Ticket[int]: ...

    def write_reveal(self, *states: ItemState) -> None: ...

    def flag_item(self, state: ItemState, reason: str) -> Ticket[int]: ...

    def write_correction(self, state: ItemState, text: str) -> Ticket[int | None]: ...
    def go_to(self, item_pk: int, *states: ItemState) -> Any: ...


class AnswersWrites:
    """A screen that keeps writes it handed over (on its undo stack, or waiting for their
    result): the app hands it every write's outcome, by ticket."""

    def written(self, message: Written) -> None:
        """The write with ``message.ticket`` landed (nothing to do unless the screen waits on it)."""

    def write_failed(self, message: WriteFailed) -> None:
        """The write with ``message.ticket`` was refused: roll it back on screen if it is one of
        this screen's, adding what the screen shows again to ``message.undone``."""


def host_of(app: object) -> ReviewHost:
    """The running app, typed as the screens may use it."""
    return cast("ReviewHost", app)


__all__ = ["AnswersWrites", "ReviewHost", "ReviewOf", "Session", "host_of"]
