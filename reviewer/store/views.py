"""Plain records the store hands out: nothing outside ``reviewer/store`` sees a session or a row."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, TypedDict

from reviewer.store.sorting import QueueCursor

#: A record the store hands out as plain JSON-shaped data (an export row, a rating row, an item
#: for the judge, a cached reply): its keys are documented where it is made (and the export's in
#: docs/formats.md); its values are whatever JSON holds, so they stay untyped here, in one place.
Record = dict[str, Any]


@dataclass(frozen=True)
class Claim:
    """An item leased to a reviewer in a queue until ``until``."""

    item_pk: int
    item_id: str
    queue: str
    reviewer: str
    until: datetime
    #: A known-answer item (the store knows; the reviewer's screen does not say).
    gold: bool = False


@dataclass(frozen=True)
class QueueRow:
    """One row of a queue page."""

    item_pk: int
    item_id: str
    dataset: str
    rubric_ref: str
    overall: float | None
    band: str | None
    passed: bool | None
    flagged: bool
    errors: int
    reviewed: int
    holder: str | None
    #: The row's place in the list's order: pass it as ``after`` to get the next page.
    cursor: QueueCursor
    #: The judge's headline score on [0, 1] where the rubric names a headline (else None).
    headline: float | None = None


#: The ``item`` column each queue counts an item's reviews by (serving, progress, "done", the
#: list's status): the audit queue counts only reviews made of labels
#: (:mod:`reviewer.domain.labels`), so an item reviewed in triage is still served for its label.
REVIEW_COUNTS = {"triage": "n_reviewed", "audit": "n_labelled", "safety": "n_reviewed"}


#: What the queue list's status filter offers (``reviewer.store.queue_filter`` says what each means).
STATUSES = ("new", "in progress", "done", "flagged")


@dataclass(frozen=True)
class QueueFilter:
    """What the queue list is narrowed to; every field None (or False) leaves it whole."""

    #: the item's dataset, exactly
    dataset: str | None = None
    #: the judge's band, exactly (reveals the judge: never in a blind session)
    band: str | None = None
    #: one of :data:`STATUSES`
    status: str | None = None
    #: only items whose judge panel disagrees: its models apart (reveals the judge: never in a
    #: blind session)
    disagreement: bool = False
    #: a piece of the item id, input or output, matched literally (``%`` and ``_`` are plain characters)
    text: str | None = None
    #: only items where the judge and the people disagree (``item.human_gap``; reveals the judge:
    #: never in a blind session)
    people_disagree: bool = False

    @property
    def active(self) -> bool:
        """Whether anything is filtered."""
        return bool(self.dataset or self.band or self.status or self.disagreement or self.text
                    or self.people_disagree)

    @property
    def reveals_judge(self) -> bool:
        """Whether the filter says something about the judge's scores (refused while blind)."""
        return bool(self.band or self.disagreement or self.people_disagree)

    def without_judge(self) -> QueueFilter:
        """The same filter less what would reveal the judge."""
        return replace(self, band=None, disagreement=False, people_disagree=False)


@dataclass(frozen=True)
class PairChoiceRecord:
    """A reviewer's current choice on one pair of a group's items."""

    pk: int
    group: str
    reviewer: str
    #: the two items compared, lower key first
    item_a_pk: int
    item_b_pk: int
    #: the better one's key; None for a tie
    winner_item_pk: int | None
    reason: str | None
    tags: tuple[str, ...]
    created_at: datetime
    #: ``choice`` (made in the review screen) or ``import`` (an item file's verdict)
    kind: str = "choice"


@dataclass(frozen=True)
class JudgeRecord:
    """A judge score as stored (the latest per dimension and model)."""

    pk: int
    run_pk: int
    dimension: str
    model: str | None
    method: str
    score: float | None
    samples: list[float]
    std: float | None
    rationale: str
    evidence: list[Any]
    confidence: float | None
    error: str | None
    raw_reply: str | None
    turn: int | None = None
    not_applicable: bool = False


