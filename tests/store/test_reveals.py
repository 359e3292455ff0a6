"""A blind reveal (``v``) is stored: per person, item and content revision, append-only (the
hostile guard cases cover ``item_reveal`` with every history table), signed like a score. On
SQLite and PostgreSQL; the PostgreSQL logins' grants too."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from reviewer.errors import UserError
from reviewer.store import Store, open_store
from tests.hostile.team import Team, make_team, raw_ok
from tests.store.helpers import CAPITAL, cap_item

REF = "general-quality@1.0.0"


@pytest.fixture(params=["sqlite", "postgres"])
def team(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Team, dict[str, Any]]]:
    """The role tests' team (a lead owning the store, people with logins of their own)."""
    with ExitStack() as stack:
        yield make_team(request.param, tmp_path, stack)


def _item(store: Store, tmp_path: Path, output: str = CAPITAL, update: bool = False) -> int:
    return cap_item(store, tmp_path, output, update, judge={"accuracy": 8})


def test_a_reveal_is_the_persons_on_the_items_revision(store: Store, tmp_path: Path) -> None:
    pk = _item(store, tmp_path)
    assert not store.scores.revealed(pk, "ana") and not store.items.item_view(pk, "ana").revealed
    first = store.scores.add_reveal(pk, "ana")
    assert store.scores.revealed(pk, "ana") and store.items.item_view(pk, "ana").revealed
    assert not store.scores.revealed(pk, "bo") and not store.items.item_view(pk, "bo").revealed  # ana's, not bo's
    assert not store.items.item_view(pk).revealed  # no viewer: nobody's
    assert store.scores.add_reveal(pk, "ana") > first  # a second reveal is a new row, harmless
    _item(store, tmp_path, "Paris is the capital of Germany.", update=True)  # revision 2: new judge scores
    assert not store.scores.revealed(pk, "ana") and not store.items.item_view(pk, "ana").revealed
    with pytest.raises(UserError, match="no item with key"):
        store.scores.add_reveal(pk + 99, "ana")
    assert not store.scores.revealed(pk + 99, "ana")


def test_a_reveal_is_signed_like_a_score(team: tuple[Team, dict[str, Any]]) -> None:
    """mal's login may reveal as mal (on PostgreSQL through ``db roles``' grants), never as ana:
    refused by the store, and on PostgreSQL by the database for a raw INSERT too."""
    t, info = team
    pk = info["pk"]
    mal = t.as_("mal")
    mal.scores.add_reveal(pk, "mal")
    assert mal.scores.revealed(pk, "mal")
    with pytest.raises(UserError, match="may not sign as ana"):
        mal.scores.add_reveal(pk, "ana")
    assert not mal.scores.revealed(pk, "ana")
    raw = t.raw()
    try:
        assert raw.one("SELECT reviewer, actor FROM item_reveal") == ("mal", t.logins["mal"])
    finally:
        raw.close()
    if t.backend == "postgres":
        forged = (f"INSERT INTO item_reveal (item_pk, revision, reviewer, created_at) "
                  f"VALUES ({pk}, 1, 'ana', CURRENT_TIMESTAMP)")
        assert not raw_ok(t, "mal", forged)
        assert raw_ok(t, "ana", forged)


@pytest.mark.parametrize("team", ["postgres"], indirect=True)
def test_postgres_logins_granted_before_the_reveal_table_may_reveal(team: tuple[Team, dict[str, Any]]) -> None:
    """A team whose grants were made before ``0010c_reveals`` (``db roles`` grants table by
    table) may write reveals once the owner has opened the database: the migration grants the
    table to whoever may write scores. Checked first: a table made without that grant refuses
    every reviewer's reveal ("permission denied")."""
    from sqlalchemy import text

    t, info = team
    with t.owner.db.engine.begin() as conn:  # the release before: no reveal table, so no grant on it
        conn.execute(text("DROP TABLE item_reveal"))
        conn.execute(text("DELETE FROM schema_migrations WHERE name = '0010c_reveals'"))
    from reviewer.store.tables import ItemReveal, table_of

    with t.owner.db.engine.begin() as conn:  # the table alone, as a migration without the grant makes it
        table_of(ItemReveal).create(conn)
    with pytest.raises(Exception, match="permission denied"):
        t.as_("mal").scores.add_reveal(info["pk"], "mal")
    with t.owner.db.engine.begin() as conn:
        conn.execute(text("DROP TABLE item_reveal"))
    t.stores.append(open_store(t.url()))  # the owner opens it: the migration runs
    mal = t.as_("mal")
    mal.scores.add_reveal(info["pk"], "mal")
    assert mal.scores.revealed(info["pk"], "mal")
