"""``rubricate serve``: the review app in a browser behind a link; ``serve link|revoke|links``
make, revoke and list the links (a lead's acts). Each visitor's session is a process of its own
(:func:`reviewer.tui.run.session`)."""

from __future__ import annotations

from typing import Annotated

import typer

from reviewer.cli import DbOption, app
from reviewer.safetext import safe_line

serve_app = typer.Typer(
    help="The review app in a browser, for people with a link.\n\n"
    "Example: rubricate serve --db team.db   then   rubricate serve link ana --db team.db",
    invoke_without_command=True,
)
app.add_typer(serve_app, name="serve")
#: Where ``serve`` listens unless told: this machine only.
DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8765


@serve_app.callback()
def serve(
    ctx: typer.Context,
    db: DbOption = None,
    host: Annotated[str, typer.Option(help="Address to listen on; beyond loopback only with --behind-proxy.")] = DEFAULT_HOST,
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = DEFAULT_PORT,
    behind_proxy: Annotated[bool, typer.Option(
        "--behind-proxy", help="A reverse proxy with TLS is in front: allow a non-loopback --host.")] = False,
) -> None:
    """Serve the review app to browsers: one session per visitor, each opened by a link
    (rubricate serve link NAME) and running as that person with their roles. Plain HTTP on
    loopback unless --host says otherwise (then put a reverse proxy with TLS in front).

    Example: rubricate serve --db team.db --port 8765
    """
    if ctx.invoked_subcommand is not None:
        return
    import os

    from reviewer.cli.serve_web import check_host, run
    from reviewer.locations import LINK_TOKEN_ENV, default_db
    from reviewer.store import open_store

    check_host(host, behind_proxy)
    os.environ.pop(LINK_TOKEN_ENV, None)  # the server acts for nobody: each session gets its own link
    target = db or default_db()
    store = open_store(target, existing=True)
    try:
        run(store, target, host, port, behind_proxy)
    finally:
        store.close()


@serve_app.command("link")
def serve_link(
    name: Annotated[str, typer.Argument(help="The reviewer the link acts for.")],
    db: DbOption = None,
    expires: Annotated[str, typer.Option(help="How long the link lives: 30m, 12h, 7d (at most 365d).")] = "7d",
    url: Annotated[str, typer.Option(help="The server's address as the person reaches it.")] =
        f"http://{DEFAULT_HOST}:{DEFAULT_PORT}",
) -> None:
    """Print a new link for NAME (a lead's act). The link holds a secret token, shown only now
    (the store keeps its hash); it replaces NAME's earlier link. Send it as you would a password.

    Example: rubricate serve link ana --expires 7d --url https://review.example.org
    """
    from reviewer.store import open_store
    from reviewer.store.links import parse_expires

    span = parse_expires(expires)
    store = open_store(db, existing=True)
    try:
        token = store.links.add_link(name, span)
    finally:
        store.close()
    typer.echo(f"{url.rstrip('/')}/l/{token}")
    typer.echo(safe_line(f"a link for {name}, live for {expires}; revoke it with: rubricate serve revoke {name}"),
               err=True)


@serve_app.command("revoke")
def serve_revoke(
    name: Annotated[str, typer.Argument(help="The reviewer whose links end now.")],
    db: DbOption = None,
) -> None:
    """End NAME's live links at once (a lead's act): a session already open writes nothing more
    (each write checks the link), and the link opens no new one.

    Example: rubricate serve revoke ana
    """
    from reviewer.store import open_store

    store = open_store(db, existing=True)
    try:
        n = store.links.revoke_links(name)
    finally:
        store.close()
    typer.echo(safe_line(f"{name}: {n} live link{'s' if n != 1 else ''} revoked"))


@serve_app.command("links")
def serve_links(db: DbOption = None) -> None:
    """Every link: name, made, expires, revoked (never a token).

    Example: rubricate serve links
    """
    from reviewer.store import open_store

    store = open_store(db, existing=True)
    try:
        rows = store.links.links()
    finally:
        store.close()
    for name, made, ends, revoked in rows:
        typer.echo("\t".join(safe_line(x) for x in (
            name, made.isoformat(timespec="seconds"), ends.isoformat(timespec="seconds"),
            revoked.isoformat(timespec="seconds") if revoked else "-")))
