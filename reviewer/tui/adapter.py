"""The store calls of the TUI, each turning store records into what a screen shows. Every
function here blocks; only :mod:`reviewer.tui.gateway` hands them the store, in a worker (reads)
or on its writer thread (writes), never on the UI thread."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from reviewer.domain import fold_turns
from reviewer.domain.safety import safety_status
from reviewer.tui.viewmodel import DimState, FlagState, ItemState, PairState

if TYPE_CHECKING:  # (the store's class, for its type alone: importing it loads SQLAlchemy)
    from datetime import datetime

    from reviewer.services.reports import DimensionDetail, GoldAccuracy, TeamRow
    from reviewer.store import Store
    from reviewer.store.history import Decision
    from reviewer.store.lead_reviews import ReviewedScore
    from reviewer.store.views import Claim

BAND_COLORS = {"High": "green", "Medium": "yellow", "Low": "red", "Potential bias": "red"}


@dataclass(frozen=True)
class QueueLine:
    """A queue row as the queue screen shows it."""

    item_pk: int
    item_id: str
    dataset: str
    overall: float | None
    band: str | None
    band_color: str
    passed: bool | None
    flagged: bool
    errors: int
    #: complete reviews so far ("none", "2"): not the queue status the filter offers (new, in
    #: progress, done), which also weighs leases, half-done reviews and the reviewers needed
    reviews: str
    holder: str | None
    #: the row's place in the list (the store's ``QueueCursor``): the next page starts after it
    cursor: Any
    #: the judge's headline score where the rubric names one (REVAL's treatment parity)
    headline: float | None = None

    @property
    def score(self) -> str:
        """The list's score cell: the headline with the rubric mean beside it where the rubric
        names one, else the overall."""
        mean = "—" if self.overall is None else f"{self.overall:.2f}"
        return mean if self.headline is None else f"{self.headline:.2f} · mean {mean}"


@dataclass(frozen=True)
class FlagLine:
    """A safety flag as the safety screen shows it."""

    flag_id: int
    item_pk: int
    item_id: str
    gate: str
    detector: str
    matched: str
    start: int
    end: int
    status: str
    #: e.g. "1 of 2 logins"
    signoffs: str
    output: str
    #: each decision so far: who, what, why
    decisions: tuple[tuple[str, str, str], ...] = ()
    #: why it was flagged (a reviewer's reason, or the gate's context)
    context: str = ""
    #: why it still waits when the sign-offs alone do not say (the escalator's own clearance)
    why_waiting: str | None = None
    #: the item's conversation (messages), when it is one
    conversation: tuple[dict[str, Any], ...] = ()


def progress(store: Store, queue: str, reviewer: str, rubric_ref: str | None,
             dataset: str | None) -> tuple[int, int, int]:
    """The queue's ``(total, done, left for this reviewer)``."""
    return store.queue.queue_progress(queue, reviewer, rubric_ref, dataset)


def find_items(store: Store, item_id: str) -> list[tuple[int, str, str]]:
    """``(key, dataset, rubric)`` of every item with this exact id (an id is unique only within
    a rubric and dataset), by key."""
    return list(store.items.items_by_id(item_id))


def roles(store: Store, reviewer: str) -> set[str]:
    """The reviewer's roles."""
    return set(store.roles.reviewer_roles(reviewer))


def queue_page(store: Store, queue: str, rubric_ref: str | None, dataset: str | None, after: Any,
               limit: int, filt: Any = None, blind: bool = False,
               order: Any = None) -> tuple[list[QueueLine], int | None, int | None]:
    """One page of the queue narrowed by ``filt`` (a ``QueueFilter``; in a blind session never
    by what the judge said) and sorted in ``order`` (a ``QueueOrder``; in a blind session never
    by what the judge said either); with the first page (``after`` None) the queue's size and how
    many items the filter keeps (None without a filter)."""
    if filt is not None and blind and filt.reveals_judge:
        filt = filt.without_judge()
    if filt is not None and not filt.active:
        filt = None
    if order is not None and (not order.active or (blind and order.reveals_judge)):
        order = None
    rows = store.queue.queue_page(queue, rubric_ref, dataset, after=after, limit=limit, filt=filt, order=order)
    total = matching = None
    if after is None:
        total = store.queue.queue_count(queue, rubric_ref, dataset)
        if filt is not None:
            matching = store.queue.queue_count(queue, rubric_ref, dataset, filt=filt)
    return lines(rows), total, matching


