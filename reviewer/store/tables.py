"""The store's tables (SQLModel). History tables (``guards.HISTORY`` and
``guards.COMMENTS``, ``guards.REVEALS``, ``guards.PAIR_JUDGMENTS``: scores, flags, decisions, pair
choices, rubric versions, item revisions, item comments, reveals, judges' pair verdicts) are append-only: triggers created by the
migrations refuse UPDATE, DELETE, REPLACE and TRUNCATE on them, on SQLite and PostgreSQL alike.

Primary keys are typed ``int`` (``Field(default=None, primary_key=True)``: the database assigns
them): the store writes rows with Core inserts and never builds a model object without a key,
so every ``pk`` it reads is a number. The DDL is the same as for ``int | None``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Column, Index, LargeBinary, Table, UniqueConstraint
from sqlalchemy import inspect as sa_inspect
from sqlmodel import Field, SQLModel


def now() -> datetime:
    """UTC now, the time every row is stamped with."""
    return datetime.now(UTC)


def table_of(model: type[SQLModel]) -> Table:
    """The Core table behind a table model, for inserts and DDL. (SQLAlchemy sets ``__table__``
    on the class when it maps it; SQLModel does not declare that attribute, so type checkers
    cannot see it — the mapper's ``local_table`` is the same object, typed.)"""
    table = sa_inspect(model).local_table
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__} is not mapped to a table")
    return table


class SchemaMigration(SQLModel, table=True):
    """Named migrations already applied to this database."""

    __tablename__ = "schema_migrations"
    name: str = Field(primary_key=True)
    applied_at: datetime = Field(default_factory=now)


class RubricVersion(SQLModel, table=True):
    """An immutable rubric version: the YAML as registered and its content hash."""

    __tablename__ = "rubric_version"
    __table_args__ = (UniqueConstraint("rubric_id", "version"),)
    pk: int = Field(default=None, primary_key=True)
    rubric_id: str
    version: str
    content_hash: str
    yaml_text: str
    created_at: datetime = Field(default_factory=now)


class Reviewer(SQLModel, table=True):
    """A person who reviews; ``roles`` is a comma list of reviewer, safety, lead."""

    __tablename__ = "reviewer"
    name: str = Field(primary_key=True)
    roles: str = "reviewer"
    #: The person behind the name: their database login (PostgreSQL) or OS user (SQLite).
    login: str | None = None
    created_at: datetime = Field(default_factory=now)


class Item(SQLModel, table=True):
    """One model output to score, with the judge's summary and the queue's lease on it."""

    __tablename__ = "item"
    __table_args__ = (
        UniqueConstraint("rubric_ref", "dataset", "item_id"),
        Index("ix_item_queue", "rubric_ref", "dataset", "pk"),
        Index("ix_item_triage", "triage_key", "pk"),
    )
    pk: int = Field(default=None, primary_key=True)
    item_id: str
    dataset: str = ""
    rubric_ref: str
    content_hash: str
    revision: int = 1
    input: str = ""
    output: str = ""
    context: str = ""
    reference: str = ""
    conversation: Any = Field(default=None, sa_column=Column(JSON))
    grp: str | None = Field(default=None, index=True)
    variant: str | None = None
    meta: Any = Field(default=None, sa_column=Column("metadata", JSON))
    #: Routing priority from calibration (higher first); NULL until computed.
    priority: float | None = None
    #: Known-answer item: ``gold`` holds the expected score per dimension.
    gold: Any = Field(default=None, sa_column=Column(JSON))
    #: ``gold`` is set: the item is served only as a known-answer check, at the queue's gold rate.
    is_gold: bool = False
    judge_overall: float | None = None
    #: The band of the headline score where the rubric names a headline, else of the overall.
    judge_band: str | None = None
    judge_passed: bool | None = None
    #: The judge's score on the rubric's headline dimension, on [0, 1] (REVAL's treatment
    #: parity): the queue list's score where the rubric names a headline; NULL where it names none.
    judge_headline: float | None = None
    #: Judge panels: the largest normalised spread between the models' scores on one dimension.
    judge_spread: float | None = None
    #: The judge against the people: the largest |judge panel − people's score| on one dimension,
    #: normalised (``reviewer.domain.human_gap``); NULL where no dimension has both.
    human_gap: float | None = None
    n_errors: int = 0
    #: The safety cap applies: a flag is open, escalated or confirmed (derived, see ``safety``).
    flagged: bool = False
    #: The item's safety status derived from its flags' decisions by :mod:`reviewer.domain.safety`
    #: (none | open | escalated | confirmed | cleared), kept here for the queues' SQL.
    safety: str = "none"
    n_reviewed: int = 0
    #: The people with a complete review made of labels alone (``reviewer.domain.labels``): what
    #: the audit queue counts, where ``n_reviewed`` also counts reviews given in triage.
    n_labelled: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    #: The triage queue's order in one indexed number (lower first): reviews done, then judge
    #: errors and safety flags, then routing priority. See ``queue.TRIAGE_KEY_SQL``.
    triage_key: float = 0.0
    lease_reviewer: str | None = None
    lease_queue: str | None = None
    lease_until: datetime | None = None
    created_at: datetime = Field(default_factory=now)


