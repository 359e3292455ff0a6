"""Every fault a command can meet, as one line with what to do, and its exit code.

Exit codes (README "Exit codes"): 0 done, 1 bad input or a refused request, 2 usage (an unknown
option, a missing argument), 3 the database is unavailable (locked past the timeout, read-only,
disk full, server unreachable), 130 interrupted. A traceback is printed only with
``RUBRICATE_DEBUG=1``; otherwise an unexpected error is one line too (exit 1).

Usage errors are matched against the click that typer really uses: the pinned typer vendors its
own copy (``typer._click``), so ``click.ClickException`` never matches them.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any

from reviewer.safetext import safe_line

USAGE, BAD_INPUT, DB_UNAVAILABLE, INTERRUPTED = 2, 1, 3, 130

# (fragment of the driver's message, what it means, what to do) — SQLite, then PostgreSQL.
_DB_FAULTS: tuple[tuple[str, str, str], ...] = (
    ("database is locked", "the database is locked by another process",
     "try again when it has finished (RUBRICATE_DB_TIMEOUT sets how many seconds to wait)"),
    ("database table is locked", "the database is locked by another process",
     "try again when it has finished (RUBRICATE_DB_TIMEOUT sets how many seconds to wait)"),
    ("lock timeout", "the database is locked by another connection",
     "try again when it has finished"),
    ("readonly database", "the database is read-only",
     "make the file and its folder writable, or use another --db"),
    ("unable to open database", "the database file cannot be opened",
     "check that the file and its folder exist and are readable and writable, or use another --db"),
    ("database or disk is full", "the disk holding the database is full", "free some space and run it again"),
    ("disk i/o error", "the disk holding the database failed to read or write",
     "check the disk (full, removed, read-only?) and run it again"),
    ("file is not a database", "the file is not a rubricate database",
     "point --db at a rubricate database (or a new path to create one)"),
    ("database disk image is malformed", "the database file is damaged", "restore it from a backup"),
    ("connection refused", "the database server refused the connection",
     "start the server or check the host and port in --db / RUBRICATE_DB"),
    ("could not connect", "the database server cannot be reached",
     "start the server or check the host and port in --db / RUBRICATE_DB"),
    ("connection is bad", "the database server cannot be reached",
     "start the server or check the host and port in --db / RUBRICATE_DB"),
    ("timeout expired", "the database server did not answer in time",
     "check the server and the network, then run it again"),
    ("could not translate host name", "the database server's host name is unknown",
     "check the host in --db / RUBRICATE_DB"),
    ("name or service not known", "the database server's host name is unknown",
     "check the host in --db / RUBRICATE_DB"),
    ("password authentication failed", "the database refused the login",
     "check the user and password in --db / RUBRICATE_DB"),
    ("does not exist", "the database named in the URL does not exist",
     "create it (createdb) or fix the name in --db / RUBRICATE_DB"),
    ("server closed the connection", "the database server closed the connection",
     "check the server, then run it again"),
    ("no space left", "the disk holding the database is full", "free some space and run it again"),
    ("terminating connection", "the database server closed the connection",
     "check the server, then run it again"),
    ("read-only transaction", "the database is read-only", "connect to a writable server"),
    ("permission denied", "the database refused the operation for this login",
     "ask whoever runs the database for the grants (rubricate db roles)"),
)


def debug() -> bool:
    """``RUBRICATE_DEBUG=1``: let tracebacks through."""
    return os.environ.get("RUBRICATE_DEBUG", "") not in ("", "0")


def say(text: str) -> None:
    """Print an error to standard error, made safe: each line of ``text`` (a file with several
    problems has one line per problem) with its control characters shown as placeholders."""
    for line in text.splitlines() or [""]:
        print(safe_line(line), file=sys.stderr, flush=True)


def db_label(argv: list[str] | None = None) -> str:
    """The database the command was given (``--db``, else ``$RUBRICATE_DB``, else the default),
    with any password hidden."""
    args = sys.argv[1:] if argv is None else argv
    db = None
    for i, a in enumerate(args):
        if a == "--db" and i + 1 < len(args):
            db = args[i + 1]
        elif a.startswith("--db="):
            db = a.split("=", 1)[1]
    db = db or os.environ.get("RUBRICATE_DB") or "the default database"
    if "://" in db:
        try:
            from sqlalchemy.engine import make_url

            return make_url(db).render_as_string(hide_password=True)
        except Exception:
            return db.split("@")[-1]
    return db


def explained(exc: Exception) -> str:
    """A refusal's one line for a person: what the store said, and for a typed refusal the
    command that mends it (the store names no command; both front ends show this)."""
    from reviewer.errors import (
        BrokenStoredRubric,
        MissingRole,
        NoDatabase,
        NoLead,
        StaleFlag,
        UnboundName,
        UnknownRubric,
    )

    if isinstance(exc, NoLead):
        return (f"this store has no lead yet: make the first one with "
                f"`rubricate reviewer add NAME --role lead` (bound to your login {exc.login})")
    if isinstance(exc, MissingRole):
        return f"{exc}; `rubricate reviewer add {exc.reviewer} --role {exc.role}` (by a lead) grants it"
    if isinstance(exc, UnboundName):
        return f"{exc}; a lead binds it to its person: `rubricate reviewer add {exc.reviewer} --login LOGIN`"
    if isinstance(exc, UnknownRubric):
        return f"{exc}; register it with `rubricate rubric add FILE` or use a bundled one (`rubricate rubric list`)"
    if isinstance(exc, BrokenStoredRubric):
        return f"{exc}: register a fixed version with `rubricate rubric add`"
    if isinstance(exc, NoDatabase):
        return f"{exc}, or make one with `rubricate import`"
    if isinstance(exc, StaleFlag):
        return f"{exc} (rubricate review --queue safety)"
    return str(exc)


def _db_message(text: str) -> tuple[str, str] | None:
    low = text.lower()
    for fragment, what, todo in _DB_FAULTS:
        if fragment in low:
            return what, todo
    return None


def _is_db_error(exc: BaseException) -> bool:
    mod = type(exc).__module__
    if mod.startswith(("sqlalchemy", "psycopg", "sqlite3")):
        return True
    import sqlite3

    return isinstance(exc, sqlite3.Error)


def classify(exc: BaseException, db: str | None = None) -> tuple[int, str] | None:
    """(exit code, the one line) for a fault we know, or None for a bug. ``db`` names the database
    in a database fault (default: the one on the command line)."""
    from typer._click import exceptions as cx

    from reviewer.errors import UserError
    from rubrics.errors import RubricError

    if isinstance(exc, cx.UsageError):
        ctx = exc.ctx
        where = ctx.command_path if ctx is not None else "rubricate"
        return USAGE, f"error: {exc.format_message()} (see `{where} --help`)"
    if isinstance(exc, cx.ClickException):
        return exc.exit_code or BAD_INPUT, f"error: {exc.format_message()}"
    if isinstance(exc, UserError):
        return BAD_INPUT, f"error: {explained(exc)}"
    if isinstance(exc, RubricError):
        return BAD_INPUT, f"error: {exc}"
    if _is_db_error(exc):
        orig = getattr(exc, "orig", None) or exc
        names = {type(exc).__name__, type(orig).__name__}
        first = (str(orig).strip().splitlines() or [""])[0]
        if names & {"IntegrityError", "RaiseException", "InsufficientPrivilege"}:
            # a trigger, a constraint or a missing grant said no: a refused request, not an outage
            todo = ("; ask whoever runs the database for the grants (rubricate db roles)"
                    if "InsufficientPrivilege" in names else "")
            return BAD_INPUT, f"error: the database refused the change: {first}{todo}"
        if not names & {"OperationalError", "InterfaceError", "DatabaseError", "ConnectionTimeout", "TimeoutError",
                        "DisconnectionError", "ConnectionFailure", "ReadOnlySqlTransaction"}:
            return None  # a programming error is a bug
        what, todo = _db_message(str(orig)) or ("the database cannot be used",
                                                "check that it is reachable and writable, then run it again")
        label = db_label(["--db", db]) if db else db_label()
        return DB_UNAVAILABLE, f"error: {label}: {what}; {todo}"
    if isinstance(exc, OSError):
        name = f"{exc.filename}: " if exc.filename is not None else ""
        reason = exc.strerror or str(exc)
        if exc.errno == errno.ENOSPC:
            return BAD_INPUT, f"error: {name}no space left on the disk for the output; free some space and run it again"
        if isinstance(exc, IsADirectoryError):
            return BAD_INPUT, f"error: {name}is a directory; give a regular file"
        if isinstance(exc, FileNotFoundError):
            return BAD_INPUT, f"error: {name}no such file or folder; check the path"
        if isinstance(exc, PermissionError):
            return BAD_INPUT, f"error: {name}permission denied; check the file's permissions"
        return BAD_INPUT, f"error: {name}{reason}; check the path and the disk"
    if isinstance(exc, UnicodeError):
        return BAD_INPUT, f"error: text that is not valid UTF-8 ({exc}); save the file as UTF-8"
    if isinstance(exc, RecursionError):
        return BAD_INPUT, "error: the input is nested too deeply; flatten it"
    if isinstance(exc, MemoryError):
        return BAD_INPUT, "error: out of memory reading the input; is it a regular file of sensible size?"
    return None


def report(exc: BaseException) -> int:
    """Print the one line for ``exc`` and return its exit code (an unknown error: exit 1)."""
    known = classify(exc)
    if known is None:
        first = (str(exc).strip().splitlines() or [""])[0]
        say(f"error: unexpected {type(exc).__name__}: {first} — this is a bug in rubricate; "
            "run again with RUBRICATE_DEBUG=1 for the traceback and report it")
        return BAD_INPUT
    code, line = known
    # A refused file lists every problem (rubric rules, bad import lines, settings faults), one
    # per line by design: each is its own safe "error:" line rather than one line joined by ␤.
    for n, part in enumerate(line.splitlines() or [line]):
        say(part if n == 0 or part.startswith(("error: ", "... and ")) else f"error: {part}")
    return code


def quiet_broken_pipe() -> None:
    """``rubricate export | head``: the reader left; exit without a traceback at shutdown."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def regular_file(path: Any) -> None:
    """Refuse at once anything that is not a regular file (``/dev/zero``, a FIFO, a directory):
    reading one would hang or run out of memory. ``os.stat`` does not open the file."""
    import stat

    from reviewer.errors import UserError

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise UserError(f"{path}: no such file; check the path") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read it ({exc.strerror}); check the path and permissions") from None
    if stat.S_ISREG(mode):
        return
    kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "not a regular file")
    raise UserError(f"{path}: is {kind}; give a regular file")