def queue_values(store: Store, queue: str, rubric_ref: str | None, dataset: str | None) -> tuple[list[str], list[str]]:
    """The datasets and judge bands in the queue (what the filter dialog offers)."""
    datasets, bands = store.queue.queue_values(queue, rubric_ref, dataset)
    return list(datasets), list(bands)


def lines(rows: list[Any]) -> list[QueueLine]:
    """Store queue rows as the queue screen shows them."""
    return [QueueLine(r.item_pk, r.item_id, r.dataset, r.overall, r.band, BAND_COLORS.get(r.band or "", "white"),
                      r.passed, r.flagged, r.errors, str(r.reviewed) if r.reviewed else "none",
                      r.holder, r.cursor, r.headline) for r in rows]


def load_item(store: Store, item_pk: int, reviewer: str, blind: bool = False, claim: Any = None,
              queue: str | None = None) -> ItemState:
    """Build the item screen's state from the store's item view and the item's fold (effective
    scores, the judge panel, this reviewer's current votes and the safety status all come from
    the fold; the records add what is shown beside them: rationale, evidence, samples).
    ``queue``: the session's (:attr:`ItemState.queue`)."""
    view = store.items.item_view(item_pk, reviewer)
    rubric = store.rubrics.get_rubric(view.rubric_ref)
    fold = view.fold
    turns = fold_turns((r for recs in view.judge.values() for r in recs), rubric.judge.panel_aggregate)
    dims, pair_lines = [], []
    for dim in rubric.dimensions:
        if dim.is_pair:
            pair_lines += [_pair_line(dim.name or dim.id, r) for r in view.judge.get(dim.id, [])[-1:]]
            continue
        recs = [r for r in view.judge.get(dim.id, []) if r.turn is None]
        f = fold.dims[dim.id]
        d = DimState(dim=dim, turns=turns.get(dim.id, []))
        if recs:
            ok = [r for r in recs if r.score is not None]
            last = recs[-1]
            d.judge_score_id, d.rationale, d.evidence = last.pk, last.rationale, list(last.evidence)
            d.confidence, d.raw_reply = last.confidence, last.raw_reply
            d.judge_score = f.judge.panel
            d.judge_error = f.judge.error if f.judge.panel is None else None
            if len(f.judge.scores) > 1:  # a panel: each model's score
                d.samples = list(f.judge.scores.values())
            elif ok:
                d.samples = list(ok[-1].samples)
            d.std = statistics.stdev(d.samples) if len(d.samples) > 1 else None
        mine = f.human.votes.get(reviewer)
        if mine is not None:
            d.my_score, d.my_reason, d.my_tags = mine.score, mine.reason, tuple(mine.tags)
            d.my_blind = mine.first_blind is not None
            d.blind_score = mine.first_blind
            d.my_kind, d.my_score_blind = mine.kind, mine.blind
            d.my_sample = next((h.sample for h in view.history if h.pk == mine.pk), None)
        # the judge once shown stays shown: after a reveal (``v``), or on a dimension this person
        # has scored on this revision (a blind score shows the judge's card, even if undone since)
        d.revealed = not blind or view.revealed or mine is not None or any(h.dimension == dim.id for h in view.history)
        d.peers = {name: rec.score for name, rec in view.human.get(dim.id, {}).items()
                   if name != reviewer and rec.score is not None}
        dims.append(d)
    states = {s.flag.pk: s.status for s in fold.safety.flags}
    flags = [FlagState(f.pk, f.gate, f.detector, f.matched, f.start, f.end, f.context, states.get(f.pk, f.status),
                       [f"{who}: {what} ({why})" for who, what, why in f.decisions]) for f in view.flags
             if states.get(f.pk, f.status) != "withdrawn"]
    return ItemState(view.pk, view.item_id, rubric, view.output, view.input, view.context, view.reference,
                     view.dataset, view.group, view.variant, dict(view.metadata), dims, flags, claim,
                     pair_lines, fold=fold, reviewer=reviewer,
                     conversation=[m for m in (view.conversation or []) if isinstance(m, dict)],
                     comments=list(store.comments.comments([item_pk])[item_pk]), revision=fold.revision, queue=queue,
                     corrections=list(store.corrections.corrections([item_pk])[item_pk]),
                     marks=store.marks.marks([item_pk])[item_pk])