class ItemRevision(SQLModel, table=True):
    """What an item looked like before an ``import --update`` changed it."""

    __tablename__ = "item_revision"
    pk: int = Field(default=None, primary_key=True)
    item_pk: int = Field(index=True)
    revision: int
    content_hash: str
    payload: Any = Field(sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=now)


class JudgeRun(SQLModel, table=True):
    """One run of one judge model (or an import of scores made elsewhere)."""

    __tablename__ = "judge_run"
    pk: int = Field(default=None, primary_key=True)
    rubric_ref: str
    model: str | None = None
    params: Any = Field(default=None, sa_column=Column(JSON))
    dataset: str | None = None
    source: str = "judge"
    status: str = "running"
    totals: Any = Field(default=None, sa_column=Column(JSON))
    started_at: datetime = Field(default_factory=now)
    finished_at: datetime | None = None


class JudgeScore(SQLModel, table=True):
    """A judge's score of one dimension of one item, never modified after it is written."""

    __tablename__ = "judge_score"
    __table_args__ = (Index("ix_judge_item_dim", "item_pk", "dimension"),)
    pk: int = Field(default=None, primary_key=True)
    run_pk: int = Field(index=True)
    item_pk: int
    #: The item's content revision (``item.revision``) the score was given on.
    revision: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    dimension: str
    model: str | None = None
    method: str = "llm_judge"
    score: float | None = None
    normalised: float | None = None
    samples: Any = Field(default=None, sa_column=Column(JSON))
    std: float | None = None
    rationale: str = ""
    evidence: Any = Field(default=None, sa_column=Column(JSON))
    confidence: float | None = None
    error: str | None = None
    raw_reply: str | None = None
    prompt_hash: str | None = None
    cost_usd: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    turn: int | None = None
    not_applicable: bool = False
    examples_used: Any = Field(default=None, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=now)
    #: The overall the judge's reply stated itself (the flat reply's ``overall``), never rubricate's own.
    stated_overall: float | None = None


class JudgeCache(SQLModel, table=True):
    """Judge replies by model, prompt hash, parameters and sample index."""

    __tablename__ = "judge_cache"
    key: str = Field(primary_key=True)
    value: Any = Field(sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=now)


class EmbeddingCache(SQLModel, table=True):
    """Embedding vectors by a hash of the model and the text (``emb:`` + sha256): each vector's
    little-endian float32 bytes, read and written a chunk of texts at a time."""

    __tablename__ = "embedding_cache"
    key: str = Field(primary_key=True)
    vector: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class HumanScore(SQLModel, table=True):
    """A person's score, beside the judge's. Append-only; the latest row per (item, dimension,
    reviewer) is current; an undo is a row with ``score`` NULL and kind ``undo``."""

    __tablename__ = "human_score"
    __table_args__ = (Index("ix_human_item_dim", "item_pk", "dimension", "reviewer"),)
    pk: int = Field(default=None, primary_key=True)
    item_pk: int
    #: The item's content revision the score was given on: a score belongs to the text it read.
    revision: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    dimension: str
    reviewer: str
    score: float | None = None
    reason: str | None = None
    tags: Any = Field(default=None, sa_column=Column(JSON))
    blind: bool = False
    #: score | agree | revision | undo | adjudication | import
    kind: str = "score"
    judge_score_pk: int | None = None
    #: The queue sample the score was given in (audit, triage, ...), for unbiased calibration.
    sample: str | None = None
    #: Who wrote the row: the database login (PostgreSQL, set by a trigger) or the OS user.
    actor: str | None = None
    #: ``link`` when written by a session served through a link (``rubricate serve``), else NULL.
    via: str | None = None
    created_at: datetime = Field(default_factory=now)


