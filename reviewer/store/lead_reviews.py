"""A lead's review of a person's scores (``rubricate review --review-of NAME``; table
``lead_review``, migration ``0013v_lead_reviews``).

- The walk: the person's current scores (their standing vote on each item's current revision by
  the fold's rule, :func:`reviewer.domain.human.fold_human`: an undo withdraws, an adjudication
  is not a vote; given in a review screen), newest first, a page at a time by key, each with the
  item, the judge panel's score on that revision and this lead's verdict on it so far.
- A verdict is ``accept``, or ``reject`` with a reason and the lead's own score: the score is
  written as the lead's adjudication (the one adjudication path,
  :meth:`reviewer.store.people.Scores.score_in`) with the reason as its note, in the same
  transaction as the review row that names it.
- Review rows are append-only like every history table and signed like a score (``reviewer`` is
  the lead, bound to the acting login; on PostgreSQL ``actor = current_user``, ``via = 'link'``
  through a served link). The database refuses a review by a name without the lead role, of
  one's own score, of a score that is not the reviewed person's, or a reject without the lead's
  adjudication on that item and dimension (an accept names none).
- Accept rates: per person and queue (the queue the score was given in), the scores a lead has
  reviewed and how many of them were accepted, each score counted once by its latest verdict.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple, cast

from sqlalchemy import Connection, func, select
from sqlalchemy.orm import aliased
from sqlmodel import col

from reviewer.domain.human import HumanDim
from reviewer.domain.item import sides
from reviewer.domain.provenance import as_utc
from reviewer.errors import UserError
from reviewer.store.base import inserted_pk
from reviewer.store.db import Db
from reviewer.store.fold import item_rows
from reviewer.store.guards import LEAD_REVIEWS, _holds, _pg, grant_to_scorers, signed_history
from reviewer.store.people import Scores
from reviewer.store.roles import Roles
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.tables import HumanScore, Item, LeadReview, table_of

#: The kinds of score a person gives in the review screens: what a lead reviews.
REVIEWABLE = ("score", "agree", "revision")
VERDICTS = ("accept", "reject")
#: The most of an item's input one walk row carries (the rest is counted, and shown on the item).
INPUT_CHARS = 600
#: The most of an item's output one walk row carries (the rest is counted, and shown on the item).
OUTPUT_CHARS = 4000
#: The longest page the walk reads at once.
MAX_PAGE = 500


#: A walk candidate's columns: score key, item key, item id, rubric, dimension, score, reason, queue,
#: when, input's head and length, output's head and length, the item's revision.
_Candidate = tuple[int, int, str, str, str, float | None, str | None, str | None, datetime, str | None, int | None,
                   str | None, int | None, int]


class ReviewedScore(NamedTuple):
    """One of the person's scores as the lead reviews it."""

    score_pk: int
    item_pk: int
    item_id: str
    rubric_ref: str
    dimension: str
    score: float
    reason: str | None
    #: The queue the score was given in.
    sample: str | None
    created_at: datetime
    #: The item's input, its first :data:`INPUT_CHARS` characters; ``input_chars`` its length.
    input: str
    input_chars: int
    #: The item's output, its first :data:`OUTPUT_CHARS` characters; ``output_chars`` its length.
    output: str
    output_chars: int
    #: The judge panel's score of the dimension on the item's current revision (the fold's panel).
    judge: float | None
    scale_min: float
    scale_max: float
    #: This lead's latest verdict on the score (None: not reviewed yet), its note and, for a
    #: reject, the lead's own score.
    verdict: str | None = None
    note: str | None = None
    lead_score: float | None = None


