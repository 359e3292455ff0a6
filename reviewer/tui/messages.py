"""The messages the TUI's store work answers with (harlequin's way: workers post messages,
screens and the app handle them). Reads post what they read (``PageLoaded``, ``ItemLoaded``, …)
or :class:`ReadFailed`; the writer posts :class:`Written` or :class:`WriteFailed` with the write's
ticket (:mod:`reviewer.tui.gateway`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.message import Message

if TYPE_CHECKING:
    from reviewer.services.reports import DimensionDetail, GoldAccuracy, TeamRow
    from reviewer.store.history import Decision
    from reviewer.store.lead_reviews import ReviewedScore
    from reviewer.store.sorting import QueueOrder
    from reviewer.store.views import QueueFilter
    from reviewer.tui.adapter import FlagLine, QueueLine
    from reviewer.tui.viewmodel import ItemState, PairState

#: An item claimed (None: the queue has nothing left) and its pair, for a pairwise rubric
Claimed = tuple["ItemState | None", "PairState | None"]


# --- the store and its writes ------------------------------------------------------------------
@dataclass
class ReadFailed(Message):
    """A read from the store failed: ``what`` was being read, ``error`` says why."""

    what: str
    error: str


@dataclass
class Written(Message):
    """The write with this ticket has landed; ``result`` is what the store returned (an id)."""

    ticket: int
    label: str
    result: object = None


@dataclass
class WriteFailed(Message):
    """The write with this ticket was refused. Screens that hold it on their undo stack roll it
    back and fill in ``undone`` (what the screen shows again), said in the same line."""

    ticket: int
    label: str
    error: str
    undone: list[str] = field(default_factory=list)


@dataclass
class StoreOpened(Message):
    """The store the app was started without is open (``blind``: its queue is set blind)."""

    blind: bool


@dataclass
class StoreFailed(Message):
    """The store could not be opened: the app leaves with this line and exit code."""

    line: str
    code: int


# --- what was read -----------------------------------------------------------------------------
@dataclass
class ItemLoaded(Message):
    """An item was read (None: the queue is empty for this reviewer), with its pair if any."""

    state: ItemState | None
    remember: bool = True
    pair: PairState | None = None


@dataclass
class PairLoaded(Message):
    """``state`` beside another item of its group (None: it has none)."""

    state: ItemState
    pair: PairState | None


@dataclass
class PartnerLoaded(Message):
    """The pair's anchor beside its next partner (``found`` None: every other one is held)."""

    pair: PairState
    found: PairState | None
    over_item: bool


@dataclass
class ItemsFound(Message):
    """Not one item has the id the reviewer asked for: none, or several to pick from."""

    item_id: str
    found: list[tuple[int, str, str]]
    states: tuple[ItemState, ...]


@dataclass
class ProgressLoaded(Message):
    """The queue's (total, done, left for this reviewer)."""

    found: tuple[int, int, int]


@dataclass
class RolesLoaded(Message):
    """The reviewer's roles."""

    roles: set[str]


@dataclass
class PageLoaded(Message):
    """A page of the queue was read: its rows, and with the first page the queue's size and how
    many items ``filt`` keeps (``filt``: the filter it was read under; None for the lite page)."""

    rows: list[QueueLine]
    total: int | None
    matching: int | None = None
    filt: QueueFilter | None = None
    #: the order it was read in (None for the lite page: the queue's own)
    order: QueueOrder | None = None


@dataclass
class FilterValuesLoaded(Message):
    """The datasets and judge bands the filter dialog offers."""

    datasets: list[str]
    bands: list[str]


@dataclass
class FlagsLoaded(Message):
    """The flags waiting for a decision were read."""

    flags: list[FlagLine]


@dataclass
class CalibrationLoaded(Message):
    """The calibration report's rows were computed."""

    rows: list[dict[str, Any]]


@dataclass
class DriftLoaded(Message):
    """Each reviewer's accuracy on gold items, week by week, was read (the calibration screen)."""

    rows: list[GoldAccuracy]


@dataclass
class TeamLoaded(Message):
    """Each person's progress in each queue was read (the team view)."""

    rows: list[TeamRow]


@dataclass
class DetailLoaded(Message):
    """One dimension's confusion table, biases and disagreements were computed."""

    detail: DimensionDetail


@dataclass
class ReviewPageLoaded(Message):
    """A page of a person's scores for a lead's review was read (``before``: the key it was
    read below; None for the first page)."""

    rows: list[ReviewedScore]
    before: int | None


@dataclass
class HistoryLoaded(Message):
    """A page of the reviewer's own decisions on the queue was read (newest first), from
    ``offset`` on."""

    rows: list[Decision]
    offset: int


# --- computations off the UI thread ------------------------------------------------------------
@dataclass
class CorrectionDrawn(Message):
    """The corrected answer's panel was drawn in a worker (a diff of up to 2,000 lines a side):
    ``key`` says which item, revision and correction it shows; ``text`` None: no correction."""

    key: tuple[Any, ...]
    text: Text | None


@dataclass
class MarkTextReady(Message):
    """Mark mode's text was prepared in a worker: the source offsets mapped to the text as shown
    (``shown``) and that text with the earlier marks drawn (``text``)."""

    shown: list[int]
    text: Text