class SafetyFlag(SQLModel, table=True):
    """A safety gate that fired on an item, with the matched span."""

    __tablename__ = "safety_flag"
    pk: int = Field(default=None, primary_key=True)
    item_pk: int = Field(index=True)
    #: The item's content revision the gate fired on.
    revision: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    run_pk: int | None = None
    gate: str
    detector: str
    start: int = 0
    end: int = 0
    matched: str = ""
    context: str = ""
    severity: str = "high"
    #: Written "open" and never updated: a flag's status is derived from its decisions
    #: (:mod:`reviewer.domain.safety`). Kept for databases that older releases read.
    status: str = "open"
    #: ``link`` when raised by a session served through a link (``rubricate serve``), else NULL.
    via: str | None = None
    created_at: datetime = Field(default_factory=now)


class SafetyDecision(SQLModel, table=True):
    """A safety reviewer's decision on a flag, with the reason. Append-only."""

    __tablename__ = "safety_decision"
    pk: int = Field(default=None, primary_key=True)
    flag_pk: int = Field(index=True)
    reviewer: str
    decision: str
    reason: str
    actor: str | None = None
    #: ``link`` when written by a session served through a link (``rubricate serve``), else NULL.
    via: str | None = None
    created_at: datetime = Field(default_factory=now)


class Assignment(SQLModel, table=True):
    """History of who was served which item in which queue, and how it ended."""

    __tablename__ = "assignment"
    __table_args__ = (Index("ix_assignment_reviewer", "reviewer", "queue", "item_pk"),
                      Index("ix_assignment_item", "item_pk", "state"))
    pk: int = Field(default=None, primary_key=True)
    item_pk: int
    queue: str
    reviewer: str
    #: active | done | skipped | released
    state: str = "active"
    #: The item's content revision when it was served: a finished review of earlier content
    #: does not keep the item from the reviewer once it changes.
    revision: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    created_at: datetime = Field(default_factory=now)
    ended_at: datetime | None = None


class AuditSample(SQLModel, table=True):
    """A seeded uniform random sample of a rubric's items, for unbiased calibration."""

    __tablename__ = "audit_sample"
    __table_args__ = (UniqueConstraint("rubric_ref", "item_pk"),)
    pk: int = Field(default=None, primary_key=True)
    rubric_ref: str
    item_pk: int
    seed: int


class PairChoice(SQLModel, table=True):
    """Which of two items of a group a reviewer judged better (NULL winner: a tie), with an
    optional reason and quick tags. Append-only: the reviewer's current choice on a pair is their
    latest row for it."""

    __tablename__ = "pair_choice"
    pk: int = Field(default=None, primary_key=True)
    grp: str
    rubric_ref: str | None = Field(default=None, index=True)
    reviewer: str
    winner_item_pk: int | None = None
    reason: str | None = None
    #: Quick tags given with the reason (a JSON list; NULL on rows from before they existed).
    tags: Any = Field(default=None, sa_column=Column(JSON))
    #: The two items compared (lower key first). NULL on rows from before groups of more than two
    #: could be cycled through: those belong to the group's first pair (by variant, then key).
    item_a_pk: int | None = None
    item_b_pk: int | None = None
    #: The group's content revision: the sum of its items' revisions when the choice was made
    #: (it grows whenever either side's content changes).
    revision: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    #: ``choice``: made in the review screen; ``import``: a verdict an item file carried.
    kind: str = Field(default="choice", sa_column_kwargs={"server_default": "choice"})
    actor: str | None = None
    #: ``link`` when written by a session served through a link (``rubricate serve``), else NULL.
    via: str | None = None
    created_at: datetime = Field(default_factory=now)


