"""Where an item's human scores and comments came from, as plain records for export and
``rubricate queue show``: per score its reviewer, kind, reason, tags, time, whether it was given
blind, and the content revision it belongs to (and whether that is the item's current one).

Scores of earlier revisions are folded per revision by the same rule as the current ones
(:func:`reviewer.domain.human.fold_human`): what each person's standing score was on that text.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from reviewer.domain.comments import Comment
from reviewer.domain.corrections import Correction
from reviewer.domain.human import Vote, fold_human
from reviewer.domain.item import ItemFold


def as_utc(at: datetime) -> datetime:
    """A stored time in UTC, with its zone (a time stored without a zone is UTC: the store stamps
    every row in UTC; SQLite hands it back without one, PostgreSQL with one)."""
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def iso(at: datetime | None) -> str | None:
    """A stored time as ISO 8601 in UTC (:func:`as_utc`)."""
    return None if at is None else as_utc(at).isoformat()


def _record(v: Vote, revision: int, current: int) -> dict[str, Any]:
    return {"reviewer": v.reviewer, "score": v.score, "kind": v.kind, "reason": v.reason, "tags": list(v.tags),
            "created_at": iso(v.created_at), "blind": v.blind, "blind_score": v.first_blind,
            "revision": revision, "current_revision": revision == current}


def human_records(fold: ItemFold, dimension: str) -> list[dict[str, Any]]:
    """The standing human scores on one dimension: the current revision's (each reviewer's vote,
    then a lead's adjudication), then each earlier revision's, newest revision first."""
    out: list[dict[str, Any]] = []
    f = fold.dims.get(dimension)
    if f is not None:
        out += [_record(v, fold.revision, fold.revision) for _, v in sorted(f.human.votes.items())]
        if f.human.adjudication is not None:
            out.append(_record(f.human.adjudication, fold.revision, fold.revision))
    rows = fold.rows.human if fold.rows is not None else []
    for rev in sorted({r.revision for r in rows if r.dimension == dimension and r.revision != fold.revision},
                      reverse=True):
        dim = fold_human(r for r in rows if r.revision == rev and r.dimension == dimension).get(dimension)
        if dim is None:
            continue
        out += [_record(v, rev, fold.revision) for _, v in sorted(dim.votes.items())]
        if dim.adjudication is not None:
            out.append(_record(dim.adjudication, rev, fold.revision))
    return out


def comment_records(comments: Iterable[Comment], current: int) -> list[dict[str, Any]]:
    """An item's comments, oldest first: author, time, text, and the revision each was written on."""
    return [{"author": c.reviewer, "created_at": iso(c.created_at), "text": c.text, "revision": c.revision,
             "current_revision": c.revision == current} for c in comments]


def correction_records(corrections: Iterable[Correction], current: int) -> list[dict[str, Any]]:
    """An item's corrected answers, oldest first: author, time, the revision each corrects (and
    whether that is the item's current one), and the text."""
    return [{"author": c.reviewer, "created_at": iso(c.created_at), "revision": c.revision,
             "current_revision": c.revision == current, "text": c.text} for c in corrections]