def _pair_line(name: str, rec: Any) -> str:
    if rec.score is None:
        return f"{name}: judge error: {rec.error}"
    return f"{name}: {rec.score:g}" + (f" — {rec.rationale}" if rec.rationale else "")


def load_pair(store: Store, state: ItemState, reviewer: str, blind: bool = False,
              lease_seconds: int | None = None, partner_index: int = 0) -> PairState | None:
    """``state`` beside another item of its group (the ``partner_index``-th by variant; None when
    it has no partner), with this reviewer's current choice on that pair. With ``lease_seconds``,
    and ``state`` claimed, the partner is leased too (None when another reviewer holds it)."""
    if state.group is None:
        return None
    others = [pk for pk in store.items.group_items(state.item_pk) if pk != state.item_pk]
    if not others:
        return None
    partner_index %= len(others)
    claim = None
    if lease_seconds is not None and state.claim is not None:
        claim = store.queue.claim_item(others[partner_index], state.claim.queue, reviewer, lease_seconds=lease_seconds)
        if claim is None:
            return None
    partner = load_item(store, others[partner_index], reviewer, blind, claim, state.queue)
    sides = sorted([state, partner], key=lambda s: (s.variant or "", s.item_pk))
    pair = PairState(state.group, state.rubric, sides, judge_lines=state.pair_lines, anchor_pk=state.item_pk,
                     partners=others, partner_index=partner_index)
    pair_on = tuple(sorted((state.item_pk, partner.item_pk)))
    mine = [c for c in store.scores.pair_choice_rows(state.rubric.ref, state.group)
            if c.reviewer == reviewer and (c.item_a_pk, c.item_b_pk) == pair_on]
    if mine:
        c = mine[-1]
        pair.choice = -1 if c.winner_item_pk is None else next(
            (i for i, s in enumerate(sides) if s.item_pk == c.winner_item_pk), None)
        pair.reason, pair.tags = c.reason, tuple(c.tags)
    return pair


def next_partner(store: Store, pair: PairState, reviewer: str, blind: bool, step: int,
                 lease_seconds: int | None) -> PairState | None:
    """The anchor beside its next (``step`` 1) or previous partner, skipping partners another
    reviewer holds when leasing; None when no other partner can be shown."""
    n = len(pair.partners)
    for k in range(1, n):
        index = (pair.partner_index + step * k) % n
        found = load_pair(store, pair.anchor, reviewer, blind, lease_seconds, index)
        if found is not None:
            return found
    return None


def choose_in_pair(store: Store, item_pk: int, partner_pk: int, winner_pk: int | None, reviewer: str,
                   reason: str | None = None, tags: tuple[str, ...] = ()) -> int:
    """Write the reviewer's choice on the pair ``item_pk``/``partner_pk``: the better one's key,
    or None for a tie; with a reason and quick tags when given."""
    return int(store.scores.add_pair_choice(item_pk, reviewer, winner_pk, reason=reason, tags=tags, partner_pk=partner_pk))