class PairJudgment(SQLModel, table=True):
    """A judge model's verdict on two items shown in this order (``item_a_pk`` first): ``a``,
    ``b`` or ``tie``, with its rationale. Append-only, written by imports (the owner's); the
    model's current verdict on a pair in an order is its latest row for it."""

    __tablename__ = "pair_judgment"
    pk: int = Field(default=None, primary_key=True)
    rubric_ref: str = Field(index=True)
    grp: str
    item_a_pk: int
    item_b_pk: int
    model: str
    winner: str
    rationale: str | None = None
    #: The group's content revision when the verdict was given (as a pair choice's).
    revision: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    created_at: datetime = Field(default_factory=now)


class PersonsText(SQLModel):
    """The columns of a person's signed text on an item (a comment, a corrected answer)."""

    pk: int = Field(default=None, primary_key=True)
    item_pk: int = Field(index=True)
    #: The item's content revision the text was written on.
    revision: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    #: The author (a reviewer name, signed like a score).
    reviewer: str
    text: str
    #: Who wrote the row: the database login (PostgreSQL, set by a trigger) or the OS user.
    actor: str | None = None
    #: ``link`` when written by a session served through a link (``rubricate serve``), else NULL.
    via: str | None = None
    created_at: datetime = Field(default_factory=now)


class ItemComment(PersonsText, table=True):
    """A person's comment on an item, shown to later reviewers (unless blind). Append-only: a
    comment is never edited or removed; a correction is a new comment."""

    __tablename__ = "item_comment"


class ItemReveal(SQLModel, table=True):
    """A person's reveal of the judge on an item in a blind session (``v``): from then on the
    judge's side of that item (this content revision) stays shown to them and their later
    scores on it are not blind. Append-only; signed like a score."""

    __tablename__ = "item_reveal"
    __table_args__ = (Index("ix_item_reveal_item_reviewer", "item_pk", "reviewer"),)
    pk: int = Field(default=None, primary_key=True)
    item_pk: int
    #: The item's content revision whose judge scores were shown.
    revision: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    #: Who saw the judge (a reviewer name, signed like a score).
    reviewer: str
    #: Who wrote the row: the database login (PostgreSQL, set by a trigger) or the OS user.
    actor: str | None = None
    #: ``link`` when written by a session served through a link (``rubricate serve``), else NULL.
    via: str | None = None
    created_at: datetime = Field(default_factory=now)


class QueueSetting(SQLModel, table=True):
    """How a queue serves one rubric's items (``rubric_ref`` ``*``: every rubric without its own)."""

    __tablename__ = "queue_setting"
    __table_args__ = (UniqueConstraint("rubric_ref", "queue"),)
    pk: int = Field(default=None, primary_key=True)
    rubric_ref: str
    queue: str
    #: Distinct reviewers each item needs; never served twice to one reviewer.
    reviewers_per_item: int = 1
    #: Share of claims that serve a known-answer (gold) item the reviewer has not seen.
    gold_rate: float = 0.0
    #: Judge scores stay hidden until the reviewer has scored the dimension.
    blind: bool = False
    updated_at: datetime = Field(default_factory=now)


class ServeLink(SQLModel, table=True):
    """A link to the review app served in a browser (``rubricate serve link``): the person it
    acts for, the SHA-256 of its secret token (the token itself is never stored), its expiry and
    its revocation. Revoking sets ``revoked_at``; a link is never deleted."""

    __tablename__ = "serve_link"
    pk: int = Field(default=None, primary_key=True)
    #: The reviewer name the session runs as.
    name: str = Field(index=True)
    #: Hex SHA-256 of the token.
    token_hash: str = Field(unique=True)
    #: The login that made the link (a lead's).
    created_by: str
    created_at: datetime = Field(default_factory=now)
    expires_at: datetime
    revoked_at: datetime | None = None
    revoked_by: str | None = None


class AlignRun(SQLModel, table=True):
    """One ``rubricate align`` of one dimension: its split, candidates (prompts, dev figures,
    cost), the chosen one and the test figures; written by the owner, like a judge run."""

    __tablename__ = "align_run"
    __table_args__ = (Index("ix_align_run_rubric_dimension", "rubric_ref", "dimension"),)
    pk: int = Field(default=None, primary_key=True)
    rubric_ref: str
    dimension: str
    model: str | None = None
    params: Any = Field(default=None, sa_column=Column(JSON))
    status: str = "running"
    result: Any = Field(default=None, sa_column=Column(JSON))
    #: The rubric version ``--write`` registered from this run, if any.
    written_ref: str | None = None
    started_at: datetime = Field(default_factory=now)
    finished_at: datetime | None = None


