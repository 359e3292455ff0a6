"""Who is acting, and what they may do: roles enforced by the store (and on PostgreSQL by the
database too, see :mod:`reviewer.store.guards`).

- A reviewer name is bound to a login: the person's database login on PostgreSQL, their OS user
  on SQLite. The store acts as ``self.login``: ``current_user`` on PostgreSQL; on SQLite the OS
  user (``open_store(db, login=...)`` sets another, for tools and tests on one machine).
- The first role given in a store must be ``lead`` (that lead is bound to the acting login);
  after that only a lead grants or removes roles, and the last lead cannot be removed.
- Signing a row (score, decision, pair choice, flag) with a name needs that name bound to the
  acting login. On SQLite a lead may act for another name (``--reviewer``); on PostgreSQL only
  the tables' owner may (it runs migrations and imports, and could drop any trigger). A name
  nobody holds yet is claimed for the acting login by its first signed row, as a plain reviewer.
- Names are non-empty, without control or invisible characters or edge spaces (one rule:
  :func:`reviewer.domain.itemlimits.name_problem`, which the database triggers mirror).
- Two-person sign-off counts distinct people: the logins that wrote the decisions.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, exists, select, text, update
from sqlmodel import col

from reviewer.domain.itemlimits import name_problem
from reviewer.errors import MissingRole, NoLead, UnboundName, UserError
from reviewer.locations import os_login
from reviewer.store.db import Db
from reviewer.store.tables import HumanScore, PairChoice, Reviewer, table_of
from reviewer.store.team_guards import roles_statements

ROLES = ("reviewer", "safety", "lead")


def check_name(name: object, what: str = "reviewer name") -> str:
    """``name`` when it is a usable name (the rule of :func:`reviewer.domain.itemlimits.name_problem`:
    non-empty text, no control or invisible characters, no edge spaces); a :class:`UserError`
    saying what is wrong otherwise."""
    problem = name_problem(name, f"the {what}") if isinstance(name, str) else f"the {what} must be text"
    if problem is not None:
        raise UserError(problem)
    return str(name)




def _roles(value: str | None) -> set[str]:
    return {r for r in (value or "").split(",") if r}


class Roles:
    """Reviewers, their roles and logins; the checks every signed write goes through. Holds
    the acting login."""

    def __init__(self, db: Db) -> None:
        self.db = db
        self._login: str | None = None
        self._admin: bool | None = None
        #: The mark the rows carry when acting through a served link (:mod:`reviewer.store.links`),
        #: and the check each signed write of that session passes (the link still live, the name
        #: its person's), both set by :meth:`act_through`.
        self._via: str | None = None
        self._link_check: Callable[[Connection, str], None] | None = None

    @property
    def login(self) -> str:
        """The login the store acts as (database login on PostgreSQL, else the OS user)."""
        if self._login is None:
            if self.db.dialect == "postgresql":
                with self.db.read() as conn:
                    self._login = str(conn.execute(text("SELECT current_user")).scalar_one())
            else:
                self._login = os_login()
        return self._login

    def act_as(self, login: str) -> None:
        """SQLite: act as another OS login from now on (tools, tests). PostgreSQL refuses: the
        login there is the database connection's, checked by the database."""
        if self.db.dialect == "postgresql":
            raise UserError("on PostgreSQL the acting login is the database login: connect as that role")
        self._login = check_name(login, "login")

    def act_through(self, via: str, check: Callable[[Connection, str], None], login: str | None) -> None:
        """From now on sign every row with the mark ``via``, passing ``check`` on each signed
        write (:meth:`reviewer.store.links.Links.act_through_link`); on SQLite act as ``login``."""
        if login is not None:
            self._login = check_name(login, "login")
        self._via = via
        self._link_check = check

    @property
    def admin(self) -> bool:
        """PostgreSQL: the acting login owns the tables (or is a member of their owner)."""
        if self._admin is None:
            self._admin = False
            if self.db.dialect == "postgresql":
                with self.db.read() as conn:
                    self._admin = bool(conn.execute(text(
                        "SELECT pg_has_role(current_user, (SELECT relowner FROM pg_class "
                        "WHERE oid = 'reviewer'::regclass), 'USAGE')")).scalar_one())
        return self._admin

    # --- reading ----------------------------------------------------------------------------
    def reviewer_roles(self, name: str) -> set[str]:
        """The roles ``name`` holds (empty if unknown)."""
        with self.db.read() as conn:
            row = conn.execute(select(col(Reviewer.roles)).where(col(Reviewer.name) == name)).first()
        return _roles(row[0]) if row else set()

    def reviewers(self) -> list[tuple[str, set[str], str | None]]:
        """Every reviewer as (name, roles, login)."""
        with self.db.read() as conn:
            rows = conn.execute(select(col(Reviewer.name), col(Reviewer.roles), col(Reviewer.login))
                                .order_by(col(Reviewer.name))).all()
        return [(n, _roles(r), lg) for n, r, lg in rows]

    def _acting_lead(self, conn: Connection) -> bool:
        if self.admin:
            return True
        rows = conn.execute(select(col(Reviewer.roles)).where(col(Reviewer.login) == self.login)).scalars()
        return any("lead" in _roles(r) for r in rows)

    def acting_is_lead(self) -> bool:
        """The acting login is a lead's (or, on PostgreSQL, the tables' owner)."""
        with self.db.read() as conn:
            return self._acting_lead(conn)

    # --- granting ---------------------------------------------------------------------------
    def add_reviewer(self, name: str, role: str = "reviewer", login: str | None = None) -> set[str]:
        """Give ``name`` a role (a person may hold several); returns their roles.

        The first role given in a store must be ``lead`` and binds ``name`` to the acting login;
        after that the acting login must be a lead's. ``login`` binds (or rebinds) the name to a
        person's login; a new name defaults to a login equal to the name.
        """
        check_name(name)
        if role not in ROLES:
            raise UserError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
        if login is not None:
            check_name(login, "login")
        with self.db.write() as conn:
            rows = conn.execute(select(col(Reviewer.roles))).scalars().all()
            if not any("lead" in _roles(r) for r in rows):
                if role != "lead":
                    raise NoLead(self.login)
                if login not in (None, self.login) and not self.admin:
                    raise UserError(f"the first lead is you: bound to your login {self.login}, not {login}")
                login = login or self.login
            elif not self._acting_lead(conn):
                raise UserError(f"only a lead grants roles; the login {self.login} is not a lead's")
            row = conn.execute(select(col(Reviewer.roles), col(Reviewer.login)).where(col(Reviewer.name) == name)).first()
            if row is None:
                conn.execute(table_of(Reviewer).insert().values(
                    name=name, roles=role, login=login or name))
                return {role}
            roles = _roles(row[0]) | {role}
            conn.execute(update(Reviewer).where(col(Reviewer.name) == name).values(
                roles=",".join(sorted(roles)), login=login or row[1] or name))
            return roles

    def remove_role(self, name: str, role: str) -> set[str]:
        """Take a role from ``name`` (a lead's act); the store keeps at least one lead."""
        if role not in ROLES:
            raise UserError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
        with self.db.write() as conn:
            if not self._acting_lead(conn):
                raise UserError(f"only a lead removes roles; the login {self.login} is not a lead's")
            row = conn.execute(select(col(Reviewer.roles)).where(col(Reviewer.name) == name)).first()
            if row is None or role not in _roles(row[0]):
                raise UserError(f"{name} does not hold the {role} role")
            leads = [r for r in conn.execute(select(col(Reviewer.roles))).scalars() if "lead" in _roles(r)]
            if role == "lead" and len(leads) == 1:
                raise UserError(f"{name} is the only lead: make another lead first")
            roles = _roles(row[0]) - {role}
            conn.execute(update(Reviewer).where(col(Reviewer.name) == name).values(roles=",".join(sorted(roles))))
            return roles

    # --- signing ----------------------------------------------------------------------------
    def sign(self, conn: Connection, reviewer: str, need: str | None = None) -> dict[str, str | None]:
        """Check that the acting login may sign as ``reviewer`` (holding role ``need``); claims
        a name nobody holds for the acting login. Returns the columns to add to the signed row."""
        if self.signing_check(conn, reviewer, need):
            conn.execute(table_of(Reviewer).insert().values(
                name=reviewer, roles="reviewer", login=self.login))
        return {"actor": self.login, "via": self._via}

    def signing_check(self, conn: Connection, reviewer: str, need: str | None) -> bool:
        """Raise when the acting login may not sign as ``reviewer``; whether signing claims the
        name (nobody holds it, and it has no scores: a name that came with an import is bound to
        no login until a lead binds it)."""
        check_name(reviewer)
        if self._via is not None:
            if self._link_check is None:
                raise UserError("this store acts through a link but cannot check it")
            self._link_check(conn, reviewer)
        row = conn.execute(select(col(Reviewer.roles), col(Reviewer.login)).where(col(Reviewer.name) == reviewer)).first()
        roles, bound = (_roles(row[0]), row[1] or reviewer) if row else (set(), None)
        if need and need not in roles:
            raise MissingRole(reviewer, need)
        # (a link's session was checked above: it signs as the link's person alone)
        acts_for_others = (self.admin or self._via is not None
                           or (self.db.dialect == "sqlite" and self._acting_lead(conn)))
        if bound is None:
            if not _came_with_import(conn, reviewer):
                return True
            if not acts_for_others:
                raise UnboundName(reviewer)
        elif bound != self.login and not acts_for_others:
            raise UserError(f"the login {self.login} may not sign as {reviewer} (bound to the login {bound}); "
                            "only a lead may act for another reviewer")
        return False

    def check_signer(self, reviewer: str) -> None:
        """Refuse now (one line) what the first signed write as ``reviewer`` would refuse: for
        ``rubricate review --reviewer NAME`` before the screen opens."""
        with self.db.read() as conn:
            self.signing_check(conn, reviewer, None)

    # --- PostgreSQL team roles --------------------------------------------------------------
    def team_roles(self, app_role: str, logins: list[str]) -> list[str]:
        """The SQL that makes the application role and the people's logins (``db roles``)."""
        if self.db.dialect != "postgresql":
            raise UserError("db roles: database roles are PostgreSQL's; a SQLite file is guarded by "
                            "its file permissions (README, Security model)")
        with self.db.read() as conn:
            schema = str(conn.execute(text("SELECT current_schema()")).scalar_one())
        try:
            return roles_statements(app_role, logins, schema)
        except ValueError as exc:
            raise UserError(str(exc)) from None

    def apply_team_roles(self, statements: list[str]) -> None:
        """Run :meth:`team_roles`' statements in one transaction (as the tables' owner)."""
        with self.db.write() as conn:
            for stmt in statements:
                conn.exec_driver_sql(stmt)


def _came_with_import(conn: Connection, reviewer: str) -> bool:
    """Whether ``reviewer`` came with an import: it has scores, or imported pair verdicts."""
    return bool(conn.execute(select(
        exists().where(col(HumanScore.reviewer) == reviewer)
        | exists().where(col(PairChoice.reviewer) == reviewer, col(PairChoice.kind) == "import"))).scalar())
