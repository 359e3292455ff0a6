"""Every command and group of the CLI has help text with an example — including commands added later."""

from __future__ import annotations

from typing import Any, get_args

import typer.main

from reviewer.cli import DbOption, _register, app


def _walk(cmd: Any, path: str) -> list[tuple[str, Any]]:
    out = [(path, cmd)]
    if hasattr(cmd, "commands"):  # a group (typer's click types are not always click's own)
        for name, sub in cmd.commands.items():
            out += _walk(sub, f"{path} {name}")
    return out


def test_every_command_has_help_with_an_example() -> None:
    _register()
    commands = _walk(typer.main.get_command(app), "rubricate")
    assert len(commands) >= 12
    missing = [path for path, cmd in commands if "Example" not in (cmd.help or "")]
    assert missing == []


def test_the_check_catches_a_command_without_an_example() -> None:
    extra = typer.Typer(help="Example: x bare")

    @extra.command()
    def bare() -> None:
        """No example here."""

    @extra.command()
    def other() -> None:
        """Example: other."""

    commands = _walk(typer.main.get_command(extra), "x")
    assert [p for p, c in commands if "Example" not in (c.help or "")] == ["x bare"]


def test_every_db_option_is_the_one_dboption() -> None:
    _register()
    commands = _walk(typer.main.get_command(app), "rubricate")
    # `rubricate demo` builds its own database (demo.db by default), so its --db says so
    dbs = {path: p for path, cmd in commands for p in getattr(cmd, "params", [])
           if "--db" in p.opts and path != "rubricate demo"}
    assert {"rubricate review", "rubricate judge", "rubricate calibrate", "rubricate import"} <= set(dbs)
    assert {(p.help, p.default) for p in dbs.values()} == {(get_args(DbOption)[1].help, None)}