@dataclass(frozen=True)
class HumanRecord:
    """A human score row."""

    pk: int
    dimension: str
    reviewer: str
    score: float | None
    reason: str | None
    tags: list[str]
    blind: bool
    kind: str
    sample: str | None
    created_at: datetime


@dataclass(frozen=True)
class FlagRecord:
    """A safety flag with its decisions so far."""

    pk: int
    item_pk: int
    item_id: str
    gate: str
    detector: str
    start: int
    end: int
    matched: str
    context: str
    status: str
    output: str = ""
    decisions: list[tuple[str, str, str]] = field(default_factory=list)
    rubric_ref: str = ""
    #: distinct people who cleared it since it was last escalated or confirmed
    signoffs: int = 0
    #: the item's conversation (messages), when it is one
    conversation: list[Any] | None = None


@dataclass
class ItemView:
    """Everything a reviewer sees about one item."""

    pk: int
    item_id: str
    dataset: str
    rubric_ref: str
    input: str
    output: str
    context: str
    reference: str
    conversation: Any
    group: str | None
    variant: str | None
    metadata: dict[str, Any]
    #: dimension → judge records (one per model; the latest run of each model).
    judge: dict[str, list[JudgeRecord]]
    #: dimension → reviewer → that reviewer's current score row (peers hidden until the viewer
    #: has scored the dimension).
    human: dict[str, dict[str, HumanRecord]]
    #: The viewer's own rows, oldest first (blind score, revision, undo...).
    history: list[HumanRecord]
    flags: list[FlagRecord]
    #: The item's state (:mod:`reviewer.domain`): effective scores, overall, safety.
    fold: Any = None
    #: The viewer has revealed the judge on this content revision (a blind session's ``v``).
    revealed: bool = False


@dataclass
class ImportSummary:
    """What an import did."""

    rows: int = 0
    inserted: int = 0
    unchanged: int = 0
    updated: int = 0
    judge_scores: int = 0
    human_scores: int = 0
    #: pair records' people's verdicts and judge verdicts written
    pair_choices: int = 0
    pair_judgments: int = 0
    seconds: float = 0.0
    #: "child" when a forked process read the file while this one wrote, else "inline"
    reader: str = "inline"

    def __str__(self) -> str:
        return (f"{self.rows} rows: {self.inserted} new, {self.updated} updated, "
                f"{self.unchanged} unchanged; {self.judge_scores} judge scores, "
                f"{self.human_scores} human scores"
                + (f", {self.pair_choices} people's and {self.pair_judgments} judge pair verdicts"
                   if self.pair_choices or self.pair_judgments else "")
                + f" in {self.seconds:.2f} s")


class PairChoiceExport(TypedDict):
    """One current pair choice as the export writes it beside an item (ids, not keys)."""

    reviewer: str
    partner: str | None
    winner: str | None
    reason: str | None
    tags: list[str]
    created_at: str | None
    kind: str


class PairVerdictExport(TypedDict):
    """A judge's current verdict on a pair as the export writes it beside each of its items:
    ``a`` shown first, ``b`` second, ``winner`` the better one (null for a tie), all item ids."""

    model: str
    a: str | None
    b: str | None
    winner: str | None
    rationale: str | None
    created_at: str | None


class JudgeDimensionReport(TypedDict):
    """One dimension's share of a judge run (``judge_run_report``)."""

    scores: int
    errors: int
    mean: float | None
    cost_usd: float
    tokens_in: int
    tokens_out: int


class JudgeRunReport(TypedDict):
    """A judge run's report: ``rubricate judge --report`` prints it (``--format json`` as is)."""

    run: int
    rubric: str
    model: str | None
    status: str
    totals: Record
    dimensions: dict[str, JudgeDimensionReport]
    cost_usd: float


class DimensionCost(TypedDict):
    """What the judge cost on one dimension over every run of a rubric (``run_report``'s ``cost``)."""

    cost_usd: float
    calls: int
    errors: int
