"""``rubricate reviewer remove|list`` and ``rubricate db roles``: who may do what in a team."""

from __future__ import annotations

from typing import Annotated

import typer

from reviewer.cli import DbOption, app
from reviewer.cli.data_cmds import _store, reviewer_app
from reviewer.cli.output import FormatOption, check_format, emit_json
from reviewer.safetext import safe_line

db_app = typer.Typer(help="Database administration for a team.\n\nExample: rubricate db roles --db postgresql://owner@host/rubricate",
                     no_args_is_help=True)
app.add_typer(db_app, name="db")


@reviewer_app.command("remove")
def reviewer_remove(
    name: Annotated[str, typer.Argument(help="Reviewer name.")],
    role: Annotated[str, typer.Option(help="reviewer, safety or lead.")],
    db: DbOption = None,
) -> None:
    """Take a role from a reviewer (only a lead may; the last lead stays).

    Example: rubricate reviewer remove ben --role safety
    """
    roles = _store(db).roles.remove_role(name, role)
    typer.echo(safe_line(f"{name}: {', '.join(sorted(roles)) or 'no role'}"))


@reviewer_app.command("list")
def reviewer_list(db: DbOption = None, fmt: FormatOption = "table") -> None:
    """Every reviewer with their roles and the login their name is bound to.

    Example: rubricate reviewer list --format json
    """
    check_format(fmt)
    if fmt == "json":
        emit_json([{"reviewer": name, "roles": sorted(roles), "login": login}
                   for name, roles, login in _store(db).roles.reviewers()])
        return
    for name, roles, login in _store(db).roles.reviewers():  # old rows may hold any text: shown safe
        typer.echo("\t".join(safe_line(x) for x in (name, ",".join(sorted(roles)) or "-", login or "-")))


@db_app.command("roles")
def db_roles(
    db: DbOption = None,
    app_role: Annotated[str, typer.Option("--app-role", help="The group role people's logins belong to.")] = "rubricate_app",
    login: Annotated[list[str] | None, typer.Option("--login", help="A person's login to create in the app role (repeatable).")] = None,
    apply: Annotated[bool, typer.Option("--apply", help="Run the statements now (as the tables' owner).")] = False,
) -> None:
    """Print (or apply) the PostgreSQL grants for a team: an application role that owns nothing,
    may SELECT and INSERT history but never UPDATE, DELETE or TRUNCATE it, and a login per person.

    Example: rubricate db roles --db postgresql://owner@db/rubricate --login ana --login ben --apply
    """
    store = _store(db)
    statements = store.roles.team_roles(app_role, list(login or []))
    if apply:
        store.roles.apply_team_roles(statements)
        typer.echo(safe_line(f"applied {len(statements)} statements: role {app_role}" +
                             (f", logins {', '.join(login or [])}" if login else "")), err=True)
        return
    for stmt in statements:
        typer.echo(stmt + ";")
