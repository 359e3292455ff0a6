"""Engines and schema migrations: SQLite (WAL, busy timeout, immediate transactions) or
PostgreSQL (psycopg 3). Migrations are named steps recorded in ``schema_migrations``, so a
database made by an older release opens in a newer one."""

from __future__ import annotations

import atexit
import os
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, select, text
from sqlmodel import SQLModel, col

from reviewer.errors import UserError
from reviewer.store import tables
from reviewer.store.guards import (
    comment_guards,
    history_guards,
    import_kind_guard,
    mark_guards,
    people_guards,
    reveal_guards,
)
from reviewer.store.team_guards import team_writes, unbound_name_guard

APPEND_ONLY = ("human_score", "safety_decision", "pair_choice")
#: The PostgreSQL advisory lock a migrator holds, so one process at a time migrates a database
#: (any fixed number will do; the application takes no other advisory lock).
MIGRATION_LOCK = 4242

#: Every engine this process made and still holds (see :func:`_dispose_at_exit`).
_ENGINES: weakref.WeakSet[Engine] = weakref.WeakSet()


@atexit.register
def _dispose_at_exit() -> None:
    """Close every engine's pooled connections as the process ends. On SQLite the last
    connection to a database to close copies the write-ahead log into the database file and
    removes it; a log left behind slows every later read. The garbage collector used to close
    them at interpreter exit, but the program now freezes what is left before it exits
    (:func:`reviewer.cli.run`)."""
    for engine in list(_ENGINES):
        engine.dispose()


def resolve_url(db: str) -> str:
    """A SQLAlchemy URL from ``--db``: a URL stays, a plain path means SQLite."""
    if "://" in db:
        if db.startswith("postgresql://") or db.startswith("postgres://"):
            return "postgresql+psycopg://" + db.split("://", 1)[1]
        return db
    path = Path(db).expanduser()
    if path.parent and not path.parent.exists():
        raise UserError(f"{db}: the folder {path.parent} does not exist; create it or pick another --db")
    return f"sqlite:///{path}"


def lock_timeout() -> float:
    """Seconds to wait for a locked SQLite database (or a PostgreSQL connection) before giving up:
    ``$RUBRICATE_DB_TIMEOUT``, default 30."""
    raw = os.environ.get("RUBRICATE_DB_TIMEOUT", "")
    try:
        value = float(raw) if raw else 30.0
    except ValueError:
        raise UserError(f"RUBRICATE_DB_TIMEOUT={raw!r}: give a number of seconds, e.g. 30") from None
    if not 0 < value <= 86400:
        raise UserError(f"RUBRICATE_DB_TIMEOUT={raw!r}: give a number of seconds between 0 and 86400")
    return value


def make_engine(db: str) -> Engine:
    """An engine with the dialect's settings applied on every connection."""
    url = resolve_url(db)
    timeout = lock_timeout()
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": timeout, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            # Transactions are begun by hand (BEGIN IMMEDIATE for read-then-write): pysqlite's
            # own implicit BEGIN would be deferred and produce "database is locked".
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=FULL")
            cur.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        @event.listens_for(engine, "begin")
        def _begin(conn: Connection) -> None:
            conn.exec_driver_sql(conn.info.pop("begin_sql", "BEGIN IMMEDIATE"))
    else:
        engine = create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5,
                               connect_args={"connect_timeout": max(1, int(timeout))})
    _ENGINES.add(engine)
    return engine


def _create_tables(conn: Connection) -> None:
    SQLModel.metadata.create_all(conn)


def _append_only_triggers(conn: Connection, names: tuple[str, ...] = APPEND_ONLY) -> None:
    for table in names:
        if conn.dialect.name == "sqlite":
            for op in ("UPDATE", "DELETE"):
                conn.exec_driver_sql(
                    f"CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: add a new row instead'); END"
                )
        else:
            conn.exec_driver_sql(
                f"CREATE OR REPLACE FUNCTION {table}_append_only() RETURNS trigger AS $$ BEGIN "
                f"RAISE EXCEPTION '{table} is append-only: add a new row instead'; END $$ LANGUAGE plpgsql"
            )
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {table}_no_change ON {table}")
            conn.exec_driver_sql(
                f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION {table}_append_only()"
            )


def _add_column(conn: Connection, table: str, column: str, ddl: str) -> None:
    """``ALTER TABLE … ADD COLUMN`` unless the column is there (made by a newer ``create_all``)."""
    if conn.dialect.name == "sqlite":
        if column not in {r[1] for r in conn.exec_driver_sql(f"PRAGMA table_info({table})")}:
            conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column} {ddl}")
    else:
        conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {ddl}")