class LeadReviews:
    """Walking a person's scores, a lead's verdicts on them, and the accept rates."""

    def __init__(self, db: Db, rubrics: Rubrics, roles: Roles, scores: Scores) -> None:
        self.db = db
        self.rubrics = rubrics
        self.roles = roles
        self.scores = scores

    def walk(self, reviewed: str, lead: str, queue: str | None = None, since: datetime | None = None,
             before: int | None = None, limit: int = 50) -> list[ReviewedScore]:
        """A page of ``reviewed``'s current scores, newest first: those given in ``queue`` (any
        without), at or after ``since``, with keys below ``before`` (the last page's last key),
        at most ``limit``; each with ``lead``'s verdict so far."""
        if not 0 < limit <= MAX_PAGE:
            raise UserError(f"a page of the walk holds 1 to {MAX_PAGE} scores, not {limit}")
        h = aliased(HumanScore)
        # candidates: the person's scores on each item's current revision; the fold decides which stand
        q = (select(col(h.pk), col(h.item_pk), col(Item.item_id), col(Item.rubric_ref), col(h.dimension), col(h.score), col(h.reason), col(h.sample),
                    col(h.created_at), func.substr(col(Item.input), 1, INPUT_CHARS), func.length(col(Item.input)),
                    func.substr(col(Item.output), 1, OUTPUT_CHARS), func.length(col(Item.output)), col(Item.revision))
             .join(Item, col(Item.pk) == col(h.item_pk))
             .where(col(h.reviewer) == reviewed, col(h.kind).in_(REVIEWABLE), col(h.score).is_not(None),
                    col(h.revision) == col(Item.revision)))
        if queue is not None:
            q = q.where(col(h.sample) == queue)
        if since is not None:
            q = q.where(col(h.created_at) >= since)
        panels: dict[tuple[int, str], float | None] = {}
        with self.db.read() as conn:
            rows: list[_Candidate] = []
            below = before
            while len(rows) < limit:  # (a page of candidates may hold scores that no longer stand)
                got = conn.execute((q.where(col(h.pk) < below) if below is not None else q)
                                   .order_by(col(h.pk).desc()).limit(limit)).all()
                if not got:
                    break
                below = int(got[-1][0])
                folded = item_rows(conn, sorted({(int(r[1]), int(r[13] or 1)) for r in got}), flags=False)
                for r in got:
                    humans, judges = sides(self.rubrics.get_rubric(r[3]), folded[int(r[1])])
                    vote = humans.get(r[4], HumanDim()).votes.get(reviewed)
                    if vote is not None and vote.pk == int(r[0]) and len(rows) < limit:
                        rows.append(cast(_Candidate, tuple(r)))
                        panels[(int(r[1]), str(r[4]))] = judges[r[4]].panel if r[4] in judges else None
            verdicts = _verdicts(conn, [int(r[0]) for r in rows], lead)
        out = []
        for pk, item_pk, item_id, ref, dim, score, reason, sample, at, inp, inp_n, output, n, _rev in rows:
            js = panels[(int(item_pk), str(dim))]
            scale = self.rubrics.get_rubric(ref).dimension(dim).scale
            verdict, note, lead_score = verdicts.get(int(pk), (None, None, None))
            if score is None:  # (the query reads scored rows only)
                raise ValueError(f"score {pk} has no value")
            out.append(ReviewedScore(int(pk), int(item_pk), str(item_id), str(ref), str(dim), float(score), reason,
                                     sample, as_utc(at), inp or "", int(inp_n or 0), output or "", int(n or 0),
                                     None if js is None else float(js), scale.min, scale.max, verdict, note, lead_score))
        return out

    def accept(self, score_pk: int, lead: str) -> int:
        """``lead`` accepts the score (durable when this returns); the review's key."""
        with self.db.write() as conn:
            signed = self.roles.sign(conn, lead, "lead")
            reviewed = self._reviewable(conn, score_pk, lead)
            return inserted_pk(conn.execute(table_of(LeadReview).insert().values(
                score_pk=score_pk, reviewed=reviewed, reviewer=lead, verdict="accept", **signed)))

    def reject(self, score_pk: int, lead: str, value: float, note: str) -> tuple[int, int]:
        """``lead`` rejects the score with ``note``, giving ``value`` as their own score: the
        adjudication and the review, in one transaction; their keys."""
        note = note.strip()
        if not note:
            raise UserError("a reject needs a reason: say what is wrong with the score")
        with self.db.write() as conn:
            signed = self.roles.sign(conn, lead, "lead")
            reviewed = self._reviewable(conn, score_pk, lead)
            item_pk, dimension = conn.execute(select(col(HumanScore.item_pk), col(HumanScore.dimension))
                                              .where(col(HumanScore.pk) == score_pk)).one()
            adjudication = self.scores.score_in(conn, int(item_pk), str(dimension), lead, value, reason=note,
                                                kind="adjudication")
            review = inserted_pk(conn.execute(table_of(LeadReview).insert().values(
                score_pk=score_pk, reviewed=reviewed, reviewer=lead, verdict="reject", adjudication_pk=adjudication,
                note=note, **signed)))
            return adjudication, review

    def _reviewable(self, conn: Connection, score_pk: int, lead: str) -> str:
        """Whose score ``score_pk`` is; refused in one line when it is no person's score or ``lead``'s own."""
        row = conn.execute(select(col(HumanScore.reviewer), col(HumanScore.kind), col(HumanScore.score))
                           .where(col(HumanScore.pk) == score_pk)).first()
        if row is None or row[1] not in REVIEWABLE or row[2] is None:
            raise UserError(f"no score with key {score_pk} to review")
        if row[0] == lead:
            raise UserError(f"{lead}: a lead does not review their own scores")
        return str(row[0])

    def accept_rates(self, rubric_ref: str | None = None) -> dict[tuple[str, str], tuple[int, int]]:
        """Per (person, queue the score was given in): the person's scores a lead has reviewed
        and how many of them were accepted, each score by its latest verdict (any lead's). A score
        given in no queue (``sample`` NULL) has no queue to count under and is left out."""
        q = (select(col(LeadReview.score_pk), col(LeadReview.verdict), col(HumanScore.reviewer), col(HumanScore.sample))
             .join(HumanScore, col(HumanScore.pk) == col(LeadReview.score_pk))
             .where(col(HumanScore.sample).is_not(None)))
        if rubric_ref:
            q = q.join(Item, col(Item.pk) == col(HumanScore.item_pk)).where(
                col(Item.rubric_ref) == self.rubrics.get_rubric(rubric_ref).ref)
        latest: dict[int, tuple[str, str, str]] = {}
        with self.db.read() as conn:
            for pk, verdict, who, sample in conn.execute(q.order_by(col(LeadReview.pk))):
                latest[int(pk)] = (str(who), str(sample), str(verdict))
        out: dict[tuple[str, str], tuple[int, int]] = {}
        for who, sample, verdict in latest.values():
            n, accepted = out.get((who, sample), (0, 0))
            out[(who, sample)] = (n + 1, accepted + (verdict == "accept"))
        return out


