"""A team on each backend with every migration, the state the attacks aim at, and a write as
ana's login (test modules import these, never one another)."""

from __future__ import annotations

import json
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from reviewer.services.importing import import_file
from reviewer.store import open_store
from tests.hostile.dbs import REF, Raw, open_without, pg_schema, pg_url, refused
from tests.hostile.team import Team, pg_people, setup_team

NEW = "0010e_team_writes"


def team_state(t: Team, tmp: Path) -> dict[str, Any]:
    """What the attacks aim at: an item with an open flag, mal's live claim and active
    assignment, a cached judge reply, a queue setting, and a name that came with an import."""
    info = setup_team(t.owner, t.logins, tmp)
    src = tmp / f"ivy-{uuid.uuid4().hex[:6]}.jsonl"
    src.write_text(json.dumps({"id": "ivy-1", "output": "an answer ivy scored elsewhere",
                               "judge": {"model": "m", "scores": {"accuracy": 7}},
                               "human": [{"reviewer": "ivy", "scores": {"accuracy": 4}}]}) + "\n")
    import_file(t.owner, src, REF)
    info["flag"] = t.owner.safety.flag_item(info["pk"], "lee")
    claim = person_store(t, "mal").queue.claim_next("triage", "mal")
    assert claim is not None
    info["mal_pk"] = claim.item_pk
    t.owner.runs.judge_cache_put_many({"k1": {"score": 3, "rationale": "fine"}})
    t.owner.queue.set_queue_settings("triage", None, reviewers_per_item=2)
    return info


def closer(t: Team) -> Any:
    """Closes every store the team opened."""
    def close() -> None:
        for store in t.stores:
            store.close()
    return close


def person_store(t: Team, who: str) -> Any:
    """``who``'s store: on a database the owner has not migrated yet, opened without the new
    migration (a person's login cannot run it)."""
    if t.backend == "sqlite" or NEW in migrations_of(t):
        return t.as_(who)
    store = open_without(t.url(t.logins[who]), (NEW,))
    t.stores.append(store)
    return store


def attack_as_ana(t: Team, sql: str) -> bool:
    """Whether ``sql`` as ana's login is accepted and changes a row (rolled back either way)."""
    raw = t.raw("ana")
    try:
        return raw.run(sql) > 0
    except refused("postgres"):
        return False
    finally:
        raw.close()


def migrations_of(t: Team) -> set[str]:
    raw = Raw("postgres", t.target)
    try:
        return {r[0] for r in raw.conn.execute("SELECT name FROM schema_migrations").fetchall()}
    finally:
        raw.close()


def fresh_team(tmp: Path, stack: ExitStack) -> tuple[Team, dict[str, Any]]:
    name = f"f{uuid.uuid4().hex[:6]}"
    logins = pg_people(stack, name)
    schema = stack.enter_context(pg_schema())
    owner = open_store(pg_url(schema))
    owner.roles.apply_team_roles(owner.roles.team_roles(f"g_app_{name}", list(logins.values())))
    t = Team("postgres", schema, logins, owner)
    stack.callback(closer(t))
    return t, team_state(t, tmp)


def full_team(backend: str, tmp: Path, stack: ExitStack) -> tuple[Team, dict[str, Any]]:
    """A team with every migration: on SQLite its people are OS logins the store acts as."""
    if backend == "postgres":
        return fresh_team(tmp, stack)
    logins = {p: f"{p}-login" for p in ("ana", "mal", "sam", "sue")}
    db = str(tmp / f"t{uuid.uuid4().hex[:6]}.db")
    t = Team("sqlite", db, logins, open_store(db))
    stack.callback(closer(t))
    return t, team_state(t, tmp)