def _triage_key(conn: Connection) -> None:
    """Databases made before the triage key get the column, its index and its values."""
    _add_column(conn, "item", "triage_key", "FLOAT NOT NULL DEFAULT 0")
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_item_triage ON item (triage_key, pk)")
    from reviewer.store.queue import TRIAGE_KEY_SQL

    conn.exec_driver_sql(f"UPDATE item SET triage_key = {TRIAGE_KEY_SQL}")


def _queue_settings(conn: Connection) -> None:
    """Per-queue settings (reviewers per item, gold rate, blind) and the item's gold flag."""
    tables.table_of(tables.QueueSetting).create(conn, checkfirst=True)
    _add_column(conn, "item", "is_gold", "BOOLEAN NOT NULL DEFAULT " + ("0" if conn.dialect.name == "sqlite" else "false"))


def _pair_choices(conn: Connection) -> None:
    """Pair choices name their rubric (group keys repeat across rubrics) and join the append-only
    tables: a changed mind is a new row."""
    _add_column(conn, "pair_choice", "rubric_ref", "VARCHAR")
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_pair_choice_rubric_ref ON pair_choice (rubric_ref)")
    _append_only_triggers(conn, ("pair_choice",))


def _judge_spread(conn: Connection) -> None:
    """Judge panels: how far the models disagree on an item (filled as runs are recorded)."""
    _add_column(conn, "item", "judge_spread", "FLOAT")


def _safety_status(conn: Connection) -> None:
    """The item's derived safety status, for the safety queue's SQL. Existing databases take it
    from the flags' old status column (kept up to date by older releases); from here on it is
    derived from the decisions by the domain fold and ``safety_flag.status`` is never updated."""
    _add_column(conn, "item", "safety", "VARCHAR NOT NULL DEFAULT 'none'")
    conn.exec_driver_sql(
        "UPDATE item SET safety = CASE"
        " WHEN EXISTS (SELECT 1 FROM safety_flag f WHERE f.item_pk = item.pk AND f.status = 'open') THEN 'open'"
        " WHEN EXISTS (SELECT 1 FROM safety_flag f WHERE f.item_pk = item.pk AND f.status = 'escalated') THEN 'escalated'"
        " WHEN EXISTS (SELECT 1 FROM safety_flag f WHERE f.item_pk = item.pk AND f.status = 'confirmed') THEN 'confirmed'"
        " WHEN EXISTS (SELECT 1 FROM safety_flag f WHERE f.item_pk = item.pk AND f.status = 'cleared') THEN 'cleared'"
        " ELSE 'none' END")
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_item_safety ON item (safety)")


#: Tables whose rows belong to one content revision of an item (``item.revision``).
REVISIONED = ("judge_score", "human_score", "safety_flag", "pair_choice", "assignment")


def _revisions(conn: Connection) -> None:
    """Scores, flags, pair choices and assignments name the content revision they were given on (rows made
    before this step were made on revision 1: no earlier release wrote any other)."""
    for table in REVISIONED:
        _add_column(conn, table, "revision", "INTEGER NOT NULL DEFAULT 1")


def _coverage(conn: Connection) -> None:
    """Reviews imported before they counted: each item's ``n_reviewed`` from its human scores."""
    from reviewer.store.coverage import recount_all

    recount_all(conn)


def _pair_reason(conn: Connection) -> None:
    """A pair choice names the two items compared (groups of more than two are cycled through,
    a choice per pair) and may carry quick tags beside its reason. Nullable columns added to the
    append-only table; no row is changed (older rows belong to their group's first pair)."""
    _add_column(conn, "pair_choice", "tags", "JSON")
    _add_column(conn, "pair_choice", "item_a_pk", "INTEGER")
    _add_column(conn, "pair_choice", "item_b_pk", "INTEGER")



def _queue_filter_index(conn: Connection) -> None:
    """The queue list's status filter asks, per item, whether a review of it is under way: an
    index on the assignments by item answers that without scanning them all."""
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_assignment_item ON assignment (item_pk, state)")


def _human_gap(conn: Connection) -> None:
    """The judge against the people, per item (the queue list's "judge and people disagree"
    filter): the column, and every scored item's value from its fold (no index: the filter is one
    more condition on a page read in the queue's own order, as the panel's spread is)."""
    _add_column(conn, "item", "human_gap", "FLOAT")
    _grant_like_review_count(conn, "human_gap")
    from reviewer.store.human_gap import backfill_gaps

    backfill_gaps(conn)


