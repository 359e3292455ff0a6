"""What the item screen shows, as plain state the screen owns and updates.

The screen never reads the store's rows directly: :func:`reviewer.tui.adapter.load_item` builds an
:class:`ItemState` in a worker thread, with the item's fold (:mod:`reviewer.domain`), and the screen
changes it as the reviewer scores. The effective overall is the fold with this reviewer's current
scores put in (:func:`reviewer.domain.with_votes`), so the verdict updates live without a round
trip to the database and by the same rules every other view uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from reviewer.domain import (
    HumanDim,
    ItemFold,
    JudgeDim,
    JudgeRow,
    SafetyState,
    TurnScore,
    judge_only,
    resolve,
    with_votes,
)
from reviewer.domain.comments import Comment, visible_comments
from reviewer.domain.corrections import Correction
from rubrics.aggregate import ItemScore
from rubrics.schema import Dimension, Rubric


@dataclass
class FlagState:
    """An open or decided safety flag on the item."""

    flag_id: int
    gate: str
    detector: str
    matched: str
    start: int
    end: int
    context: str = ""
    status: str = "open"
    decisions: list[str] = field(default_factory=list)


@dataclass
class DimState:
    """One dimension: the judge's record and this reviewer's current score."""

    dim: Dimension
    judge_score: float | None = None
    judge_score_id: int | None = None
    samples: list[float] = field(default_factory=list)
    std: float | None = None
    rationale: str = ""
    evidence: list[str] = field(default_factory=list)
    confidence: float | None = None
    judge_error: str | None = None
    raw_reply: str | None = None
    my_score: float | None = None
    my_reason: str | None = None
    my_tags: tuple[str, ...] = ()
    #: The reviewer's first score was given before the judge was revealed.
    my_blind: bool = False
    #: The kind of the row the current score was stored with (score, agree, revision, import):
    #: a reason added to it, or an undo back to it, is stored with the same kind.
    my_kind: str = "score"
    #: Whether the current score itself was given blind: kept, like the kind, by a reason or undo.
    my_score_blind: bool = False
    #: The queue sample the current score was given in: kept, like the kind, by a reason or undo.
    my_sample: str | None = None
    #: In blind mode, whether the judge's score is visible yet.
    revealed: bool = True
    #: The score given blind, before the judge was revealed (kept when revised after).
    blind_score: float | None = None
    peers: dict[str, float] = field(default_factory=dict)
    #: A turn-level dimension: the judge's score on each turn (:func:`reviewer.domain.fold_turns`).
    turns: list[TurnScore] = field(default_factory=list)

    @property
    def judge_visible(self) -> bool:
        """Whether the judge's score and rationale may be shown."""
        return self.revealed

    @property
    def agree_level(self) -> float | None:
        """What agreeing (enter) records: the level of the scale nearest the judge's score (a mean
        of samples or of a panel may fall between levels; a tie goes to the lower level)."""
        if self.judge_score is None:
            return None
        return self.dim.scale.nearest_level(self.judge_score)

    def needs_reason(self, margin: float) -> bool:
        """Whether the reviewer's score differs from the judge's by more than ``margin``."""
        if self.my_score is None or self.judge_score is None:
            return False
        return abs(self.my_score - self.judge_score) > margin and not self.my_reason