def claim_next(store: Store, queue: str, reviewer: str, rubric_ref: str | None, dataset: str | None,
               lease_seconds: int, blind: bool, exclude: tuple[int, ...] = ()) -> ItemState | None:
    """Lease the next item and load it (None when the queue has nothing for this reviewer)."""
    claim = store.queue.claim_next(queue, reviewer, rubric_ref, dataset, lease_seconds=lease_seconds, exclude=exclude)
    if claim is None:
        return None
    return load_item(store, claim.item_pk, reviewer, blind, claim, queue)


def add_human_score(store: Store, state: ItemState, d: DimState, reviewer: str, value: float | None, *,
                    kind: str, blind: bool, sample: str | None, reason: str | None, tags: tuple[str, ...]) -> int:
    """Write one human score row, under the item's lease if any: the store refuses it when
    someone else has claimed the item since."""
    return int(store.scores.add_human_score(state.item_pk, d.dim.id, reviewer, value, reason=reason, tags=tags,
                                     blind=blind, judge_score_id=d.judge_score_id, kind=kind, sample=sample,
                                     claim=state.claim))


def add_reveal(store: Store, state: ItemState, reviewer: str) -> int:
    """Write the reviewer's reveal of the judge on the item (read again on every open)."""
    return int(store.scores.add_reveal(state.item_pk, reviewer))


def add_comment(store: Store, state: ItemState, reviewer: str, text: str) -> int:
    """Write the reviewer's comment on the item."""
    return int(store.comments.add_comment(state.item_pk, reviewer, text))


def add_correction(store: Store, state: ItemState, reviewer: str, text: str) -> int | None:
    """Write the reviewer's corrected answer for the item's output (None: it was unchanged, and
    nothing was stored)."""
    return store.corrections.add_correction(state.item_pk, reviewer, text)


def renew_claim(store: Store, state: ItemState, lease_seconds: int) -> None:
    """Extend the lease on an item the reviewer has open (the state keeps the new expiry)."""
    state.claim = store.queue.renew(state.claim, lease_seconds=lease_seconds)


def close_claim(store: Store, claim: Claim, how: Literal["complete", "skip", "release"]) -> None:
    """Complete, skip or release a lease."""
    if how == "complete":
        store.queue.complete(claim)
    elif how == "skip":
        store.queue.skip(claim)
    else:
        store.queue.release(claim)


def flag_item(store: Store, state: ItemState, reviewer: str, reason: str) -> int:
    """Send the item to the safety queue with the reviewer's reason."""
    return int(store.safety.flag_item(state.item_pk, reviewer, reason))


def open_flags(store: Store, rubric_ref: str | None) -> list[FlagLine]:
    """Flags waiting for a decision, with their sign-offs as the domain rule counts them."""
    needed: dict[str, int] = {}
    out = []
    for f in store.safety.open_flags(rubric_ref):
        if f.rubric_ref not in needed:
            needed[f.rubric_ref] = store.rubrics.get_rubric(f.rubric_ref).review.safety_signoffs if f.rubric_ref else 1
        status = safety_status([(who, what) for who, what, _ in f.decisions], needed[f.rubric_ref])
        out.append(FlagLine(f.pk, f.item_pk, f.item_id, f.gate, f.detector, f.matched, f.start, f.end,
                            status.state, status.signoff_text(), f.output, tuple(f.decisions), f.context,
                            status.why_waiting(),
                            tuple(m for m in (f.conversation or []) if isinstance(m, dict))))
    return out


def withdraw_flag(store: Store, flag_id: int, reviewer: str) -> str:
    """Take back a flag this reviewer raised (undo)."""
    return str(store.safety.withdraw_flag(flag_id, reviewer))


def decide_flag(store: Store, flag_id: int, reviewer: str, decision: str, reason: str) -> str:
    """Record a safety decision."""
    return str(store.safety.add_safety_decision(flag_id, reviewer, decision, reason))