def _verdicts(conn: Connection, score_pks: list[int], lead: str) -> dict[int, tuple[str, str | None, float | None]]:
    """``lead``'s latest verdict on each score: (verdict, note, the lead's own score on a reject)."""
    if not score_pks:
        return {}
    adj = aliased(HumanScore)
    q = (select(col(LeadReview.score_pk), col(LeadReview.verdict), col(LeadReview.note), col(adj.score))
         .outerjoin(adj, col(adj.pk) == col(LeadReview.adjudication_pk))
         .where(col(LeadReview.score_pk).in_(score_pks), col(LeadReview.reviewer) == lead)
         .order_by(col(LeadReview.pk)))
    return {int(pk): (str(v), note, None if s is None else float(s)) for pk, v, note, s in conn.execute(q)}


_NOT_LEAD = "a lead review needs a reviewer with the lead role"
_OWN = "a lead does not review their own scores"
_NOT_THEIRS = "a lead review names a score of the reviewed person"
_BAD_VERDICT = "a lead review is accept (no adjudication) or reject (with the lead''s adjudication on that item and dimension)"

_PG_CHECK = r"""
CREATE OR REPLACE FUNCTION rubricate_lead_review_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT rubricate_holds(NEW.reviewer, 'lead') THEN
    RAISE EXCEPTION '{not_lead} (% does not hold it)', NEW.reviewer;
  END IF;
  IF NEW.reviewer = NEW.reviewed THEN
    RAISE EXCEPTION '{own}';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM human_score WHERE pk = NEW.score_pk AND reviewer = NEW.reviewed) THEN
    RAISE EXCEPTION '{not_theirs}';
  END IF;
  IF NOT {verdict_ok} THEN
    RAISE EXCEPTION '{bad_verdict}';
  END IF;
  RETURN NEW;
END $$
"""


def _verdict_ok(new: str) -> str:
    """The SQL condition a review's verdict and adjudication meet (``new``: the row's prefix)."""
    return (f"(({new}verdict = 'accept' AND {new}adjudication_pk IS NULL) OR ({new}verdict = 'reject' "
            f"AND EXISTS (SELECT 1 FROM human_score a JOIN human_score s ON s.pk = {new}score_pk "
            f"WHERE a.pk = {new}adjudication_pk AND a.kind = 'adjudication' AND a.reviewer = {new}reviewer "
            "AND a.item_pk = s.item_pk AND a.dimension = s.dimension)))")


def lead_review_guards(conn: Connection) -> None:
    """``0013v_lead_reviews``: the table (for databases made before it), append-only and signed
    like a score, the checks of the module docstring; on PostgreSQL the people who may write
    scores (granted INSERT on ``human_score`` by ``db roles``) may write reviews too (the lead
    role is the database's check), without running ``db roles`` again."""
    table_of(LeadReview).create(conn, checkfirst=True)
    signed_history(conn, LEAD_REVIEWS)
    if conn.dialect.name == "sqlite":
        checks = {"lead": (f"NOT {_holds('NEW.reviewer', 'lead')}", _NOT_LEAD), "own": ("NEW.reviewer = NEW.reviewed", _OWN),
                  "theirs": ("NOT EXISTS (SELECT 1 FROM human_score WHERE pk = NEW.score_pk AND reviewer = NEW.reviewed)",
                             _NOT_THEIRS),
                  "verdict": (f"NOT {_verdict_ok('NEW.')}", _BAD_VERDICT)}
        for name, (when, msg) in checks.items():
            conn.exec_driver_sql(f"CREATE TRIGGER IF NOT EXISTS lead_review_{name} BEFORE INSERT ON lead_review "
                                 f"WHEN {when} BEGIN SELECT RAISE(ABORT, '{msg}'); END")
        return
    if conn.exec_driver_sql("SELECT to_regproc('rubricate_holds')").scalar() is None:
        return  # (only where ``0007g_roles`` was left out, as the guard tests build a database)
    _pg(conn, _PG_CHECK.replace("{not_lead}", _NOT_LEAD).replace("{own}", _OWN).replace("{not_theirs}", _NOT_THEIRS)
        .replace("{verdict_ok}", _verdict_ok("NEW.")).replace("{bad_verdict}", _BAD_VERDICT))
    conn.exec_driver_sql("DROP TRIGGER IF EXISTS lead_review_checked ON lead_review")
    conn.exec_driver_sql("CREATE TRIGGER lead_review_checked BEFORE INSERT ON lead_review "
                         "FOR EACH ROW EXECUTE FUNCTION rubricate_lead_review_check()")
    grant_to_scorers(conn, "lead_review")
