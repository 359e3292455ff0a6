"""History guarded by the database, and who may sign what (migrations ``0007g_*``).

History tables take new rows only. On SQLite triggers refuse UPDATE and DELETE, and a BEFORE
INSERT trigger refuses a row whose key (or unique key) is already there — which is what stops
``INSERT OR REPLACE``: SQLite deletes the old row of a REPLACE without firing DELETE triggers
(unless ``recursive_triggers`` is on), but the BEFORE INSERT trigger runs first and aborts the
statement. On PostgreSQL row triggers refuse UPDATE and DELETE (an ``ON CONFLICT DO UPDATE`` is
an UPDATE) and a statement trigger refuses TRUNCATE; :mod:`reviewer.store.team_guards` gives the
application role that owns nothing and what its logins may write.

People: reviewer names follow :func:`reviewer.domain.itemlimits.name_problem` (non-empty, no control or
invisible characters, no edge spaces); an adjudication needs a reviewer with
the lead role and a safety decision one with the safety role, on both databases. On PostgreSQL
the database also binds a reviewer name to its database login: a login other than the tables'
owner signs only with names bound to it (``reviewer.login = current_user``), every signed row
records ``actor = current_user``, and only a lead's login grants or removes roles. On SQLite the
store does the same with the OS user (it cannot be checked inside the file, whose owner can
change anything: see README, "Security model").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache

from sqlalchemy import Connection

from reviewer.domain.itemlimits import _CONTROL, MAX_NAME_CHARS

#: Tables whose rows are never changed or removed once written (guarded by ``0007g_history_guards``).
HISTORY = ("human_score", "judge_score", "safety_flag", "safety_decision", "pair_choice",
           "rubric_version", "item_revision")
#: History tables added later, each guarded by its own migration the same way (``0008c_comments``).
COMMENTS = ("item_comment",)
#: Reveals of the judge in a blind session (``0010c_reveals``).
REVEALS = ("item_reveal",)
#: Judges' verdicts on pairs (``0011p_pair_verdicts``).
PAIR_JUDGMENTS = ("pair_judgment",)
#: A lead's reviews of a person's scores (``0013v_lead_reviews``).
LEAD_REVIEWS = ("lead_review",)
#: Corrected answers (``0013c_corrections``).
CORRECTIONS = ("item_correction",)
#: Span marks (``0013m_span_marks``).
MARKS = ("span_mark",)
#: Every history table.
ALL_HISTORY = HISTORY + COMMENTS + REVEALS + PAIR_JUDGMENTS + LEAD_REVIEWS + CORRECTIONS + MARKS
#: Unique keys besides ``pk`` that a REPLACE could use to delete a row.
_UNIQUE = {"rubric_version": ("rubric_id", "version")}
#: Tables whose rows are signed by a reviewer name.
SIGNED = ("human_score", "safety_decision", "pair_choice")

@cache
def _bad_ranges() -> tuple[tuple[int, int], ...]:
    """The code point ranges a name may not hold: those of :mod:`reviewer.domain.itemlimits`' rule."""
    bad = [c for c in range(1, 0x10000) if _CONTROL.match(chr(c))]
    ranges: list[tuple[int, int]] = []
    for c in bad:
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1] = (ranges[-1][0], c)
        else:
            ranges.append((c, c))
    return tuple(ranges)


def _sqlite_bad_name(col: str) -> str:
    chars = ",".join(str(c) for lo, hi in _bad_ranges() for c in range(lo, hi + 1))
    return (f"({col} IS NULL OR trim({col}) = '' OR trim({col}) <> {col}"
            f" OR length({col}) > {MAX_NAME_CHARS} OR {col} GLOB '*[' || char({chars}) || ']*')")


def _pg_bad_class() -> str:
    return "".join(f"\\u{lo:04x}" + (f"-\\u{hi:04x}" if hi > lo else "") for lo, hi in _bad_ranges())


def _pg(conn: Connection, sql: str) -> None:
    """A PostgreSQL statement holding ``%`` (psycopg reads a lone ``%`` as a placeholder)."""
    conn.exec_driver_sql(sql.replace("%", "%%"))