class JudgeBatch(SQLModel, table=True):
    """One provider batch of a ``rubricate judge --batch`` run (a run sends one per round, more
    when a round passes the provider's limits): its ids and the status the provider last gave;
    ``stored`` once its output is read into ``judge_batch_answer``. Written by the owner, like a
    judge run."""

    __tablename__ = "judge_batch"
    pk: int = Field(default=None, primary_key=True)
    run_pk: int = Field(index=True)
    round: int
    batch_id: str
    input_file_id: str
    requests: int
    status: str = "validating"
    created_at: datetime = Field(default_factory=now)
    stored_at: datetime | None = None


class JudgeBatchAnswer(SQLModel, table=True):
    """What a batch answered to one request of a run (keyed by the request's judge cache key, its
    ``custom_id``): the reply's body as the provider sent it, or the error it gave instead; both
    empty while the batch runs."""

    __tablename__ = "judge_batch_answer"
    run_pk: int = Field(primary_key=True)
    key: str = Field(primary_key=True)
    batch_pk: int = Field(index=True)
    body: Any = Field(default=None, sa_column=Column(JSON))
    error: str | None = None


class LeadReview(SQLModel, table=True):
    """A lead's verdict on one of a person's scores (``rubricate review --review-of``): ``accept``,
    or ``reject`` with the lead's own score written as an adjudication (``adjudication_pk``) and
    the reason as its note. Append-only and signed like a score: ``reviewer`` is the lead who
    reviewed, ``reviewed`` the person whose score it was; a lead's current verdict on a score is
    their latest row for it."""

    __tablename__ = "lead_review"
    __table_args__ = (Index("ix_lead_review_score", "score_pk"), Index("ix_lead_review_reviewed", "reviewed"))
    pk: int = Field(default=None, primary_key=True)
    #: The ``human_score`` row reviewed.
    score_pk: int
    #: Whose score it is (that row's reviewer).
    reviewed: str
    #: The lead who reviewed it (signed like a score).
    reviewer: str
    #: accept | reject
    verdict: str
    #: A reject: the lead's adjudication written with it (a ``human_score`` row of kind adjudication).
    adjudication_pk: int | None = None
    #: A reject's reason (the adjudication's note too).
    note: str | None = None
    #: Who wrote the row: the database login (PostgreSQL, set by a trigger) or the OS user.
    actor: str | None = None
    #: ``link`` when written by a session served through a link (``rubricate serve``), else NULL.
    via: str | None = None
    created_at: datetime = Field(default_factory=now)


class SpanMark(SQLModel, table=True):
    """A person's mark on a span of an item's text under review, attached to a dimension's reason
    (:mod:`reviewer.domain.marks`): character offsets ``[start, end)`` into that content revision's
    text. Append-only; signed like a score."""

    __tablename__ = "span_mark"
    __table_args__ = (Index("ix_span_mark_item", "item_pk", "revision"),
                      CheckConstraint('start >= 0 AND "end" > start', name="ck_span_mark_span"))
    pk: int = Field(default=None, primary_key=True)
    item_pk: int
    #: The item's content revision whose text the offsets index.
    revision: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    dimension: str
    #: The author (a reviewer name, signed like a score).
    reviewer: str
    start: int
    end: int
    #: The marked text, ``text[start:end]`` of that revision (history outlives the content).
    quote: str
    #: The author's score row on the dimension when the mark was made (NULL: not scored yet).
    score_pk: int | None = None
    #: Who wrote the row: the database login (PostgreSQL, set by a trigger) or the OS user.
    actor: str | None = None
    #: ``link`` when written by a session served through a link (``rubricate serve``), else NULL.
    via: str | None = None
    created_at: datetime = Field(default_factory=now)


class ItemCorrection(PersonsText, table=True):
    """A person's corrected answer: the item's output as it should have been (``e`` on the item
    screen), ``revision`` the content revision whose output it corrects. Append-only: a later
    correction is a new row; signed like a score."""

    __tablename__ = "item_correction"
