"""A reviewer name that came with imported pair verdicts is bound to no login, like one that came
with imported scores: nobody signs with it until a lead binds it (the store's check on both
backends, and on PostgreSQL the database's own trigger)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest
from sqlalchemy import text

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from tests.hostile.dbs import REF
from tests.hostile.team_attacks import attack_as_ana, full_team
from tests.pairs.helpers import items, pair, write


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_name_that_came_with_pair_verdicts_is_bound_to_no_login(backend: str, tmp_path: Path) -> None:
    with ExitStack() as stack:
        t, _ = full_team(backend, tmp_path, stack)
        src = write(tmp_path / "pairs.jsonl", [*items("iris-x", "iris-y", group="gi"),
                                               pair("iris-x", "iris-y", human=[("iris", "a", None)])])
        import_file(t.owner, src, REF)
        with t.owner.db.read() as conn:
            pk = {str(i): int(k) for i, k in conn.execute(text("SELECT item_id, pk FROM item WHERE grp = 'gi'"))}
        with pytest.raises(UserError, match="iris came with imported scores and is bound to no login"):
            t.as_("mal").scores.add_pair_choice(pk["iris-x"], "iris", pk["iris-y"])
        assert "iris" not in {n for n, _, _ in t.owner.roles.reviewers()}
        if backend == "postgres":  # the login's own INSERT claiming the name, past the store
            assert not attack_as_ana(t, "INSERT INTO reviewer (name, roles, login, created_at) "
                                  f"VALUES ('iris', 'reviewer', '{t.logins['ana']}', CURRENT_TIMESTAMP)")
            assert attack_as_ana(t, "INSERT INTO reviewer (name, roles, login, created_at) "
                              f"VALUES ('iris2', 'reviewer', '{t.logins['ana']}', CURRENT_TIMESTAMP)")
