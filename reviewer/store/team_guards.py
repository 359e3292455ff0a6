"""What a person's own database login may write on PostgreSQL (migration ``0010e_team_writes``
and the grants of ``rubricate db roles``).

A person's login (a member of the application role, owning nothing) may do what that person's
screens do — score, comment, flag, decide a flag (safety role), choose in a pair, claim and submit
an item — and nothing else:

- **Grants.** ``INSERT`` on the signed history (scores, comments, flags, decisions, pair choices),
  on assignments and on reviewers (claims of one's own name, guarded by ``0007g_roles``);
  ``UPDATE`` on assignments, reviewers and on the item columns a person's write recomputes (its
  lease, review count, judge–people gap, triage key, judge summary and safety marks). Items, item
  revisions, rubric versions, judge scores and pair verdicts, runs, the judge cache, audit samples and queue
  settings are the owner's alone (imports, judge runs, ``queue set``, ``queue audit-sample``).
- **Triggers** check every row such a login writes where a grant cannot (the owner passes):
  an item's triage key is derived from the row by the database (``queue.TRIAGE_KEY_SQL``); a
  lease is taken, renewed or ended only for a name bound to the login, never over another
  person's live lease, for at most :data:`reviewer.store.queue.MAX_LEASE_SECONDS`; the review
  count, judge–people gap and judge summary change only in the transaction in which that login
  wrote a score on the item (the count by one review at most), the safety status and cap only in
  one in which a flag or a decision on the item was written, the judge-side columns never; an
  assignment is opened (active, on an item the name holds the lease of) and ended only by its
  own reviewer's login; a reviewer flag is signed ``human:NAME`` with a name bound to the login;
  a name that already has scores or pair verdicts (one that came with an import) is never claimed by a login:
  a lead binds it (``reviewer add NAME --login LOGIN``).
"""

from __future__ import annotations

import re

from sqlalchemy import Connection

from reviewer.store.guards import ALL_HISTORY, _pg
from reviewer.store.tables import Item, table_of

#: History only the owner appends to: judge runs' scores, rubric versions, imports' revisions.
OWNER_HISTORY = ("judge_score", "rubric_version", "item_revision", "pair_judgment")
#: History a person's screens append to (signed rows; checked by ``0007g_roles`` and here): the
#: rest of it, so a history table added later is a person's unless it is listed above.
PERSON_HISTORY = tuple(t for t in ALL_HISTORY if t not in OWNER_HISTORY)
#: Working tables a person's screens insert into and update (leases' history; claimed names;
#: a lead's links to the served app, checked by ``0011s_links``).
PERSON_WORKING = ("assignment", "reviewer", "serve_link")
#: Item columns a person's write recomputes: its lease, then what a score, flag or decision
#: refreshes from the item's fold (the update names them all, changed or not).
ITEM_LEASE = ("lease_reviewer", "lease_queue", "lease_until")
ITEM_PEOPLE = ("n_reviewed", "n_labelled", "human_gap", "judge_overall", "judge_band", "judge_passed", "judge_headline")
ITEM_SAFETY = ("safety", "flagged")
#: Judge-side columns refreshed with the rest but changed only by a judge run (the owner's).
ITEM_JUDGE = ("judge_spread", "n_errors")
ITEM_PERSON_COLUMNS = ITEM_LEASE + ITEM_PEOPLE + ITEM_SAFETY + ITEM_JUDGE + ("triage_key",)


def _name_ok(name: str) -> bool:
    """A role or schema name written into SQL unquoted: letters, digits and _, not first a digit."""
    return bool(name) and name.replace("_", "").isalnum() and name.isascii() and not name[0].isdigit()


def _check_names(*names: str) -> None:
    for name in names:
        if not _name_ok(name):
            raise ValueError(f"{name!r}: a role or schema name is letters, digits and _ (not first a digit)")


def grant_statements(app_role: str, schema: str, missing: frozenset[str] = frozenset()) -> list[str]:
    """The application role's grants (module docstring), from nothing: run as the owner
    (``missing``: person tables a later migration makes, left out of a migration's grants)."""
    _check_names(app_role, schema)
    inserts = [t for t in PERSON_HISTORY + PERSON_WORKING if t not in missing]
    return [
        f"REVOKE ALL ON ALL TABLES IN SCHEMA {schema} FROM {app_role}",
        f"GRANT USAGE ON SCHEMA {schema} TO {app_role}",
        f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {app_role}",
        f"GRANT INSERT ON {', '.join(inserts)} TO {app_role}",
        f"GRANT UPDATE ON {', '.join(PERSON_WORKING)} TO {app_role}",
        f"GRANT UPDATE ({', '.join(ITEM_PERSON_COLUMNS)}) ON item TO {app_role}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {app_role}",
    ]


def roles_statements(app_role: str, logins: list[str], schema: str) -> list[str]:
    """``rubricate db roles``: the application role owning nothing, its grants
    (:func:`grant_statements`), and one login per person that is a member of it."""
    _check_names(app_role, *logins, schema)
    out = [f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{app_role}') THEN "
           f"CREATE ROLE {app_role} NOLOGIN; END IF; END $$", *grant_statements(app_role, schema)]
    for login in logins:
        out += [f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{login}') THEN "
                f"CREATE ROLE {login} LOGIN; END IF; END $$",
                f"GRANT {app_role} TO {login}"]
    return out


