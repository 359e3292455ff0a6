"""A refusal whose mend is a command: the store says what is wrong (a typed error, no command
in its text), and the front ends add the command to run — the CLI's error line and the TUI's
write report read as they always did."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from reviewer.errors import MissingRole, NoDatabase, NoLead, UnknownRubric
from reviewer.locations import os_login
from reviewer.services.importing import import_file
from reviewer.store import Store, open_store
from reviewer.tui.gateway import Gateway
from reviewer.tui.messages import WriteFailed
from tests.cli import run_cli

REF = "general-quality@1.0.0"
#: A rubricate command in a message (the PostgreSQL test login is itself called rubricate).
COMMAND = re.compile(r"rubricate (reviewer|rubric|review|db|import)")
GRANT = "`rubricate reviewer add bo --role lead` (by a lead) grants it"


def test_the_store_names_no_command(store: Store, tmp_path: Path) -> None:
    with pytest.raises(NoLead) as no_lead:
        store.roles.add_reviewer("ana")
    store.roles.add_reviewer("lee", "lead")
    with pytest.raises(UnknownRubric) as unknown:
        store.rubrics.get_rubric("nope@1.0.0")
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"id": "a", "output": "an answer"}) + "\n")
    import_file(store, path, REF)
    pk = store.queue.queue_page("triage", REF)[0].item_pk
    with pytest.raises(MissingRole) as missing:  # an adjudication is a lead's
        store.scores.add_human_score(pk, "accuracy", "lee", 5, kind="adjudication")
        store.scores.add_human_score(pk, "accuracy", "bo", 5, kind="adjudication")
    with pytest.raises(NoDatabase) as no_db:  # a reading command's open of a path with no database
        open_store(str(tmp_path / "typo.db"), existing=True)
    for refused in (no_lead.value, unknown.value, missing.value, no_db.value):
        assert not COMMAND.search(str(refused)), str(refused)
    assert (missing.value.reviewer, missing.value.role) == ("bo", "lead")


def test_the_cli_line_carries_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "cli.db")
    code, _, err = run_cli(["reviewer", "add", "ana", "--db", db], capsys)
    assert code == 1 and err.strip() == ("error: this store has no lead yet: make the first one with "
                                         f"`rubricate reviewer add NAME --role lead` (bound to your login {os_login()})")
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"id": "a", "output": "an answer"}) + "\n")
    code, _, err = run_cli(["import", str(path), "--rubric", "nope@1.0.0", "--db", db], capsys)
    assert code == 1 and err.strip() == ("error: unknown rubric nope@1.0.0; register it with `rubricate rubric add "
                                         "FILE` or use a bundled one (`rubricate rubric list`)")


def test_the_tui_write_report_carries_the_command(store: Store) -> None:
    posted: list[WriteFailed] = []
    done = threading.Event()

    def post(message: Any) -> None:
        posted.append(message)
        done.set()

    def refuse(_store: Store) -> None:
        raise MissingRole("bo", "lead")

    gateway = Gateway(post, store, None)
    with pytest.raises(MissingRole):
        gateway.write("score", refuse).future.result(timeout=30)
    assert done.wait(30)
    assert posted[0].error == f"UserError: bo does not hold the lead role; {GRANT}"