def history_guards(conn: Connection) -> None:
    """Refuse UPDATE, DELETE, REPLACE/key reuse (SQLite) and TRUNCATE (PostgreSQL) on history."""
    guard_tables(conn, HISTORY)
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(
            "CREATE TRIGGER IF NOT EXISTS safety_flag_opens_open BEFORE INSERT ON safety_flag "
            "WHEN NEW.status <> 'open' BEGIN SELECT RAISE(ABORT, "
            "'a safety flag opens as open: its status comes from safety decisions'); END")
        return
    conn.exec_driver_sql(
        "CREATE OR REPLACE FUNCTION rubricate_flag_opens_open() RETURNS trigger AS $$ BEGIN "
        "IF NEW.status <> 'open' THEN RAISE EXCEPTION "
        "'a safety flag opens as open: its status comes from safety decisions'; END IF; "
        "RETURN NEW; END $$ LANGUAGE plpgsql")
    conn.exec_driver_sql("DROP TRIGGER IF EXISTS safety_flag_opens_open ON safety_flag")
    conn.exec_driver_sql("CREATE TRIGGER safety_flag_opens_open BEFORE INSERT ON safety_flag "
                         "FOR EACH ROW EXECUTE FUNCTION rubricate_flag_opens_open()")


def guard_tables(conn: Connection, tables: tuple[str, ...]) -> None:
    """The append-only guards on ``tables``: UPDATE, DELETE and REPLACE/key reuse refused on
    SQLite; UPDATE, DELETE (``ON CONFLICT DO UPDATE`` included) and TRUNCATE on PostgreSQL."""
    if conn.dialect.name == "sqlite":
        for t in tables:
            msg = f"{t} is append-only: add a new row instead"
            for op in ("UPDATE", "DELETE"):
                conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {t}_no_{op.lower()}")
                conn.exec_driver_sql(f"CREATE TRIGGER {t}_no_{op.lower()} BEFORE {op} ON {t} "
                                     f"BEGIN SELECT RAISE(ABORT, '{msg}'); END")
            taken = f"EXISTS (SELECT 1 FROM {t} WHERE pk = NEW.pk)"
            if t in _UNIQUE:
                taken += (f" OR EXISTS (SELECT 1 FROM {t} WHERE "
                          + " AND ".join(f"{c} = NEW.{c}" for c in _UNIQUE[t]) + ")")
            conn.exec_driver_sql(
                f"CREATE TRIGGER IF NOT EXISTS {t}_no_replace BEFORE INSERT ON {t} WHEN {taken} "
                f"BEGIN SELECT RAISE(ABORT, '{t} is append-only: that row exists; add a new row instead'); END")
        return
    _pg(conn,
        "CREATE OR REPLACE FUNCTION rubricate_history_guard() RETURNS trigger AS $$ BEGIN "
        "RAISE EXCEPTION '% is append-only: add a new row instead (% refused)', TG_TABLE_NAME, TG_OP; "
        "END $$ LANGUAGE plpgsql")
    for t in tables:
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {t}_no_change ON {t}")
        conn.exec_driver_sql(f"CREATE TRIGGER {t}_no_change BEFORE UPDATE OR DELETE ON {t} "
                             "FOR EACH ROW EXECUTE FUNCTION rubricate_history_guard()")
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {t}_no_truncate ON {t}")
        conn.exec_driver_sql(f"CREATE TRIGGER {t}_no_truncate BEFORE TRUNCATE ON {t} "
                             "FOR EACH STATEMENT EXECUTE FUNCTION rubricate_history_guard()")


def comment_guards(conn: Connection) -> None:
    """``0008c_comments``: the comment table (for databases made before it), append-only like the
    other history, and signed like a score (:func:`signed_history`)."""
    from reviewer.store.tables import ItemComment, table_of

    table_of(ItemComment).create(conn, checkfirst=True)
    signed_history(conn, COMMENTS)


def reveal_guards(conn: Connection) -> None:
    """``0010c_reveals``: the reveal table, append-only and signed like a comment; on PostgreSQL
    the people who may write scores (granted INSERT on ``human_score`` by ``db roles``) may
    write reveals too, without running ``db roles`` again."""
    from reviewer.store.tables import ItemReveal, table_of

    table_of(ItemReveal).create(conn, checkfirst=True)
    signed_history(conn, REVEALS)
    grant_to_scorers(conn, "item_reveal")