def calibration_rows(store: Store, rubric_ref: str | None, dataset: str | None) -> list[dict[str, Any]]:
    """Per dimension of the rubric (or of every rubric with items) the calibration figures, with
    the rubric, sample and scale beside them, and the dimension's last ``rubricate align`` in one
    line (``align``; None without one)."""
    from reviewer.services.align_render import align_line
    from reviewer.services.calibrate_service import calibrate

    refs = [store.rubrics.get_rubric(rubric_ref).ref] if rubric_ref else store.ratings.rubrics_with_items()
    out = []
    for ref in refs:
        report = calibrate(store, ref, dataset)  # the CLI's sample, seed and draws
        rubric = store.rubrics.get_rubric(ref)
        for d in report["dimensions"]:
            dim = rubric.dimension(d["dimension"])
            out.append({**d, "rubric": ref, "sample": report["sample"], "dataset": dataset, "pairs": report.get("pairs"),
                        "scale_min": dim.scale.min, "scale_max": dim.scale.max, "levels": dim.scale.levels,
                        "pass_rate_estimate": report.get("pass_rate_estimate"),
                        "align": align_line(store.align.last_align_run(ref, dim.id))})
    return out


def calibration_detail(store: Store, rubric_ref: str, dimension: str, dataset: str | None = None,
                       sample: str | None = None) -> DimensionDetail:
    """One dimension on the items its calibration row was computed from (same dataset and
    sample): the confusion table, each reviewer's bias (judge − human), the largest disagreements."""
    from reviewer.services.calibrate_service import dimension_detail

    return dimension_detail(store, rubric_ref, dimension, dataset, sample)


def adjudicate(store: Store, item_pk: int, dimension: str, lead: str, value: float, reason: str) -> int:
    """A lead's settling score on an item the humans disagree on, with the lead's reason."""
    return int(store.scores.add_human_score(item_pk, dimension, lead, value, reason=reason, kind="adjudication"))


def team_progress(store: Store, rubric_ref: str | None) -> list[TeamRow]:
    """Per person and queue: done, left, pace and last active (``rubricate queue progress``)."""
    from reviewer.services.team import team_progress as progress_of

    return progress_of(store, rubric_ref)


def gold_drift(store: Store, rubric_ref: str | None) -> list[GoldAccuracy]:
    """Each reviewer's error on gold items, week by week (``rubricate reviewer accuracy``)."""
    from reviewer.services.gold import gold_accuracy

    return gold_accuracy(store, rubric_ref)


def review_walk(store: Store, person: str, lead: str, queue: str | None, since: datetime | None,
                before: int | None, limit: int) -> list[ReviewedScore]:
    """A page of ``person``'s current scores for ``lead`` to review, newest first (``rubricate
    review --review-of``)."""
    return store.lead_reviews.walk(person, lead, queue, since, before, limit)


def accept_score(store: Store, score_pk: int, lead: str) -> int:
    """A lead accepts one of a person's scores."""
    return store.lead_reviews.accept(score_pk, lead)


def reject_score(store: Store, score_pk: int, lead: str, value: float, note: str) -> tuple[int, int]:
    """A lead rejects one of a person's scores with a reason and their own score (an adjudication)."""
    return store.lead_reviews.reject(score_pk, lead, value, note)


def history_page(store: Store, reviewer: str, queue: str, offset: int, limit: int) -> list[Decision]:
    """The reviewer's latest decisions on the queue, newest first (the history panel)."""
    return store.history.recent_decisions(reviewer, queue, limit=limit, offset=offset)


def add_mark(store: Store, state: ItemState, dimension: str, reviewer: str, start: int, end: int) -> int:
    """Write the reviewer's span mark on the item's text under review, beside ``dimension``."""
    return int(store.marks.add_mark(state.item_pk, dimension, reviewer, start, end, revision=state.revision))
