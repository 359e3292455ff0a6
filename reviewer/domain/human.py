"""People's scores on one item: the current score per reviewer, the consensus, a lead's
adjudication.

Human scores are append-only. Per (dimension, reviewer) the latest standing row counts: a new
score (kind ``score``, ``agree``, ``revision`` or ``import``) replaces the reviewer's earlier one;
an undo (kind ``undo``, no score) withdraws the reviewer's latest standing row on the dimension
(their vote, or their adjudication if that came last); nothing is restored. An adjudication (kind
``adjudication``, by a lead) is not a vote: it never enters the consensus, it *settles* the
dimension (the latest standing adjudication of any lead wins).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from reviewer.domain.rows import HumanRow
from rubrics.schema import Rubric

AGGREGATES = ("mean", "median", "majority")


@dataclass(frozen=True, slots=True)
class Vote:
    """A reviewer's current score on a dimension."""

    reviewer: str
    score: float
    kind: str
    blind: bool
    pk: int
    reason: str | None = None
    tags: tuple[str, ...] = ()
    #: The reviewer's first score given blind (before the judge was shown), since their last undo.
    first_blind: float | None = None
    created_at: datetime | None = None


@dataclass(frozen=True)
class HumanDim:
    """People on one dimension of one item."""

    #: reviewer → current vote (adjudications are not votes)
    votes: dict[str, Vote] = field(default_factory=dict)
    #: the latest standing adjudication (its ``reviewer`` is the lead), or None
    adjudication: Vote | None = None

    def scores(self) -> list[float]:
        """The votes' scores, by reviewer name."""
        return [self.votes[w].score for w in sorted(self.votes)]


def consensus(scores: Sequence[float], how: str = "mean") -> float | None:
    """The people's score on a dimension: the mean of their current scores (or the median, or the
    most frequent score with ties going to the lower); None with no score."""
    if not scores:
        return None
    if how == "median":
        return float(statistics.median(scores))
    if how == "majority":
        counts = Counter(scores)
        top = max(counts.values())
        return float(min(s for s, c in counts.items() if c == top))
    return float(statistics.fmean(scores))


def fold_human(rows: Iterable[HumanRow]) -> dict[str, HumanDim]:
    """Per dimension, the current votes and adjudication (``rows`` oldest first)."""
    # (dimension, reviewer) → standing entries, oldest first: ("vote" | "adj", Vote)
    standing: dict[tuple[str, str], list[tuple[str, Vote]]] = {}
    first_blind: dict[tuple[str, str], float] = {}
    for r in rows:
        key = (r.dimension, r.reviewer)
        stack = standing.setdefault(key, [])
        if r.kind == "undo" or r.score is None:
            if stack:
                what, _ = stack.pop()
                if what == "vote":
                    first_blind.pop(key, None)
            continue
        what = "adj" if r.kind == "adjudication" else "vote"
        if what == "vote" and r.blind and key not in first_blind:
            first_blind[key] = float(r.score)
        vote = Vote(r.reviewer, float(r.score), r.kind, r.blind, r.pk, r.reason, tuple(r.tags),
                    first_blind.get(key) if what == "vote" else None, r.created_at)
        stack[:] = [e for e in stack if e[0] != what]
        stack.append((what, vote))
    out: dict[str, HumanDim] = {}
    for (dim, who), stack in standing.items():
        hd = out.setdefault(dim, HumanDim())
        for what, vote in stack:
            if what == "vote":
                hd.votes[who] = vote
            elif hd.adjudication is None or vote.pk > hd.adjudication.pk:
                out[dim] = hd = replace(hd, adjudication=vote)
    return out


def scored_by(humans: dict[str, HumanDim]) -> dict[str, set[str]]:
    """Per person, the dimensions they hold a current vote on (``humans``: :func:`fold_human`'s
    result): what coverage counts a review from. A lead's adjudication settles a dimension but is
    not a vote, so it is not a review."""
    out: dict[str, set[str]] = {}
    for dim, hd in humans.items():
        for who in hd.votes:
            out.setdefault(who, set()).add(dim)
    return out


def complete_reviews(rubric: Rubric, humans: dict[str, HumanDim]) -> int:
    """How many people have a complete review of the item: a current vote on every dimension a
    person scores (``review: partial: true``: on any one; :meth:`Rubric.review_complete`). The
    queues serve an item until this reaches the number they ask for."""
    return sum(1 for dims in scored_by(humans).values() if rubric.review_complete(dims))


def with_vote(dim: HumanDim | None, reviewer: str, score: float | None, kind: str = "score") -> HumanDim:
    """``dim`` with ``reviewer``'s vote replaced by ``score`` (None: withdrawn), as if a row had
    been appended; used to show what a score being entered would make of the item."""
    dim = dim or HumanDim()
    votes = {w: v for w, v in dim.votes.items() if w != reviewer}
    if score is not None:
        old = dim.votes.get(reviewer)
        pk = old.pk if old is not None and old.score == score else 1 << 62
        votes[reviewer] = Vote(reviewer, float(score), kind, False, pk,
                               first_blind=old.first_blind if old is not None else None)
    return HumanDim(votes, dim.adjudication)