def _derived_triage_key() -> str:
    """``TRIAGE_KEY_SQL`` over the row being written (``NEW.``): the one rule, read by the trigger."""
    from reviewer.store.queue import TRIAGE_KEY_SQL  # (the queue module imports the store's base)

    columns = sorted((c.name for c in table_of(Item).columns), key=len, reverse=True)
    return re.sub(r"\b(" + "|".join(columns) + r")\b", r"NEW.\1", TRIAGE_KEY_SQL)


_PG_TEAM = r"""
CREATE OR REPLACE FUNCTION rubricate_mine(who text) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM reviewer WHERE name = who AND login = current_user) $$;

CREATE OR REPLACE FUNCTION rubricate_item_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF rubricate_admin(TG_RELID) THEN
    RETURN NEW;
  END IF;
  NEW.triage_key := {triage_key};
  IF (NEW.lease_reviewer, NEW.lease_queue, NEW.lease_until)
      IS DISTINCT FROM (OLD.lease_reviewer, OLD.lease_queue, OLD.lease_until) THEN
    IF OLD.lease_reviewer IS NOT NULL AND OLD.lease_until > now() AND NOT rubricate_mine(OLD.lease_reviewer) THEN
      RAISE EXCEPTION 'the login % may not take or end the lease % holds on item %', current_user, OLD.lease_reviewer, OLD.pk;
    END IF;
    IF NEW.lease_reviewer IS NOT NULL AND NOT rubricate_mine(NEW.lease_reviewer) THEN
      RAISE EXCEPTION 'the login % may not lease item % to %: a lease is taken with one''s own name', current_user, NEW.pk, NEW.lease_reviewer;
    END IF;
    IF NEW.lease_until > now() + interval '{max_lease} seconds' THEN
      RAISE EXCEPTION 'a lease lasts at most {max_lease} seconds';
    END IF;
  END IF;
  IF (NEW.judge_spread, NEW.n_errors) IS DISTINCT FROM (OLD.judge_spread, OLD.n_errors) THEN
    RAISE EXCEPTION 'the login % may not change the judge''s summary of item %: a judge run (the owner''s) does', current_user, NEW.pk;
  END IF;
  IF (NEW.n_reviewed, NEW.n_labelled, NEW.human_gap, NEW.judge_overall, NEW.judge_band, NEW.judge_passed, NEW.judge_headline)
      IS DISTINCT FROM (OLD.n_reviewed, OLD.n_labelled, OLD.human_gap, OLD.judge_overall, OLD.judge_band, OLD.judge_passed,
                        OLD.judge_headline) THEN
    IF NOT EXISTS (SELECT 1 FROM human_score h WHERE h.item_pk = NEW.pk AND h.actor = current_user
                   AND h.xmin = pg_current_xact_id()::xid) THEN
      RAISE EXCEPTION 'the login % may not change the review summary of item %: it follows the scores written with it', current_user, NEW.pk;
    END IF;
    IF abs(NEW.n_reviewed - OLD.n_reviewed) > 1 THEN
      RAISE EXCEPTION 'one score changes an item''s review count by one at most (item %: % to %)', NEW.pk, OLD.n_reviewed, NEW.n_reviewed;
    END IF;
    IF abs(NEW.n_labelled - OLD.n_labelled) > 1 THEN
      RAISE EXCEPTION 'one score changes an item''s label count by one at most (item %: % to %)', NEW.pk, OLD.n_labelled, NEW.n_labelled;
    END IF;
  END IF;
  IF (NEW.safety, NEW.flagged) IS DISTINCT FROM (OLD.safety, OLD.flagged) THEN
    IF NOT EXISTS (SELECT 1 FROM safety_flag f WHERE f.item_pk = NEW.pk AND f.xmin = pg_current_xact_id()::xid)
       AND NOT EXISTS (SELECT 1 FROM safety_decision d JOIN safety_flag f ON f.pk = d.flag_pk
                       WHERE f.item_pk = NEW.pk AND d.actor = current_user AND d.xmin = pg_current_xact_id()::xid) THEN
      RAISE EXCEPTION 'the login % may not change the safety status of item %: it follows the flags and decisions written with it', current_user, NEW.pk;
    END IF;
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION rubricate_assignment_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF rubricate_admin(TG_RELID) THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    IF NOT rubricate_mine(NEW.reviewer) THEN
      RAISE EXCEPTION 'the login % may not open an assignment for %', current_user, NEW.reviewer;
    END IF;
    IF NEW.state <> 'active' OR NEW.ended_at IS NOT NULL
       OR NOT EXISTS (SELECT 1 FROM item WHERE pk = NEW.item_pk AND lease_reviewer = NEW.reviewer) THEN
      RAISE EXCEPTION 'an assignment opens active, on an item its reviewer holds the lease of';
    END IF;
    RETURN NEW;
  END IF;
  IF NOT rubricate_mine(OLD.reviewer) THEN
    RAISE EXCEPTION 'the login % may not change an assignment of %', current_user, OLD.reviewer;
  END IF;
  IF OLD.state <> 'active' OR NEW.state NOT IN ('done', 'skipped', 'released')
     OR (NEW.pk, NEW.item_pk, NEW.queue, NEW.reviewer, NEW.revision, NEW.created_at)
        IS DISTINCT FROM (OLD.pk, OLD.item_pk, OLD.queue, OLD.reviewer, OLD.revision, OLD.created_at) THEN
    RAISE EXCEPTION 'an assignment only ends: active to done, skipped or released';
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION rubricate_flag_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF rubricate_admin(TG_RELID) THEN
    RETURN NEW;
  END IF;
  IF NEW.gate <> 'reviewer_flag' OR NEW.run_pk IS NOT NULL OR left(NEW.detector, 6) <> 'human:'
     OR NOT rubricate_mine(substr(NEW.detector, 7)) THEN
    RAISE EXCEPTION 'the login % may raise only a reviewer flag signed human:NAME with a name bound to it', current_user;
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION rubricate_unbound_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF rubricate_admin(TG_RELID) OR rubricate_login_is_lead() THEN
    RETURN NEW;
  END IF;
  IF EXISTS (SELECT 1 FROM human_score WHERE reviewer = NEW.name)
     OR EXISTS (SELECT 1 FROM pair_choice WHERE reviewer = NEW.name AND kind = 'import') THEN
    RAISE EXCEPTION 'the name % has scores (it came with an import) and is bound to no login: a lead binds it', NEW.name;
  END IF;
  RETURN NEW;
END $$;
"""