@dataclass
class ItemState:
    """Everything the item screen needs about one item."""

    item_pk: int
    item_id: str
    rubric: Rubric
    output: str
    input: str = ""
    context: str = ""
    reference: str = ""
    dataset: str = ""
    group: str | None = None
    variant: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    dims: list[DimState] = field(default_factory=list)
    flags: list[FlagState] = field(default_factory=list)
    claim: Any = None
    #: The judge's pair methods on this item's group, one line each (shown in the pair view).
    pair_lines: list[str] = field(default_factory=list)
    #: The item's state as the store's rows make it (:class:`reviewer.domain.ItemFold`).
    fold: ItemFold | None = None
    #: Whose scores ``dims`` hold (``my_score``).
    reviewer: str = ""
    #: Chat messages ``{role, content}`` when the item is a conversation.
    conversation: list[dict[str, Any]] = field(default_factory=list)
    #: Everyone's comments on the item, oldest first (those written on this screen included).
    comments: list[Comment] = field(default_factory=list)
    #: The item's content revision (a comment says which it was written on).
    revision: int = 1
    #: The session's queue: the sample of a score given with no claim (the item opened from the
    #: queue list), so an audit session's scores are labels there too (reviewer.domain.labels).
    queue: str | None = None
    #: Everyone's corrected answers of the item, oldest first (those saved on this screen included).
    corrections: list[Correction] = field(default_factory=list)
    #: The last results computed, with what they were computed from: one refresh of the item
    #: screen asks for them several times (summary, verdict, caps), each a fold of the rubric.
    _results: dict[str, tuple[Any, ItemScore]] = field(default_factory=dict, init=False, repr=False, compare=False)
    _results_fold: ItemFold | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def safety_failed(self) -> bool:
        """The safety cap applies: a flag open, escalated or confirmed (the flags' statuses come
        from the fold; a flag raised on this screen since it was loaded counts too)."""
        return any(f.status not in ("cleared", "withdrawn") for f in self.flags)

    @property
    def judge_hidden(self) -> bool:
        """Whether any of the judge's scores is still hidden (blind): then nothing computed from
        them (overall, band, pass, the flip) may be shown either."""
        return any(not d.judge_visible for d in self.dims)

    def shown_comments(self) -> list[Comment]:
        """The comments this reviewer may read now: blind means blind, so while any of the
        judge's scores is hidden from them, only their own (:mod:`reviewer.domain.comments`)."""
        return visible_comments(self.comments, self.reviewer, self.judge_hidden)

    def shown_corrections(self) -> list[Correction]:
        """The corrected answers this reviewer may read now: as for comments, only their own while
        any of the judge's scores is hidden from them."""
        return visible_comments(self.corrections, self.reviewer, self.judge_hidden)

    def _fold(self) -> ItemFold:
        if self.fold is None:  # a state built by hand (tests): fold what it holds
            humans = {d.dim.id: HumanDim() for d in self.dims}
            judges = {d.dim.id: JudgeDim({"judge": JudgeRow(0, d.dim.id, None, d.judge_score, error=d.judge_error)}
                                         if d.judge_score is not None or d.judge_error else {}, d.judge_score)
                      for d in self.dims}
            self.fold = resolve(self.rubric, humans, judges, SafetyState("none"), self.item_pk)
        if self.safety_failed != self.fold.safety.capped:  # flags changed on screen since the load
            status = "open" if self.safety_failed else "cleared"
            return replace(self.fold, safety=SafetyState(status, self.fold.safety.flags))
        return self.fold

    def judge_result(self) -> ItemScore:
        """The overall as the judge alone scores it."""
        fold = self._fold()
        key = (fold.safety,)
        hit = self._results.get("judge")
        if hit is not None and hit[0] == key and self._results_fold is self.fold:
            return hit[1]
        result = judge_only(self.rubric, fold)
        self._remember("judge", key, result)
        return result

    def effective_result(self) -> ItemScore:
        """The item's effective overall with this reviewer's current scores in it."""
        fold = self._fold()
        mine = {d.dim.id: d.my_score for d in self.dims}
        key = (fold.safety, self.reviewer, tuple(mine.items()))
        hit = self._results.get("effective")
        if hit is not None and hit[0] == key and self._results_fold is self.fold:
            return hit[1]
        result = with_votes(self.rubric, fold, self.reviewer, mine).score
        self._remember("effective", key, result)
        return result

    def _remember(self, name: str, key: Any, result: ItemScore) -> None:
        if self._results_fold is not self.fold:  # a new fold (the item re-read): start again
            self._results.clear()
            self._results_fold = self.fold
        self._results[name] = (key, result)

    def scored_count(self) -> int:
        """How many dimensions this reviewer has scored."""
        return sum(1 for d in self.dims if d.my_score is not None)

    def review_complete(self) -> bool:
        """Whether this reviewer's review counts as done (every dimension scored, or any one
        with ``review: partial``): the store marks the assignment done only then."""
        return self.rubric.review_complete({d.dim.id for d in self.dims if d.my_score is not None})

    def first_unscored(self) -> int:
        """The index of the first dimension this reviewer has not scored (0 when all are)."""
        return next((i for i, d in enumerate(self.dims) if d.my_score is None), 0)

    def unexplained(self) -> list[DimState]:
        """Dimensions whose score differs from the judge's by more than the margin, unexplained."""
        margin = self.rubric.review.reason_margin
        return [d for d in self.dims if d.needs_reason(margin)]

    @property
    def sample(self) -> str | None:
        """The queue sample a score given now is stored with: the queue the item was claimed in,
        else the session's (:attr:`queue`)."""
        return self.claim.queue if self.claim is not None else self.queue

    def record(self, d: DimState, value: float, kind: str) -> tuple[str, bool]:
        """Set the reviewer's score on ``d``; returns the kind and blindness to store it with
        (its queue sample is :attr:`sample`).

        A score given before the judge was revealed is blind (and reveals it); a new score after
        a blind one and the reveal is a revision, so both are kept."""
        blind = not d.revealed
        if d.my_score is not None and d.my_blind and d.revealed:
            kind = "revision"
        d.my_score, d.my_reason, d.my_tags = value, None, ()
        d.my_kind, d.my_score_blind, d.my_sample = kind, blind, self.sample
        if blind:
            d.my_blind = d.revealed = True
            d.blind_score = value
        return kind, blind


@dataclass
class PairState:
    """Two items of one group, side by side, and this reviewer's choice between them. In a
    group of more than two, the item it was opened on stays and its partner is cycled through
    the group's other items (``partners``), a choice per pair."""

    group: str
    rubric: Rubric
    sides: list[ItemState]
    #: The better side's index, ``-1`` for a tie, None before the reviewer has chosen.
    choice: int | None = None
    #: The judge's pair methods on this group, as lines to show (e.g. framing consistency).
    judge_lines: list[str] = field(default_factory=list)
    #: The item the pair was opened on (it stays when the partner changes).
    anchor_pk: int | None = None
    #: The group's other items' keys, by variant: the partners, one on screen at a time.
    partners: list[int] = field(default_factory=list)
    #: Which of ``partners`` is on screen.
    partner_index: int = 0
    #: Why the reviewer chose as they did (with the current choice), and its quick tags.
    reason: str | None = None
    tags: tuple[str, ...] = ()

    @property
    def partner(self) -> ItemState:
        """The side that is not the anchor."""
        return next(s for s in self.sides if s.item_pk != self.anchor_pk) if self.anchor_pk is not None \
            else self.sides[1]

    @property
    def anchor(self) -> ItemState:
        """The side the pair was opened on."""
        return next(s for s in self.sides if s is not self.partner)
