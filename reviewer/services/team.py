"""How far each person has got in each queue: done, left, pace and last active — the one
computation behind ``rubricate queue progress`` and the TUI's team view.

*Done* counts the person's finished assignments in the queue; *left* is what the queue still
holds for them (the store's ``queue_progress``, the rules the queue serves by). *Pace* is items
per hour over the person's last active stretch in the queue: their finished items going back
from the latest while no two finishes lie more than :data:`IDLE_GAP` apart, timed from when the
stretch's first item was served to when its last was finished. *Last active* is the latest
time they were served or finished an item there. *Accepted* is how many of the person's scores
given in the queue a lead accepted, of those a lead reviewed (``rubricate review --review-of``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from reviewer.services.reports import TeamRow

if TYPE_CHECKING:  # (the store's classes, for their types alone: importing them loads SQLAlchemy)
    from reviewer.store import Store
    from reviewer.store.activity import Stint

#: A longer pause between two finished items ends a stretch of work.
IDLE_GAP = timedelta(minutes=30)


def pace(finished: list[Stint]) -> tuple[float | None, int]:
    """Items per hour over the last stretch of ``finished`` (finished stints, any order), and how
    many items that stretch holds; no pace (None) when the stretch took no measurable time."""
    if not finished:
        return None, 0
    done = sorted(finished, key=lambda s: (s.ended or s.served))
    first = len(done) - 1
    while first > 0 and (done[first].ended or done[first].served) - (done[first - 1].ended or done[first - 1].served) \
            <= IDLE_GAP:
        first -= 1
    stretch = done[first:]
    start = min(s.served for s in stretch)
    end = max((s.ended or s.served) for s in stretch)
    seconds = (end - start).total_seconds()
    return (len(stretch) * 3600 / seconds if seconds > 0 else None), len(stretch)


def accepted_cell(row: TeamRow) -> str:
    """A person's accept rate in a queue as a table shows it: accepted/reviewed, or ``—`` when a
    lead has reviewed none of their scores there."""
    n = row["lead_reviewed"]
    return "—" if not n else f"{row['lead_accepted']}/{n}"


def _when(t: datetime | None) -> str | None:
    return None if t is None else t.replace(microsecond=0).isoformat() + "Z"


def team_progress(store: Store, rubric_ref: str | None = None) -> list[TeamRow]:
    """One row per person and queue, people by name, queues in the store's order: every queue a
    person has been served items in, and the triage and audit queues (when they hold items) for
    everyone registered, so a person who has not started is seen."""
    from reviewer.store.queue_sql import QUEUES

    stints = store.activity.stints(rubric_ref)
    rates = store.lead_reviews.accept_rates(rubric_ref)
    people = sorted({name for name, _, _ in store.roles.reviewers()} | {s.reviewer for s in stints}
                    | {name for name, _ in rates})
    mine: dict[tuple[str, str], list[Stint]] = {}
    for s in stints:
        mine.setdefault((s.reviewer, s.queue), []).append(s)
    # a queue's total is the same whoever asks: nobody's name asks it
    holds = {q: store.queue.queue_progress(q, "", rubric_ref)[0] > 0 for q in QUEUES}
    out: list[TeamRow] = []
    for person in people:
        for queue in QUEUES:
            worked = mine.get((person, queue), [])
            reviewed, accepted = rates.get((person, queue), (0, 0))
            if not worked and not reviewed and (queue == "safety" or not holds[queue]):
                continue
            finished = [s for s in worked if s.state == "done"]
            per_hour, stretch = pace(finished)
            times = [t for s in worked for t in (s.served, s.ended) if t is not None]
            out.append({"reviewer": person, "queue": queue, "done": len(finished),
                        "left": store.queue.queue_progress(queue, person, rubric_ref)[2],
                        "pace_per_hour": None if per_hour is None else round(per_hour, 1),
                        "stretch_items": stretch, "last_active": _when(max(times)) if times else None,
                        "lead_reviewed": reviewed, "lead_accepted": accepted})
    return out