_TRIGGERS = (
    ("item_person_write", "BEFORE UPDATE ON item", "rubricate_item_guard"),
    ("assignment_own", "BEFORE INSERT OR UPDATE ON assignment", "rubricate_assignment_guard"),
    ("safety_flag_signed", "BEFORE INSERT ON safety_flag", "rubricate_flag_guard"),
    ("reviewer_unbound_name", "BEFORE INSERT ON reviewer", "rubricate_unbound_name"),
)


def unbound_name_guard(conn: Connection) -> None:
    """``0011p_pair_verdicts``: the unbound-name check of :func:`team_writes` again, as it now
    reads (a name that came with imported pair verdicts is bound to no login either), where
    ``0010e_team_writes`` made it."""
    if conn.dialect.name != "postgresql" or conn.exec_driver_sql(
            "SELECT to_regproc('rubricate_unbound_name')").scalar() is None:
        return
    [stmt] = [s for s in _PG_TEAM.split("\n\n") if "FUNCTION rubricate_unbound_name()" in s]
    _pg(conn, stmt)


def team_writes(conn: Connection) -> None:
    """``0010e_team_writes``: the triggers of the module docstring, and the application roles an
    earlier ``db roles`` made re-granted as :func:`grant_statements` says (they held INSERT and
    UPDATE on every working table and on items). SQLite: nothing (who writes a SQLite file is
    decided by its permissions; the store checks the acting OS login)."""
    if conn.dialect.name != "postgresql":
        return
    if conn.exec_driver_sql("SELECT to_regproc('rubricate_admin')").scalar() is None:
        return  # (only where ``0007g_roles`` was left out, as the guard tests build a database)
    from reviewer.store.queue import MAX_LEASE_SECONDS

    ddl = _PG_TEAM.replace("{triage_key}", _derived_triage_key()).replace("{max_lease}", str(MAX_LEASE_SECONDS))
    for stmt in ddl.split("\n\n"):
        if stmt.strip():
            _pg(conn, stmt)
    for name, when, function in _TRIGGERS:
        table = when.rsplit(" ", 1)[1]
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name} ON {table}")
        conn.exec_driver_sql(f"CREATE TRIGGER {name} {when} FOR EACH ROW EXECUTE FUNCTION {function}()")
    if conn.exec_driver_sql("SELECT to_regclass('serve_link')").scalar() is not None:
        from reviewer.store.links import (
            link_functions,  # (rubricate_mine above has no links: put them back)
        )

        link_functions(conn)
    schema = str(conn.exec_driver_sql("SELECT current_schema()").scalar_one())
    app_roles = conn.exec_driver_sql(
        "SELECT DISTINCT grantee FROM information_schema.table_privileges WHERE table_schema = current_schema() "
        "AND table_name = 'human_score' AND privilege_type = 'INSERT' AND grantee <> current_user").scalars().all()
    missing = frozenset(t for t in PERSON_HISTORY  # (a table made by a migration after this one)
                        if conn.exec_driver_sql(f"SELECT to_regclass('{t}')").scalar() is None)
    for role in app_roles:
        if _name_ok(role) and role != "PUBLIC":  # (a role ``db roles`` made; not a grant to everyone)
            for stmt in grant_statements(role, schema, missing):
                conn.exec_driver_sql(stmt)

