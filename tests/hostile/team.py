"""A team for the role and guard cases, on SQLite and PostgreSQL: a store whose owner is its
first lead, and people each with a login of their own (on PostgreSQL a database login made for
the test, members of an application role with ``db roles``' grants; all dropped afterwards)."""

from __future__ import annotations

import json
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from reviewer.services.importing import import_file
from reviewer.store import Store, open_store
from tests.hostile.dbs import REF, Raw, open_without, pg_schema, pg_url, plain_pg, refused

PEOPLE = ("ana", "mal", "sam", "sue")
TWO = "two-signoffs@1.0.0"


class Team:
    """A store with a lead (the owner: the OS user, or the tables' owner on PostgreSQL) and the
    people of :data:`PEOPLE`, each a login of their own."""

    def __init__(self, backend: str, target: str, logins: dict[str, str], owner: Store) -> None:
        self.backend, self.target, self.logins, self.owner = backend, target, logins, owner
        self.stores: list[Store] = [owner]

    def url(self, role: str | None = None) -> str:
        if self.backend == "sqlite":
            return self.target
        url = pg_url(self.target)
        return url + (f"%20-crole%3D{role}" if role else "")

    def as_(self, person: str) -> Store:
        """The store as ``person``'s login."""
        if self.backend == "sqlite":
            store = open_store(self.target, login=self.logins[person])
        else:
            store = open_store(self.url(self.logins[person]))
        self.stores.append(store)
        return store

    def raw(self, person: str | None = None) -> Raw:
        raw = Raw(self.backend, self.target)
        if person and self.backend == "postgres":
            raw.conn.execute(f"SET ROLE {self.logins[person]}")
        return raw


def import_item(store: Store, tmp: Path, ref: str = REF) -> int:
    src = tmp / f"i-{uuid.uuid4().hex[:6]}.jsonl"
    src.write_text(json.dumps({"id": "r-1", "output": "an answer", "human": [
        {"reviewer": "ana", "scores": {"accuracy": 6}}]}) + "\n")
    import_file(store, src, ref)
    return int(store.queue.queue_page("triage", rubric_ref=ref)[0].item_pk)


def two_signoffs(store: Store) -> None:
    from rubrics.library import bundled_paths
    from rubrics.loader import load_rubric_text

    text = next(p for p in bundled_paths() if p.stem == "general-quality").read_text()
    text = text.replace("id: general-quality", "id: two-signoffs").replace(
        "  reason_margin: 2", "  reason_margin: 2\n  safety_signoffs: 2")
    store.rubrics.add_rubric(load_rubric_text(text, "two.yaml"), text)


def setup_team(owner: Store, logins: dict[str, str], tmp: Path) -> dict[str, Any]:
    owner.roles.add_reviewer("lee", "lead")  # the first lead: bound to the owner's login
    owner.roles.add_reviewer("ana", "reviewer", login=logins["ana"])
    owner.roles.add_reviewer("mal", "reviewer", login=logins["mal"])
    for name, who in (("sam1", "sam"), ("sam2", "sam"), ("sue", "sue")):
        owner.roles.add_reviewer(name, "safety", login=logins[who])
    pk = import_item(owner, tmp)
    two_signoffs(owner)
    return {"pk": pk, "two_pk": import_item(owner, tmp, TWO)}


def pg_people(stack: ExitStack, tag: str) -> dict[str, str]:
    """A login per person, members of an application role with ``db roles``' grants (applied
    by the owner), taken by the test role with ``SET ROLE``; all dropped afterwards."""
    import psycopg

    plain = plain_pg()
    logins = {p: f"g_{p}_{tag}" for p in PEOPLE}
    admin = psycopg.connect(plain, autocommit=True)
    for login in logins.values():
        admin.execute(f"CREATE ROLE {login} LOGIN")
        admin.execute(f"GRANT {login} TO CURRENT_USER")

    def drop() -> None:
        for role in [*logins.values(), f"g_app_{tag}"]:
            admin.execute(f"DROP ROLE IF EXISTS {role}")  # its grants went with the schema
        admin.close()

    stack.callback(drop)
    return logins


def make_team(backend: str, tmp: Path, stack: ExitStack, skip: tuple[str, ...] = ()) -> tuple[Team, dict[str, Any]]:
    name = f"t{uuid.uuid4().hex[:6]}"
    if backend == "sqlite":
        logins = {p: f"{p}-login" for p in PEOPLE}
        target = str(tmp / f"{name}.db")
        owner = open_without(target, skip)
    else:
        logins = pg_people(stack, name)
        target = stack.enter_context(pg_schema())
        owner = open_without(pg_url(target), skip)
        owner.roles.apply_team_roles(owner.roles.team_roles(f"g_app_{name}", list(logins.values())))
    t = Team(backend, target, logins, owner)
    def close_stores() -> None:
        for s in t.stores:
            s.close()
    stack.callback(close_stores)
    return t, setup_team(owner, logins, tmp)


def raw_ok(t: Team, person: str | None, sql: str) -> bool:
    """Whether ``sql`` as ``person`` (PostgreSQL: their login) is accepted."""
    raw = t.raw(person)
    try:
        raw.run(sql)
        return True
    except refused(t.backend):
        return False
    finally:
        raw.close()
