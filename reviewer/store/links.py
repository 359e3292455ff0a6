"""Links to the review app served in a browser (``rubricate serve``; table ``serve_link``,
migration ``0011s_links``).

- A link acts for one person (a reviewer name that holds a role). Only a lead makes or revokes one.
  Its token is ``secrets.token_urlsafe(32)`` (256 random bits), shown once; the store keeps only
  its SHA-256, and a presented token is looked up by its hash and compared in constant time.
- A link is live until it expires or is revoked; a new link for a name revokes the name's
  earlier ones, so each person has at most one live link.
- A store that acts through a link (:meth:`Links.act_through_link`) signs only as the link's
  person, holding that person's roles, and marks every row it writes ``via = 'link'`` (the
  signed history and reviewer flags; :data:`VIA_TABLES`). On SQLite it acts as the person's
  bound login; on PostgreSQL the acting login stays the server's own (see README, "Security
  model").
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import datetime, timedelta

from sqlalchemy import Connection, select, update
from sqlmodel import col

from reviewer.domain.provenance import as_utc
from reviewer.errors import UserError
from reviewer.store.db import Db
from reviewer.store.roles import Roles, check_name
from reviewer.store.tables import Reviewer, ServeLink, now, table_of

#: Tables whose rows say whether a link's session wrote them (column ``via``).
VIA_TABLES = ("human_score", "safety_decision", "pair_choice", "item_comment", "item_reveal", "safety_flag")
#: The mark a session served through a link puts on every row it writes.
VIA_LINK = "link"
#: The longest a link may live: a year (a link is a password; rotate it).
MAX_EXPIRES = timedelta(days=365)
_DURATION = re.compile(r"([1-9][0-9]{0,5})([mhd])")
_UNITS = {"m": "minutes", "h": "hours", "d": "days"}


def parse_expires(text: str) -> timedelta:
    """``30m``, ``12h`` or ``7d`` as a duration, at most :data:`MAX_EXPIRES`; a one-line
    :class:`UserError` otherwise."""
    m = _DURATION.fullmatch(text.strip())
    if m is None:
        raise UserError(f"--expires {text!r}: give a number and a unit, m, h or d (e.g. 7d, 12h, 30m)")
    span = timedelta(**{_UNITS[m.group(2)]: int(m.group(1))})
    if span > MAX_EXPIRES:
        raise UserError(f"--expires {text}: a link lives at most 365d; make a new one when it ends")
    return span


def token_hash(token: str) -> str:
    """The hex SHA-256 of a token: what the store keeps instead of the token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _live_link(conn: Connection, token: str, at: datetime) -> tuple[str, str] | None:
    """(name, created_by) of the live link the token opens, else None."""
    digest = token_hash(token)
    row = conn.execute(select(col(ServeLink.name), col(ServeLink.token_hash), col(ServeLink.created_by),
                              col(ServeLink.expires_at), col(ServeLink.revoked_at))
                       .where(col(ServeLink.token_hash) == digest)).first()
    if row is None or not hmac.compare_digest(row[1], digest):
        return None
    if row[4] is not None or as_utc(row[3]) <= at:
        return None
    return str(row[0]), str(row[2])


