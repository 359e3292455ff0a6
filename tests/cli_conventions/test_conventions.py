"""The command line's conventions: --version, -h, shell completion, --format json on the listing
and report commands, and `rubric list/show --db` seeing the store's registered rubrics."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest

from reviewer.store import open_store
from rubrics.loader import load_rubric_text
from tests.cli import run_cli
from tests.store.conftest import pg_schema_url

TEAM = """id: team-rubric
version: 1.2.0
name: "Team rubric \\e[31mred \\x9b1m"
owner: tests
description: A rubric only this store knows.
scale: {min: 1, max: 5}
dimensions:
  - id: helpful
    name: Helpful
    description: The answer helps.
    method: llm_judge
    weight: 1.0
    threshold: 60
    prompt: Does {output} help with {input}?
    anchors:
      - {range: [1, 2], label: Unhelpful, description: It does not.}
      - {range: [3, 5], label: Helpful, description: It does.}
"""


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A store holding one registered rubric of its own, on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        target = str(tmp_path / "team.db")
        assert open_store(target).rubrics.add_rubric(load_rubric_text(TEAM, "team.yaml"), TEAM)
        yield target
    else:
        for target in pg_schema_url():
            assert open_store(target).rubrics.add_rubric(load_rubric_text(TEAM, "team.yaml"), TEAM)
            yield target


def test_version_and_short_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--version"], capsys)
    assert (code, out) == (0, f"rubricate {version('rubricate')}\n")
    code, out, _ = run_cli(["-h"], capsys)
    assert code == 0 and "Usage:" in out and "rubric" in out
    code, out, _ = run_cli(["rubric", "list", "-h"], capsys)  # inherited by every subcommand
    assert code == 0 and "--format" in out and "--db" in out


def test_shell_completion_completes_commands(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run_cli(["--show-completion", "bash"], capsys)
    assert code == 0 and "_RUBRICATE_COMPLETE=complete_bash" in out
    monkeypatch.setenv("_RUBRICATE_COMPLETE", "complete_bash")
    monkeypatch.setenv("COMP_WORDS", "rubricate rubric sh")
    monkeypatch.setenv("COMP_CWORD", "2")
    code, out, _ = run_cli([], capsys)
    assert (code, out.split()) == (0, ["show"])


def test_rubric_list_with_db_shows_registered_beside_bundled(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["rubric", "list"], capsys)
    assert code == 0 and "team-rubric" not in out and "general-quality@1.0.0" in out
    code, out, _ = run_cli(["rubric", "list", "--db", db], capsys)
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("team-rubric@1.2.0"))
    assert "\x1b" not in line and "\x9b" not in line and "(registered)" in line  # the name is data: shown safe
    assert "general-quality@1.0.0" in out
    code, out, _ = run_cli(["rubric", "list", "--db", db, "--format", "json"], capsys)
    rows = {r["ref"]: r for r in json.loads(out)}
    assert rows["team-rubric@1.2.0"] == {
        "ref": "team-rubric@1.2.0", "id": "team-rubric", "version": "1.2.0", "name": "Team rubric \x1b[31mred \x9b1m",
        "dimensions": 1, "weighted_dimensions": 1, "content_hash": load_rubric_text(TEAM, "team.yaml").content_hash,
        "bundled": False, "registered": True}
    assert "\x1b" not in out and "\x9b" not in out  # escaped in the JSON text, intact once parsed
    assert rows["general-quality@1.0.0"]["bundled"] is True


def test_rubric_show_with_db_finds_the_registered_version(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["rubric", "show", "team-rubric"], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "team-rubric" in err
    code, out, _ = run_cli(["rubric", "show", "team-rubric", "--db", db], capsys)
    assert code == 0 and "team-rubric@1.2.0" in out and "helpful" in out and "\x1b" not in out
    code, out, _ = run_cli(["rubric", "show", "team-rubric@1.2.0", "--db", db, "--format", "json"], capsys)
    data = json.loads(out)
    assert (data["ref"], data["from"], data["owner"]) == ("team-rubric@1.2.0", "registered", "tests")
    assert [d["id"] for d in data["dimensions"]] == ["helpful"] and data["dimensions"][0]["weight"] == 1.0
    code, out, _ = run_cli(["rubric", "show", "general-quality", "--db", db, "--format", "json"], capsys)
    assert json.loads(out)["from"] == "bundled"
    code, _, err = run_cli(["rubric", "show", "no-such", "--db", db], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "team-rubric@1.2.0" in err


def test_diff_and_dimensions_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(TEAM, encoding="utf-8")
    new.write_text(TEAM.replace("version: 1.2.0", "version: 1.2.1").replace("weight: 1.0\n    threshold: 60",
                                                                               "weight: 1.0\n    threshold: 70"))
    code, out, _ = run_cli(["rubric", "diff", str(old), str(new), "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 1 and data["enough"] is False and data["required"] in ("minor", "major")
    assert [c["path"] for c in data["changes"]] == ["dimensions.helpful.threshold"]
    code, out, _ = run_cli(["rubric", "dimensions", "--format", "json"], capsys)
    refs = json.loads(out)
    assert code == 0 and len(refs) == 10 and refs[0]["id"] == "accuracy" and refs[0]["weight"] == 0.15


def test_reviewer_list_as_json_and_a_bad_format_refused(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["reviewer", "add", "ana", "--role", "lead", "--db", db], capsys)[0] == 0
    code, out, _ = run_cli(["reviewer", "list", "--db", db, "--format", "json"], capsys)
    rows = json.loads(out)
    assert code == 0 and [(r["reviewer"], r["roles"]) for r in rows] == [("ana", ["lead"])]
    for argv in (["reviewer", "list", "--db", db], ["rubric", "list"], ["rubric", "dimensions"]):
        code, out, err = run_cli([*argv, "--format", "yaml"], capsys)
        assert (code, out) == (1, "") and err.strip() == "error: --format 'yaml': use table or json"
    # a judge run prints its progress, not JSON: --format json is for --report and --dry-run only
    code, out, err = run_cli(["judge", "--rubric", "team-rubric@1.2.0", "--format", "json", "--db", db], capsys)
    assert (code, out) == (1, "") and len(err.strip().splitlines()) == 1 and "--dry-run" in err