def grant_to_scorers(conn: Connection, table: str) -> None:
    """PostgreSQL: SELECT and INSERT on a person's new history ``table`` (and its key's sequence)
    to whoever ``db roles`` granted INSERT on ``human_score``, without running it again."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(
            "DO $$ DECLARE r record; BEGIN FOR r IN SELECT DISTINCT grantee FROM information_schema.table_privileges"
            " WHERE table_schema = current_schema() AND table_name = 'human_score' AND privilege_type = 'INSERT'"
            " AND grantee <> current_user LOOP"
            f" EXECUTE 'GRANT SELECT, INSERT ON {table} TO ' || quote_ident(r.grantee);"
            f" EXECUTE 'GRANT USAGE, SELECT ON SEQUENCE {table}_pk_seq TO ' || quote_ident(r.grantee);"
            " END LOOP; END $$")


def mark_guards(conn: Connection) -> None:
    """``0013m_span_marks``: the span mark table, append-only and signed like a comment; on
    PostgreSQL whoever may write scores (granted INSERT on ``human_score`` by ``db roles``) may
    write marks too, without running ``db roles`` again."""
    from reviewer.store.tables import SpanMark, table_of

    table_of(SpanMark).create(conn, checkfirst=True)
    signed_history(conn, MARKS)
    grant_to_scorers(conn, "span_mark")


def signed_history(conn: Connection, tables: tuple[str, ...]) -> None:
    """``tables`` append-only like the other history (:func:`guard_tables`) and signed like a
    score: a printable reviewer name; on PostgreSQL the name bound to the login and
    ``actor = current_user`` (the ``0007g_roles`` function)."""
    guard_tables(conn, tables)
    for t in tables:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql(f"CREATE TRIGGER IF NOT EXISTS {t}_printable_name BEFORE INSERT ON {t} "
                                 f"WHEN {_sqlite_bad_name('NEW.reviewer')} BEGIN SELECT RAISE(ABORT, '{_BAD_NAME}'); END")
        elif conn.exec_driver_sql("SELECT to_regproc('rubricate_signed')").scalar() is not None:
            # (absent only where ``0007g_roles`` was left out, as the guard tests build a database)
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {t}_signed ON {t}")
            conn.exec_driver_sql(f"CREATE TRIGGER {t}_signed BEFORE INSERT ON {t} "
                                 "FOR EACH ROW EXECUTE FUNCTION rubricate_signed()")


#: SQLite's per-row insert guards a large import checks as a set instead (:func:`set_checked_inserts`).
_SET_CHECKED = ("human_score_no_replace", "judge_score_no_replace", "human_score_printable_name",
                "human_score_adjudication_lead")
_BAD_NAME = "a reviewer name must be non-empty and printable, without surrounding spaces (at most 100 characters)"
_NO_LEAD = "an adjudication needs a reviewer with the lead role"


def _holds(col: str, role: str) -> str:
    """SQLite: whether the reviewer named by ``col`` holds ``role``."""
    return (f"EXISTS (SELECT 1 FROM reviewer r WHERE r.name = {col} "
            f"AND (',' || r.roles || ',') LIKE '%,{role},%')")


class BulkGuardError(Exception):
    """Rows written while the per-row guards were lifted fail one of their conditions."""


class SetCheck:
    """The set check of :func:`set_checked_inserts`: :meth:`__call__` checks the ``human_score``
    rows written since its last call (a caller writing in batches checks each as it goes, while
    the file is still being read, rather than every row at the end); the block's end checks the
    rest."""

    def __init__(self, conn: Connection, lifted: set[str]) -> None:
        self.conn, self.lifted = conn, lifted
        self.since = conn.exec_driver_sql("SELECT coalesce(max(pk), 0) FROM human_score").scalar() or 0

    def __call__(self) -> None:
        if not self.lifted & {"human_score_printable_name", "human_score_adjudication_lead"}:
            return
        upto = self.conn.exec_driver_sql("SELECT coalesce(max(pk), 0) FROM human_score").scalar() or 0
        if upto <= self.since:
            return
        # one pass over the new rows: each distinct (name, adjudication?) pair against both conditions
        # (the lifted trigger's); which one failed is asked again only when one did
        pairs = (f"SELECT DISTINCT reviewer, kind = 'adjudication' AS adj FROM human_score "
                 f"WHERE pk > {int(self.since)} AND pk <= {int(upto)}")
        conds = {_BAD_NAME: _sqlite_bad_name("reviewer"), _NO_LEAD: f"adj AND NOT {_holds('reviewer', 'lead')}"}
        if "human_score_printable_name" not in self.lifted:
            del conds[_BAD_NAME]
        if "human_score_adjudication_lead" not in self.lifted:
            del conds[_NO_LEAD]
        either = " OR ".join(f"({c})" for c in conds.values())
        if self.conn.exec_driver_sql(f"SELECT 1 FROM ({pairs}) WHERE {either} LIMIT 1").first() is not None:
            for message, cond in conds.items():
                if self.conn.exec_driver_sql(f"SELECT 1 FROM ({pairs}) WHERE {cond} LIMIT 1").first() is not None:
                    raise BulkGuardError(message)
        self.since = upto


@contextmanager
def set_checked_inserts(conn: Connection) -> Iterator[Callable[[], None]]:
    """For one large import into SQLite, inside the caller's write transaction: the per-row
    BEFORE INSERT guards of ``human_score`` and ``judge_score`` (:data:`_SET_CHECKED`) are lifted
    while the rows go in with plain INSERTs that name no key, then the rows written are checked
    as a set against the same conditions (a bad reviewer name, an adjudication without the
    lead role: :class:`BulkGuardError`) — those written so far each time the function yielded is
    called, and the rest when the block ends — and the triggers are put back with their stored
    SQL before the transaction can commit. Nothing else sees the gap: the transaction holds the
    write lock, and a rollback or crash restores the triggers with the rest. UPDATE and DELETE
    guards stay in force throughout. PostgreSQL: nothing lifted (the function checks nothing)."""
    if conn.dialect.name != "sqlite":
        yield _nothing
        return
    names = _SET_CHECKED
    saved = conn.exec_driver_sql(
        f"SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN ({', '.join('?' * len(names))})",
        names).all()
    check = SetCheck(conn, {name for name, _ in saved})
    for name, _ in saved:
        conn.exec_driver_sql(f"DROP TRIGGER {name}")
    try:
        yield check
        check()
    finally:
        have = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        for name, sql in saved:
            if name not in have:
                conn.exec_driver_sql(sql)


def _nothing() -> None:
    return None


def _add(conn: Connection, table: str, column: str) -> None:
    if conn.dialect.name == "sqlite":
        if column not in {r[1] for r in conn.exec_driver_sql(f"PRAGMA table_info({table})")}:
            conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column} VARCHAR")
    else:
        conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} VARCHAR")


def people_guards(conn: Connection) -> None:
    """Logins and actors; names, adjudication and safety roles checked by the database; on
    PostgreSQL the login binding and lead-only grants."""
    _add(conn, "reviewer", "login")
    conn.exec_driver_sql("UPDATE reviewer SET login = name WHERE login IS NULL")
    for t in SIGNED:
        _add(conn, t, "actor")
    if conn.dialect.name == "sqlite":
        _sqlite_people(conn)
    else:
        _pg_people(conn)


def import_kind_guard(conn: Connection) -> None:
    """``0014m_import_kind``: ``rubricate_signed`` made again as :data:`_PG_PEOPLE` now reads it,
    where a human score or a pair choice of kind ``import`` is an import's (the owner's login or
    a lead's), never a person's own login's; with the links of ``0011s_links`` where it extends
    the function. SQLite: nothing (who writes its file is decided by the file's permissions)."""
    if conn.dialect.name != "postgresql" or conn.exec_driver_sql(
            "SELECT to_regproc('rubricate_signed')").scalar() is None:
        return
    if conn.exec_driver_sql("SELECT to_regproc('rubricate_link_for')").scalar() is not None:
        from reviewer.store.links import link_functions

        link_functions(conn)  # (rubricate_signed with links, made from _PG_PEOPLE)
        return
    [stmt] = [s for s in _PG_PEOPLE.split("\n\n") if "FUNCTION rubricate_signed()" in s]
    _pg(conn, stmt.replace("{max_name}", str(MAX_NAME_CHARS)).replace("{bad_class}", _pg_bad_class()))


def _sqlite_people(conn: Connection) -> None:
    def trig(name: str, when: str, msg: str, table: str, op: str = "INSERT") -> None:
        conn.exec_driver_sql(f"CREATE TRIGGER IF NOT EXISTS {name} BEFORE {op} ON {table} WHEN {when} "
                             f"BEGIN SELECT RAISE(ABORT, '{msg}'); END")

    for t in SIGNED:
        trig(f"{t}_printable_name", _sqlite_bad_name("NEW.reviewer"), _BAD_NAME, t)
    trig("reviewer_printable_name", _sqlite_bad_name("NEW.name"), _BAD_NAME, "reviewer")
    trig("reviewer_printable_name_upd", _sqlite_bad_name("NEW.name"), _BAD_NAME, "reviewer", "UPDATE")
    trig("human_score_adjudication_lead", "NEW.kind = 'adjudication' AND NOT " + _holds("NEW.reviewer", "lead"),
         _NO_LEAD, "human_score")
    trig("safety_decision_safety_role", "NEW.decision <> 'withdraw' AND NOT " + _holds("NEW.reviewer", "safety"),
         "a safety decision needs a reviewer with the safety role", "safety_decision")
    trig("safety_decision_withdraw_own", "NEW.decision = 'withdraw' AND NOT EXISTS (SELECT 1 FROM safety_flag f "
         "WHERE f.pk = NEW.flag_pk AND f.detector = 'human:' || NEW.reviewer)",
         "only the reviewer who raised a flag withdraws it", "safety_decision")


_PG_PEOPLE = r"""
CREATE OR REPLACE FUNCTION rubricate_bad_name(n text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT n IS NULL OR btrim(n) = '' OR btrim(n) <> n OR length(n) > {max_name}
      OR n ~ '[{bad_class}]' $$;

CREATE OR REPLACE FUNCTION rubricate_admin(rel oid) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = rel), 'USAGE') $$;

CREATE OR REPLACE FUNCTION rubricate_holds(who text, role text) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM reviewer WHERE name = who AND role = ANY(string_to_array(roles, ','))) $$;

CREATE OR REPLACE FUNCTION rubricate_login_is_lead() RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM reviewer WHERE login = current_user
                 AND 'lead' = ANY(string_to_array(roles, ','))) $$;

CREATE OR REPLACE FUNCTION rubricate_signed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE bound text;
BEGIN
  IF rubricate_bad_name(NEW.reviewer) THEN
    RAISE EXCEPTION 'a reviewer name must be non-empty and printable, without surrounding spaces';
  END IF;
  NEW.actor := current_user;
  IF TG_TABLE_NAME = 'human_score' THEN
    IF NEW.kind = 'adjudication' AND NOT rubricate_holds(NEW.reviewer, 'lead') THEN
      RAISE EXCEPTION 'an adjudication needs a reviewer with the lead role (% does not hold it)', NEW.reviewer;
    END IF;
  END IF;
  IF TG_TABLE_NAME IN ('human_score', 'pair_choice') THEN
    IF NEW.kind = 'import' AND rubricate_login_is_lead() THEN
      RETURN NEW;
    END IF;
    IF NEW.kind = 'import' AND NOT rubricate_admin(TG_RELID) THEN
      RAISE EXCEPTION 'the login % may not write a % row of kind import: an import (the owner''s or a lead''s) does', current_user, TG_TABLE_NAME;
    END IF;
  END IF;
  IF TG_TABLE_NAME = 'safety_decision' THEN
    IF NEW.decision = 'withdraw' THEN
      IF NOT EXISTS (SELECT 1 FROM safety_flag f WHERE f.pk = NEW.flag_pk AND f.detector = 'human:' || NEW.reviewer) THEN
        RAISE EXCEPTION 'only the reviewer who raised a flag withdraws it';
      END IF;
    ELSIF NOT rubricate_holds(NEW.reviewer, 'safety') THEN
      RAISE EXCEPTION 'a safety decision needs a reviewer with the safety role (% does not hold it)', NEW.reviewer;
    END IF;
  END IF;
  IF rubricate_admin(TG_RELID) THEN
    RETURN NEW;
  END IF;
  SELECT login INTO bound FROM reviewer WHERE name = NEW.reviewer;
  IF bound IS DISTINCT FROM current_user THEN
    RAISE EXCEPTION 'the login % may not sign as %: a reviewer name is bound to its own database login',
      current_user, NEW.reviewer;
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION rubricate_reviewer_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'DELETE' AND rubricate_bad_name(NEW.name) THEN
    RAISE EXCEPTION 'a reviewer name must be non-empty and printable, without surrounding spaces';
  END IF;
  IF rubricate_admin(TG_RELID) OR rubricate_login_is_lead() THEN
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' AND NEW.login = current_user AND NEW.roles = 'reviewer' THEN
    RETURN NEW;  -- claiming a name for oneself, with no role beyond reviewer
  END IF;
  RAISE EXCEPTION 'only a lead grants or removes roles (the login % is not a lead)', current_user;
END $$;
"""


def _pg_people(conn: Connection) -> None:
    ddl = _PG_PEOPLE.replace("{max_name}", str(MAX_NAME_CHARS)).replace("{bad_class}", _pg_bad_class())
    for stmt in ddl.split("\n\n"):
        if stmt.strip():
            _pg(conn, stmt)
    for t in SIGNED:
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {t}_signed ON {t}")
        conn.exec_driver_sql(f"CREATE TRIGGER {t}_signed BEFORE INSERT ON {t} "
                             "FOR EACH ROW EXECUTE FUNCTION rubricate_signed()")
    conn.exec_driver_sql("DROP TRIGGER IF EXISTS reviewer_guard ON reviewer")
    conn.exec_driver_sql("CREATE TRIGGER reviewer_guard BEFORE INSERT OR UPDATE OR DELETE ON reviewer "
                         "FOR EACH ROW EXECUTE FUNCTION rubricate_reviewer_guard()")