class Links:
    """Making, revoking and opening links; acting through one."""

    def __init__(self, db: Db, roles: Roles) -> None:
        self.db = db
        self.roles = roles
        #: The link acted through: (person, token), kept for the check of each signed write.
        self._link: tuple[str, str] | None = None

    def add_link(self, name: str, expires: timedelta) -> str:
        """A new link for ``name`` (a lead's act; the name must hold a role), live for
        ``expires``; returns its token (stored only as a hash). Revokes ``name``'s earlier links."""
        check_name(name)
        if not timedelta(0) < expires <= MAX_EXPIRES:
            raise UserError("a link lives more than no time and at most 365 days")
        token = secrets.token_urlsafe(32)
        with self.db.write() as conn:
            if not self.roles._acting_lead(conn):
                raise UserError(f"only a lead makes links; the login {self.roles.login} is not a lead's")
            roles = conn.execute(select(col(Reviewer.roles)).where(col(Reviewer.name) == name)).scalar()
            if not roles:
                raise UserError(f"{name} holds no role: give them one first (rubricate reviewer add {name})")
            at = now()
            self._revoke(conn, name, at)
            conn.execute(table_of(ServeLink).insert().values(
                name=name, token_hash=token_hash(token), created_by=self.roles.login, created_at=at,
                expires_at=at + expires))
        return token

    def revoke_links(self, name: str) -> int:
        """Revoke ``name``'s live links (a lead's act); how many there were."""
        with self.db.write() as conn:
            if not self.roles._acting_lead(conn):
                raise UserError(f"only a lead revokes links; the login {self.roles.login} is not a lead's")
            return self._revoke(conn, name, now())

    def _revoke(self, conn: Connection, name: str, at: datetime) -> int:
        live = [pk for pk, expires in conn.execute(
            select(col(ServeLink.pk), col(ServeLink.expires_at))
            .where(col(ServeLink.name) == name, col(ServeLink.revoked_at).is_(None))).all()
            if as_utc(expires) > at]
        if live:
            conn.execute(update(ServeLink).where(col(ServeLink.pk).in_(live))
                         .values(revoked_at=at, revoked_by=self.roles.login))
        return len(live)

    def link_person(self, token: str, at: datetime | None = None) -> str | None:
        """The person a live link's token acts for; None for a token that opens no live link
        (unknown, revoked or expired at ``at``, default now)."""
        with self.db.read() as conn:
            live = _live_link(conn, token, at or now())
        return live[0] if live else None

    def links(self) -> list[tuple[str, datetime, datetime, datetime | None]]:
        """Every link as (name, created, expires, revoked), newest first (no token, no hash)."""
        with self.db.read() as conn:
            rows = conn.execute(select(col(ServeLink.name), col(ServeLink.created_at), col(ServeLink.expires_at),
                                       col(ServeLink.revoked_at)).order_by(col(ServeLink.pk).desc())).all()
        return [(str(n), as_utc(c), as_utc(e), as_utc(r) if r is not None else None) for n, c, e, r in rows]

    def act_through_link(self, token: str) -> str:
        """From now on act as the live link's person, marking every row ``via = 'link'``; returns
        the person's name. A token that opens no live link is refused in one line."""
        with self.db.read() as conn:
            live = _live_link(conn, token, now())
            if live is None:
                raise UserError("this link is not valid (unknown, revoked or expired): ask a lead for a new one")
            name = live[0]
            login = conn.execute(select(col(Reviewer.login)).where(col(Reviewer.name) == name)).scalar()
        self._link = (name, token)
        self.roles.act_through(VIA_LINK, self._check_link, login or name if self.db.dialect == "sqlite" else None)
        return name

    def _check_link(self, conn: Connection, reviewer: str) -> None:
        """Every signed write of a link's session: the link is still live (a revoked or expired
        link stops the session's writes at once) and the name is the link's person."""
        if self._link is None:
            raise UserError("this store acts through a link but holds none")
        name, token = self._link
        if _live_link(conn, token, now()) is None:
            raise UserError("this link has been revoked or has expired: nothing was saved; ask a lead for a new one")
        if reviewer != name:
            raise UserError(f"this session acts for {name} through a link; it may not sign as {reviewer}")


