"""``rubricate review`` and ``rubricate demo``: open the review TUI on a store."""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import typer

from reviewer.cli import DbOption, app
from reviewer.locations import os_login

if TYPE_CHECKING:
    from reviewer.tui.host import ReviewOf


@app.command()
def review(
    db: DbOption = None,
    reviewer: Annotated[str | None, typer.Option(help="Your reviewer name (default: the OS user); another "
                                                  "person's name only for a lead (SQLite).")] = None,
    queue: Annotated[str | None, typer.Option(help="triage, audit or safety (default triage; with --review-of: "
                                                    "only scores given in this queue, default any).")] = None,
    rubric: Annotated[str | None, typer.Option(help="Only items of this rubric, ID@VERSION.")] = None,
    dataset: Annotated[str | None, typer.Option(help="Only items of this dataset.")] = None,
    blind: Annotated[bool, typer.Option("--blind", help="Hide the judge until you have scored (always, in a queue set blind).")] = False,
    review_of: Annotated[str | None, typer.Option("--review-of", help="Leads: walk this person's scores, newest "
                                                  "first; a accepts, x rejects with your score and reason.")] = None,
    since: Annotated[str | None, typer.Option(help="With --review-of: only scores given since then: 7d, 12h, 30m "
                                              "ago, or a UTC date or time (2026-03-01, 2026-03-01T09:00).")] = None,
) -> None:
    """Open the review TUI on a queue.

    Settings, keymap included, are read from the config file: $RUBRICATE_CONFIG, else config.yaml
    in the user config directory (~/.config/rubricate/config.yaml on Linux). Example file:
    "lease_minutes: 15" and "keymap: {item.agree: 'enter,a'}"; `?` in the app lists each binding id.

    Example: rubricate review --queue audit --blind --reviewer ana
    Example: rubricate review --review-of ana --since 7d
    """
    if queue is not None and queue not in ("triage", "audit", "safety"):
        raise typer.BadParameter(f"unknown queue {queue!r}; use triage, audit or safety", param_hint="--queue")
    if since is not None and review_of is None:
        raise typer.BadParameter("--since narrows a lead's walk: give --review-of NAME too", param_hint="--since")
    of = None
    if review_of is not None:
        from reviewer.tui.host import ReviewOf

        of = ReviewOf(review_of, queue, parse_since(since) if since is not None else None)
        check_review_of(db, reviewer or os_login(), review_of, reviewer is not None)
    elif reviewer is not None:  # signing as a name bound to someone else is a lead's act: say so now
        from reviewer.store import open_store

        store = open_store(db, existing=True)
        try:
            store.roles.check_signer(reviewer)
        finally:
            store.close()
    run_tui(db, reviewer or os_login(), queue or "triage", rubric, dataset, blind, of)


#: What ``rubricate review`` and ``demo`` say to run instead when they have no terminal.
REVIEW_ELSEWHERE = ("rubricate review", "serve it to browsers with `rubricate serve --db FILE`")
DEMO_ELSEWHERE = ("rubricate demo", "build the demo database alone with `rubricate demo --build-only` "
                  "and open it later with `rubricate review` in a terminal")


def parse_since(text: str) -> datetime:
    """``--since``: ``7d``, ``12h``, ``30m`` before now, or a UTC date or time (ISO 8601); one
    line otherwise."""
    from datetime import UTC, timedelta

    from reviewer.domain.provenance import as_utc
    from reviewer.errors import UserError

    m = re.fullmatch(r"([1-9][0-9]{0,5})([mhd])", text.strip())
    if m is not None:
        unit = {"m": "minutes", "h": "hours", "d": "days"}[m.group(2)]
        try:
            return datetime.now(UTC) - timedelta(**{unit: int(m.group(1))})
        except OverflowError:
            raise UserError(f"--since {text!r}: that reaches back before the year 1; give a shorter span "
                            "or a UTC date") from None
    try:
        at = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UserError(f"--since {text!r}: give a span back from now (7d, 12h, 30m) or a UTC date or time "
                        "(2026-03-01, 2026-03-01T09:00)") from None
    return as_utc(at)


def check_review_of(db: str | None, lead: str, person: str, named: bool) -> None:
    """Refuse in one line, before the app starts, a review of ``person`` that the store would
    refuse: the acting login is not a lead's (on PostgreSQL the login's roles decide), ``lead``
    (the session's name; ``named``: given with --reviewer) does not hold the lead role or may
    not be signed by this login, ``person`` is the lead or nobody the store knows."""
    from reviewer.errors import UserError
    from reviewer.store import open_store

    store = open_store(db, existing=True)
    try:
        if not store.roles.acting_is_lead():
            raise UserError(f"--review-of: only a lead reviews a reviewer's scores; the login {store.roles.login} "
                            "is not a lead's (a lead gives the role: rubricate reviewer add NAME --role lead)")
        if "lead" not in store.roles.reviewer_roles(lead):
            raise UserError(f"--review-of: {lead} does not hold the lead role; sign as your lead name with --reviewer")
        if named:
            store.roles.check_signer(lead)
        if person == lead:
            raise UserError(f"--review-of {person}: a lead does not review their own scores")
        if not store.roles.reviewer_roles(person) and not store.lead_reviews.walk(person, lead, limit=1):
            raise UserError(f"--review-of {person}: no reviewer of that name and no scores by them; "
                            "rubricate reviewer list names the reviewers")
    finally:
        store.close()


@app.command()
def demo(
    db: Annotated[str | None, typer.Option(
        "--db", help="SQLAlchemy URL or SQLite path (default: $RUBRICATE_DB, else demo.db in the user data dir).")] = None,
    reviewer: Annotated[str | None, typer.Option(help="Your reviewer name (default: the OS user).")] = None,
    build_only: Annotated[bool, typer.Option("--build-only", help="Build the demo database and exit.")] = False,
) -> None:
    """Build a demo database from the bundled demonstration data and open the review TUI on it.

    Example: rubricate demo            (or: make demo)
    """
    from reviewer.demo.build import build_demo
    from reviewer.locations import default_db
    from reviewer.tui.run import need_terminal

    if not build_only:  # before the database is built: nothing is made for an app that cannot start
        need_terminal(*DEMO_ELSEWHERE)
    target = db or default_db("demo.db")
    name = reviewer or os_login()
    summary = build_demo(target, name)
    from reviewer.safetext import safe_line

    typer.echo(safe_line(f"demo database: {target} ({summary})"), err=True)
    if not build_only:
        run_tui(target, name, "triage", None, None, False, elsewhere=DEMO_ELSEWHERE)


def run_tui(db: str | None, reviewer: str, queue: str, rubric: str | None, dataset: str | None,
            blind: bool, review_of: ReviewOf | None = None,
            elsewhere: tuple[str, str] = REVIEW_ELSEWHERE) -> None:
    """Open the store and run the app until the reviewer quits (:func:`reviewer.tui.run.run_app`);
    without a terminal, one line naming what to run instead (``elsewhere``)."""
    from reviewer.tui.run import run_app

    code = run_app(db, reviewer, queue, rubric, dataset, blind, review_of, command=elsewhere)
    if code:
        raise typer.Exit(code)