def _grant_like_review_count(conn: Connection, column: str) -> None:
    """On PostgreSQL, UPDATE on the item's ``column`` to whoever may update its review count:
    ``db roles`` granted the application role UPDATE on the item's columns it had then, and every
    person's write now sets this one beside the count."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(
            "DO $$ DECLARE r record; BEGIN FOR r IN SELECT DISTINCT grantee FROM information_schema.column_privileges"
            " WHERE table_schema = current_schema() AND table_name = 'item' AND column_name = 'n_reviewed'"
            " AND privilege_type = 'UPDATE' AND grantee <> current_user"
            f" LOOP EXECUTE 'GRANT UPDATE ({column}) ON item TO ' || quote_ident(r.grantee); END LOOP; END $$")


def _labelled(conn: Connection) -> None:
    """The audit queue counts an item's reviews made of labels alone (``item.n_labelled``, kept
    beside ``n_reviewed`` on every write): the column, its grant, and every item's count from its
    labels (:func:`reviewer.store.coverage.recount_all`)."""
    _add_column(conn, "item", "n_labelled", "INTEGER NOT NULL DEFAULT 0")
    _grant_like_review_count(conn, "n_labelled")
    from reviewer.store.coverage import recount_all

    recount_all(conn, labels=True)


def _stated_overall(conn: Connection) -> None:
    """The judge's own overall, when its reply states one (the flat reply carries it beside the
    dimensions): a nullable column of the append-only table, kept apart from the overall
    rubricate computes; no row is changed."""
    _add_column(conn, "judge_score", "stated_overall", "FLOAT")


def _judge_headline(conn: Connection) -> None:
    """The judge's headline score per item (the queue list's score where the rubric names a
    headline): the column, its grant beside the review count's, on PostgreSQL the team's item
    guard made again where ``0010e_team_writes`` made it (it now covers the column beside the
    overall), and every item's value and band from its fold."""
    _add_column(conn, "item", "judge_headline", "FLOAT")
    _grant_like_review_count(conn, "judge_headline")
    if conn.dialect.name == "postgresql" and conn.exec_driver_sql(
            "SELECT to_regproc('rubricate_item_guard')").scalar() is not None:
        from reviewer.store.team_guards import team_writes

        team_writes(conn)
    from reviewer.store.human_gap import backfill_headlines

    backfill_headlines(conn)


def _headline_bands(conn: Connection) -> None:
    """The judge's headline and band again on every item of a headline rubric: ``0012h`` left an
    item without a headline score with the band of its overall, where a judge run writes none."""
    from reviewer.store.human_gap import backfill_headlines

    backfill_headlines(conn)


def _links(conn: Connection) -> None:
    """Links to the served review app, and the ``via`` mark (:func:`reviewer.store.links.link_tables`)."""
    from reviewer.store.links import link_tables

    link_tables(conn)


def _align_runs(conn: Connection) -> None:
    """``rubricate align``'s runs (the owner's, like judge runs: no grant to a person's login)."""
    tables.table_of(tables.AlignRun).create(conn, checkfirst=True)


def _pair_verdicts(conn: Connection) -> None:
    """Pair verdicts an item file carries: a pair choice says whether it was made in the review
    screen or imported (``kind``; every earlier row was made in the screen), and judges' verdicts
    on pairs get their table, append-only like the other history and the owner's to write (on
    PostgreSQL the people's role, granted SELECT by ``db roles`` before the table existed, may
    read it)."""
    from reviewer.store.guards import PAIR_JUDGMENTS, guard_tables

    _add_column(conn, "pair_choice", "kind", "VARCHAR NOT NULL DEFAULT 'choice'")
    tables.table_of(tables.PairJudgment).create(conn, checkfirst=True)
    guard_tables(conn, PAIR_JUDGMENTS)
    unbound_name_guard(conn)
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(
            "DO $$ DECLARE r record; BEGIN FOR r IN SELECT DISTINCT grantee FROM information_schema.table_privileges"
            " WHERE table_schema = current_schema() AND table_name = 'human_score' AND privilege_type = 'INSERT'"
            " AND grantee <> current_user LOOP"
            " EXECUTE 'GRANT SELECT ON pair_judgment TO ' || quote_ident(r.grantee);"
            " END LOOP; END $$")


def _judge_batches(conn: Connection) -> None:
    """``rubricate judge --batch``'s provider batches and their answers (the owner's, like judge
    runs: no grant to a person's login)."""
    tables.table_of(tables.JudgeBatch).create(conn, checkfirst=True)
    tables.table_of(tables.JudgeBatchAnswer).create(conn, checkfirst=True)


def _lead_reviews(conn: Connection) -> None:
    """A lead's reviews of a person's scores (:func:`reviewer.store.lead_reviews.lead_review_guards`)."""
    from reviewer.store.lead_reviews import lead_review_guards

    lead_review_guards(conn)


def _corrections(conn: Connection) -> None:
    """Corrected answers (:func:`reviewer.store.corrections.correction_guards`)."""
    from reviewer.store.corrections import correction_guards

    correction_guards(conn)