#: PostgreSQL: a login acts for a name it holds a live link for (one it made: a lead's), and links
#: are a lead's to make and revoke, signed with the login, never deleted.
_PG_LINKS = r"""
CREATE OR REPLACE FUNCTION rubricate_link_for(who text) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM serve_link WHERE name = who AND created_by = current_user
                 AND revoked_at IS NULL AND expires_at > now()) $$;

CREATE OR REPLACE FUNCTION rubricate_mine(who text) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM reviewer WHERE name = who AND login = current_user)
      OR rubricate_link_for(who) $$;

CREATE OR REPLACE FUNCTION rubricate_link_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'a link is never deleted: revoke it (rubricate serve revoke NAME)';
  END IF;
  IF NOT rubricate_admin(TG_RELID) AND NOT rubricate_login_is_lead() THEN
    RAISE EXCEPTION 'only a lead makes or revokes links (the login % is not a lead)', current_user;
  END IF;
  IF TG_OP = 'INSERT' THEN
    NEW.created_by := current_user;
  ELSIF NEW.name IS DISTINCT FROM OLD.name OR NEW.token_hash IS DISTINCT FROM OLD.token_hash
     OR NEW.created_by IS DISTINCT FROM OLD.created_by OR NEW.created_at IS DISTINCT FROM OLD.created_at
     OR NEW.expires_at IS DISTINCT FROM OLD.expires_at OR OLD.revoked_at IS NOT NULL THEN
    RAISE EXCEPTION 'a link is only ever revoked, once';
  ELSE
    NEW.revoked_by := current_user;
  END IF;
  RETURN NEW;
END $$;
"""
#: The check in ``rubricate_signed`` (``0007g_roles``) that binds a signed name to the login, and
#: what it becomes: or a row written through a live link of this login's for that name.
_BOUND = "IF bound IS DISTINCT FROM current_user THEN"
_BOUND_OR_LINK = ("IF bound IS DISTINCT FROM current_user AND NOT (NEW.via IS NOT DISTINCT FROM 'link' "
                  "AND rubricate_link_for(NEW.reviewer)) THEN")


def link_tables(conn: Connection) -> None:
    """``0011s_links``: the links table, and the ``via`` mark on the rows a session writes. On
    PostgreSQL the server's login signs for the people it holds live links for (rows marked
    ``via = 'link'`` only), takes their leases and raises their flags; only a lead's login makes
    or revokes a link; whoever may score may read links (to open one) and, as a lead, write them."""
    from reviewer.store.engine import _add_column

    table_of(ServeLink).create(conn, checkfirst=True)
    for table in VIA_TABLES:
        _add_column(conn, table, "via", "VARCHAR")
    if conn.dialect.name != "postgresql":
        return
    link_functions(conn)
    conn.exec_driver_sql(
        "DO $$ DECLARE r record; BEGIN FOR r IN SELECT DISTINCT grantee FROM information_schema.table_privileges"
        " WHERE table_schema = current_schema() AND table_name = 'human_score' AND privilege_type = 'INSERT'"
        " AND grantee <> current_user LOOP"
        " EXECUTE 'GRANT SELECT, INSERT, UPDATE ON serve_link TO ' || quote_ident(r.grantee);"
        " EXECUTE 'GRANT USAGE, SELECT ON SEQUENCE serve_link_pk_seq TO ' || quote_ident(r.grantee);"
        " END LOOP; END $$")


def link_functions(conn: Connection) -> None:
    """PostgreSQL: the functions and trigger that let a login act for its links' people
    (``rubricate_link_for``, ``rubricate_mine`` with links, ``rubricate_signed`` with links, the
    ``serve_link`` guard). Made again by any later migration that remakes the functions they
    extend (:func:`reviewer.store.team_guards.team_writes`), so none of them loses the links."""
    from reviewer.domain.itemlimits import MAX_NAME_CHARS
    from reviewer.store.guards import _PG_PEOPLE, _pg, _pg_bad_class

    for stmt in _PG_LINKS.split("\n\n"):
        if stmt.strip():
            _pg(conn, stmt)
    signed = next(s for s in _PG_PEOPLE.split("\n\n") if "FUNCTION rubricate_signed()" in s)
    if _BOUND not in signed:
        raise RuntimeError("0011s_links: rubricate_signed no longer holds the binding check it extends")
    signed = signed.replace(_BOUND, _BOUND_OR_LINK)
    _pg(conn, signed.replace("{max_name}", str(MAX_NAME_CHARS)).replace("{bad_class}", _pg_bad_class()))
    conn.exec_driver_sql("DROP TRIGGER IF EXISTS serve_link_guard ON serve_link")
    conn.exec_driver_sql("CREATE TRIGGER serve_link_guard BEFORE INSERT OR UPDATE OR DELETE ON serve_link "
                         "FOR EACH ROW EXECUTE FUNCTION rubricate_link_guard()")