def _queue_sort(conn: Connection) -> None:
    """The history panel reads a reviewer's latest rows in a queue's sample, newest first: an
    index on the scores by reviewer, sample and row answers it without scanning every score.
    (The queue list's orders need none: a sorted page of 100k items is one scan,
    ``benchmarks/bench_queue_sort.py``.)"""
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_human_reviewer_sample ON human_score (reviewer, sample, pk)")


def _embedding_cache(conn: Connection) -> None:
    """Embedding vectors get their own table of bytes (:class:`tables.EmbeddingCache`); the ones
    the judge cache held (``emb:`` keys, as base64 or a list of floats) move there."""
    from reviewer.store.vectors import move_judge_cache_vectors

    tables.table_of(tables.EmbeddingCache).create(conn, checkfirst=True)
    move_judge_cache_vectors(conn)


def _queue_sort_indexes(conn: Connection) -> None:
    """The queue list's orders read a page by seeking into an index on the order's value and the
    item key (:mod:`reviewer.store.queue_order`): one for each fixed order, and the table that
    lists the metadata keys' indexes (:mod:`reviewer.store.queue_sort_index`)."""
    for name, value in (("judge", "coalesce(judge_headline, judge_overall)"), ("people", "human_gap"),
                        ("panel", "judge_spread"), ("age", "created_at")):
        conn.exec_driver_sql(f"CREATE INDEX IF NOT EXISTS ix_item_sort_{name} ON item (({value}), pk)")
    # the judge's scores come in few values, each shared by many items: high to low, the index
    # read backwards would give each tie's keys high to low too, and the tie would be sorted whole
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_item_sort_judge_desc ON item "
                         "((coalesce(judge_headline, judge_overall)) DESC, pk)")
    conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS queue_sort_index (name VARCHAR PRIMARY KEY, "
                         "sort_key VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL)")
    if conn.dialect.name == "postgresql":  # a person's login reads which keys have an index
        conn.exec_driver_sql(
            "DO $$ DECLARE r record; BEGIN FOR r IN SELECT DISTINCT grantee FROM information_schema.table_privileges"
            " WHERE table_schema = current_schema() AND table_name = 'human_score' AND privilege_type = 'INSERT'"
            " AND grantee <> current_user LOOP"
            " EXECUTE 'GRANT SELECT ON queue_sort_index TO ' || quote_ident(r.grantee);"
            " END LOOP; END $$")


#: Applied in order, once each. Add new steps at the end; never edit an applied one.
MIGRATIONS: list[tuple[str, Callable[[Connection], None]]] = [
    ("0001_tables", _create_tables),
    ("0002_append_only_triggers", _append_only_triggers),
    ("0003_triage_key", _triage_key),
    ("0004_queue_settings", _queue_settings),
    ("0005_pair_choices", _pair_choices),
    ("0006_judge_spread", _judge_spread),
    ("0007a_safety_status", _safety_status),
    ("0007g_history_guards", history_guards),
    ("0007g_roles", people_guards),
    ("0007b_revisions", _revisions),
    ("0007b_coverage", _coverage),
    ("0008c_comments", comment_guards),
    ("0008p_pair_reason", _pair_reason),
    ("0008p_queue_filter_index", _queue_filter_index),
    ("0009g_human_gap", _human_gap),
    ("0010c_reveals", reveal_guards),
    # (the label count comes before the team's guards, which grant and check it beside n_reviewed)
    ("0010j_labelled", _labelled),
    ("0010e_team_writes", team_writes),
    ("0010i_stated_overall", _stated_overall),
    ("0011s_links", _links),
    ("0011a_align_runs", _align_runs),
    ("0011p_pair_verdicts", _pair_verdicts),
    ("0012h_judge_headline", _judge_headline),
    ("0013b_judge_batches", _judge_batches),
    ("0013v_lead_reviews", _lead_reviews),
    ("0013c_corrections", _corrections),
    ("0013o_queue_sort", _queue_sort),
    ("0013m_span_marks", mark_guards),
    ("0014h_headline_bands", _headline_bands),
    ("0014m_import_kind", import_kind_guard),
    ("0014s_queue_sort", _queue_sort_indexes),
    ("0015e_embedding_cache", _embedding_cache),
]


def migrate(engine: Engine) -> list[str]:
    """Apply the migrations this database has not had yet; returns their names."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":  # one migrator at a time across processes
            conn.execute(text(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})"))
        tables.table_of(tables.SchemaMigration).create(conn, checkfirst=True)
        done = set(conn.execute(select(col(tables.SchemaMigration.name))).scalars())
        applied = []
        for name, step in MIGRATIONS:
            if name in done:
                continue
            step(conn)
            conn.execute(tables.table_of(tables.SchemaMigration).insert().values(name=name))
            applied.append(name)
    return applied
