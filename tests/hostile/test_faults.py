"""Faults: one line with what to do, and a distinct exit code — 2 usage, 1 bad input, 3 database
unavailable — never a traceback unless ``RUBRICATE_DEBUG=1``; devices, FIFOs and folders refused
at once.

Each case shows the failure without the guard where it can be shown: the vendored click's
exceptions are not ``click.ClickException`` (the old handler never matched them), a FIFO blocks
whoever opens it, ``RUBRICATE_DEBUG=1`` lets the driver's exception through (what used to be the
70–167-line traceback).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from reviewer import faults
from reviewer.cli import main
from reviewer.services.importing import import_file
from reviewer.store import open_store
from tests.cli import run_cli
from tests.hostile.harness import Case, ids, one_line

GQ = "general-quality@1.0.0"
ROOT = Path(__file__).resolve().parents[2]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _exe(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``rubricate ARGS`` in a child process (for cases that would hang or need a clean process)."""
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "reviewer", *args], capture_output=True, text=True,
                          env=full, cwd=str(ROOT), timeout=timeout, check=False)


# --- usage: exit 2 through the click typer really uses ------------------------------------

USAGE = [
    Case("unknown_option", "an unknown option", (["--bogus"],)),
    Case("unknown_command", "an unknown command", (["frobnicate"],)),
    Case("missing_argument", "a missing argument", (["rubric", "show"],)),
    Case("below_minimum", "a value under an option's minimum", (["judge", "--samples", "0"],)),
    Case("not_an_int", "a value of the wrong type", (["judge", "--concurrency", "many"],)),
    Case("bad_choice", "a value outside the choices a command checks", (["export", "--format", "xml"],)),
    Case("missing_required_option", "a required option left out", (["import", "items.jsonl"],)),
    Case("bad_queue", "an unknown queue", (["review", "--queue", "nope"],)),
    Case("subcommand_option", "an unknown option of a subcommand", (["calibrate", "--bogus"],)),
    Case("missing_queue", "queue set without --queue", (["queue", "set"],)),
    Case("reviewer_add_no_name", "reviewer add without a name", (["reviewer", "add"],)),
    Case("option_without_value", "an option given no value", (["export", "--format"],)),
]


@pytest.mark.parametrize("case", USAGE, ids=ids(USAGE))
def test_usage_errors_are_one_line_exit_2(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    """Proves: every usage error is one line naming the command's --help, exit 2."""
    code, out, err = run_cli(case.args[0], capsys)
    line = one_line(err)
    assert code == 2, err
    assert line.startswith("error: ") and "--help" in line


def test_the_vendored_click_is_not_the_click_package() -> None:
    """Proves why `--bogus` printed a traceback: typer raises its own click's exceptions, which
    ``except click.ClickException`` (the old handler) never catches."""
    import click
    from typer._click.exceptions import NoSuchOption, UsageError

    assert not issubclass(NoSuchOption, click.ClickException)
    assert faults.classify(NoSuchOption("--bogus")) == (2, "error: No such option: --bogus (see `rubricate --help`)")
    usage = faults.classify(UsageError("x"))
    assert usage is not None and usage[0] == 2


def test_debug_lets_the_traceback_through(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Proves: with RUBRICATE_DEBUG=1 the exception propagates (a traceback), without it one line."""
    from typer._click.exceptions import NoSuchOption

    monkeypatch.setenv("RUBRICATE_DEBUG", "1")
    monkeypatch.setattr(sys, "argv", ["rubricate", "--bogus"])
    with pytest.raises(NoSuchOption):
        main()
    monkeypatch.delenv("RUBRICATE_DEBUG")
    code, _, err = run_cli(["--bogus"], capsys)
    assert code == 2 and one_line(err)


def test_no_arguments_shows_the_help_not_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    """Proves: `rubricate` and `rubricate rubric` alone print their help and exit 0."""
    for argv in ([], ["rubric"]):
        code, out, err = run_cli(argv, capsys)
        assert code == 0 and "Usage" in out and err == ""


def test_a_usage_error_in_a_child_process_has_no_traceback() -> None:
    """Proves, as a shell sees it: `rubricate --bogus` writes one line to stderr, exit 2."""
    proc = _exe("--bogus")
    assert proc.returncode == 2 and one_line(proc.stderr).startswith("error: No such option: --bogus")


# --- not a regular file: refused at once -------------------------------------------------------

@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    yield path


def test_opening_a_fifo_blocks_without_the_guard(fifo: Path) -> None:
    """Proves the hang: whoever opens a FIFO for reading waits for a writer (forever)."""
    opened = threading.Event()

    def reader() -> None:
        with open(fifo, encoding="utf-8"):
            opened.set()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    assert not opened.wait(0.5)  # still blocked
    with open(fifo, "w", encoding="utf-8"):  # release the reader
        pass
    t.join(5)


SPECIAL = [
    Case("import_dev_zero", "import /dev/zero is refused, not read forever", ("import", "{zero}", "--rubric", GQ)),
    Case("import_fifo", "import of a FIFO is refused, not blocked on", ("import", "{fifo}", "--rubric", GQ)),
    Case("import_directory", "import of a folder is refused", ("import", "{dir}", "--rubric", GQ)),
    Case("validate_dev_zero", "rubric validate /dev/zero does not run out of memory", ("rubric", "validate", "{zero}")),
    Case("validate_fifo", "rubric validate of a FIFO is refused", ("rubric", "validate", "{fifo}")),
    Case("add_dev_zero", "rubric add /dev/zero is refused", ("rubric", "add", "{zero}")),
    Case("show_fifo", "rubric show of a FIFO path is refused", ("rubric", "show", "{fifo}")),
    Case("flexeval_directory", "rubric import-flexeval of a folder is refused", ("rubric", "import-flexeval", "{dir}")),
    Case("import_missing", "a missing file is one line", ("import", "{missing}", "--rubric", GQ)),
]


@pytest.mark.parametrize("case", SPECIAL, ids=ids(SPECIAL))
def test_only_regular_files_are_read(case: Case, fifo: Path, tmp_path: Path) -> None:
    """Proves: anything but a regular file is refused at once with one line, exit 1."""
    where = {"zero": "/dev/zero", "fifo": str(fifo), "dir": str(tmp_path), "missing": str(tmp_path / "nope.jsonl")}
    args = [a.format(**where) for a in case.args]
    if args[0] == "import" or args[:2] == ["rubric", "add"]:
        args += ["--db", str(tmp_path / "x.db")]
    proc = _exe(*args, timeout=60)  # a hang would time out here
    assert proc.returncode == 1, proc.stderr
    line = one_line(proc.stderr)
    assert line.startswith("error: ") and ("regular file" in line or "no such file" in line)


def test_the_check_does_not_open_the_file(fifo: Path) -> None:
    """Proves: regular_file() answers for a FIFO without opening it (which would block)."""
    from reviewer.errors import UserError

    with pytest.raises(UserError, match="FIFO"):
        faults.regular_file(fifo)
    faults.regular_file(ROOT / "README.md")  # a regular file passes


# --- the database: exit 3 ----------------------------------------------------------------------

@pytest.fixture
def db(tmp_path: Path) -> str:
    path = tmp_path / "f.db"
    _make_and_close(path)
    return str(path)


def test_locked_past_the_timeout(db: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Proves: a database held by another writer past RUBRICATE_DB_TIMEOUT is one line, exit 3;
    without the guard (RUBRICATE_DEBUG=1) it is the driver's OperationalError."""
    from sqlalchemy.exc import OperationalError

    monkeypatch.setenv("RUBRICATE_DB_TIMEOUT", "0.3")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        code, _, err = run_cli(["export", "--db", db], capsys)
        assert code == 3 and "locked" in one_line(err) and "RUBRICATE_DB_TIMEOUT" in err
        monkeypatch.setenv("RUBRICATE_DEBUG", "1")
        monkeypatch.setattr(sys, "argv", ["rubricate", "export", "--db", db])
        with pytest.raises(OperationalError, match="locked"):
            main()
    finally:
        holder.rollback()
        holder.close()


def test_a_bad_timeout_setting_is_bad_input(db: str, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Proves: RUBRICATE_DB_TIMEOUT=abc is one line, exit 1 (not a traceback from float())."""
    monkeypatch.setenv("RUBRICATE_DB_TIMEOUT", "abc")
    code, _, err = run_cli(["export", "--db", db], capsys)
    assert code == 1 and "RUBRICATE_DB_TIMEOUT" in one_line(err)


def test_not_a_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Proves: a file that is not SQLite is one line, exit 3."""
    bad = tmp_path / "notes.db"
    bad.write_text("just some notes\n")
    code, _, err = run_cli(["export", "--db", str(bad)], capsys)
    assert code == 3 and "not a rubricate database" in one_line(err)


@contextlib.contextmanager
def _tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A small tmpfs at ``path`` (root only), unmounted afterwards."""
    path.mkdir(exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def _can_mount() -> bool:
    if not IS_ROOT:
        return False
    probe = Path(f"/tmp/rubricate-mount-probe-{os.getpid()}")
    probe.mkdir(exist_ok=True)
    try:
        ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)],
                            capture_output=True, check=False).returncode == 0
        if ok:
            subprocess.run(["umount", str(probe)], check=False)
        return ok
    finally:
        probe.rmdir()


MOUNT = _can_mount()


def _make_and_close(path: Path) -> None:
    """A migrated database at ``path``, every connection closed (so its folder can be remounted)."""
    store = open_store(str(path))
    store.db.checkpoint()
    store.close()
    import gc

    gc.collect()


@contextlib.contextmanager
def _read_only_file(path: Path) -> Iterator[None]:
    """``path`` read-only in a writable folder: a read-only bind mount as root (root ignores file
    modes), else chmod 444."""
    if IS_ROOT:
        subprocess.run(["mount", "--bind", str(path), str(path)], check=True)
        try:
            subprocess.run(["mount", "-o", "remount,ro,bind", str(path)], check=True)
            yield
        finally:
            subprocess.run(["umount", "-l", str(path)], check=False)
    else:
        path.chmod(0o444)
        try:
            yield
        finally:
            path.chmod(0o644)


@pytest.mark.skipif(IS_ROOT and not MOUNT, reason="running as root without mount rights: cannot make a file read-only")
def test_read_only_file(tmp_path: Path) -> None:
    """Proves: writing to a database file that cannot be written is one line, exit 3 (the old code
    printed the driver's traceback); reading it still works."""
    folder = tmp_path / "rw"
    folder.mkdir()
    path = folder / "ro.db"
    _make_and_close(path)
    for extra in folder.glob("ro.db-*"):
        extra.unlink()
    src = tmp_path / "one.jsonl"
    src.write_text('{"id": "a", "output": "x"}\n')
    with _read_only_file(path):
        proc = _exe("import", str(src), "--rubric", GQ, "--db", str(path))
        reading = _exe("export", "--db", str(path))
    assert proc.returncode == 3, proc.stderr
    assert "read-only" in one_line(proc.stderr) or "cannot be opened" in proc.stderr
    assert reading.returncode == 0, reading.stderr  # reading a read-only database still works


@pytest.mark.skipif(IS_ROOT and not MOUNT, reason="running as root without mount rights: cannot make a folder read-only")
def test_read_only_folder(tmp_path: Path) -> None:
    """Proves: a database in a folder that cannot be written (no journal, no WAL) is one line,
    exit 3; a new database there too."""
    if IS_ROOT:
        ctx: contextlib.AbstractContextManager[Path] = _tmpfs(tmp_path / "ro", "4m")
    else:
        (tmp_path / "ro").mkdir()
        ctx = contextlib.nullcontext(tmp_path / "ro")
    with ctx as folder:
        path = folder / "x.db"
        _make_and_close(path)
        for extra in folder.glob("x.db-*"):
            extra.unlink()
        if IS_ROOT:
            subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        else:
            folder.chmod(0o555)
        try:
            old = _exe("export", "--db", str(path))
            # a new database there: made by a writing command (a reading one makes none)
            new = _exe("queue", "audit-sample", "--rubric", GQ, "--n", "1", "--db", str(folder / "new.db"))
        finally:
            if not IS_ROOT:
                folder.chmod(0o755)
    for proc in (old, new):
        assert proc.returncode == 3, proc.stderr
        assert one_line(proc.stderr).startswith("error: ")


@pytest.mark.skipif(not MOUNT, reason="needs root to mount a small tmpfs (a full disk cannot be made otherwise)")
def test_disk_full_during_import_writes_nothing(tmp_path: Path) -> None:
    """Proves: an import that fills the disk is one line, exit 3, and leaves no item behind (the
    whole file is one transaction)."""
    src = tmp_path / "big.jsonl"
    src.write_text("".join(json.dumps({"id": f"i{i}", "output": "x" * 10_000}) + "\n" for i in range(300)))
    with _tmpfs(tmp_path / "small", "1m") as folder:
        db = str(folder / "full.db")
        _make_and_close(Path(db))
        proc = _exe("import", str(src), "--rubric", GQ, "--db", db)
        count = sqlite3.connect(db).execute("SELECT count(*) FROM item").fetchone()[0]
    assert proc.returncode == 3, proc.stderr
    assert "full" in one_line(proc.stderr)
    assert count == 0


def test_postgres_unreachable(capsys: pytest.CaptureFixture[str]) -> None:
    """Proves: a server that refuses the connection is one line, exit 3, password hidden."""
    code, _, err = run_cli(["export", "--db", "postgresql://u:s3cret@127.0.0.1:1/none"], capsys)
    line = one_line(err)
    assert code == 3 and "s3cret" not in line and "refused" in line


PG = os.environ.get("RUBRICATE_TEST_PG_URL")


@pytest.mark.postgres
@pytest.mark.skipif(not PG, reason="RUBRICATE_TEST_PG_URL is not set: no PostgreSQL server for this run")
@pytest.mark.parametrize("change,words", [("password", "refused the login"), ("database", "does not exist")])
def test_postgres_login_and_database_faults(change: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Proves: a wrong password or a database that does not exist on a real server is one line,
    exit 3, the password hidden."""
    from sqlalchemy.engine import make_url

    url = make_url(str(PG))
    url = url.set(password="wrong-pass") if change == "password" else url.set(database="rubricate_no_such_db")
    code, _, err = run_cli(["export", "--db", url.render_as_string(hide_password=False)], capsys)
    line = one_line(err)
    assert code == 3 and words in line and "wrong-pass" not in line


# --- the classifier, table-driven --------------------------------------------------------------

DRIVER = [
    Case("sqlite_locked", "locked", ("database is locked", 3, "locked")),
    Case("sqlite_readonly", "read-only", ("attempt to write a readonly database", 3, "read-only")),
    Case("sqlite_cannot_open", "cannot open", ("unable to open database file", 3, "cannot be opened")),
    Case("sqlite_full", "disk full", ("database or disk is full", 3, "full")),
    Case("sqlite_io", "I/O error", ("disk I/O error", 3, "failed to read or write")),
    Case("sqlite_malformed", "damaged file", ("database disk image is malformed", 3, "damaged")),
    Case("pg_refused", "server down", ('connection failed: connection refused', 3, "refused")),
    Case("pg_timeout", "server slow", ("timeout expired", 3, "did not answer")),
    Case("pg_host", "unknown host", ("could not translate host name \"nohost\"", 3, "host name")),
    Case("pg_closed", "server gone", ("server closed the connection unexpectedly", 3, "closed")),
    Case("unknown_operational", "any other operational fault", ("something odd", 3, "cannot be used")),
]


@pytest.mark.parametrize("case", DRIVER, ids=ids(DRIVER))
def test_driver_messages_become_one_line_exit_3(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    """Proves: each driver fault maps to exit 3 and a line that says what it is and what to do."""
    from sqlalchemy.exc import OperationalError

    message, code, words = case.args
    monkeypatch.setattr(sys, "argv", ["rubricate", "x", "--db", "team.db"])
    got = faults.classify(OperationalError("SELECT 1", {}, Exception(message)))
    assert got is not None and got[0] == code and words in got[1] and got[1].startswith("error: team.db: ")
    assert ";" in got[1]  # the what-to-do part


def test_an_integrity_refusal_is_bad_input() -> None:
    """Proves: a change the database refuses (a trigger, a constraint) is exit 1, one line."""
    from sqlalchemy.exc import IntegrityError

    got = faults.classify(IntegrityError("INSERT", {}, Exception("human_score is append-only\nCONTEXT: x")))
    assert got == (1, "error: the database refused the change: human_score is append-only")


@pytest.mark.parametrize("wrapper,orig,words", [
    ("InternalError", "RaiseException", "append-only"),
    ("ProgrammingError", "InsufficientPrivilege", "rubricate db roles"),
], ids=["pg_trigger", "pg_no_grant"])
def test_postgres_refusals_are_bad_input(wrapper: str, orig: str, words: str) -> None:
    """Proves: a PostgreSQL trigger's RAISE or a missing grant is a refused request (exit 1, one
    line), not "database unavailable" and not an unexpected error."""
    import psycopg.errors
    import sqlalchemy.exc

    driver = getattr(psycopg.errors, orig)("human_score is append-only: add a new row instead")
    exc = getattr(sqlalchemy.exc, wrapper)("UPDATE human_score ...", {}, driver)
    got = faults.classify(exc)
    assert got is not None and got[0] == 1 and words in got[1] and "\n" not in got[1]


def test_a_programming_error_is_not_hidden_as_a_fault() -> None:
    """Proves: a bug in our SQL is not dressed up as a database outage (it is reported as a bug)."""
    import psycopg.errors
    import sqlalchemy.exc

    exc = sqlalchemy.exc.ProgrammingError("SELECT nope", {}, psycopg.errors.UndefinedColumn("column nope"))
    assert faults.classify(exc) is None


def test_an_unexpected_error_is_one_line_naming_debug(capsys: pytest.CaptureFixture[str]) -> None:
    """Proves: a bug is one line pointing at RUBRICATE_DEBUG=1, exit 1, not a traceback."""
    assert faults.report(RuntimeError("boom\nsecond line")) == 1
    line = one_line(capsys.readouterr().err)
    assert "RuntimeError: boom" in line and "RUBRICATE_DEBUG=1" in line


@pytest.mark.parametrize("exc,words", [
    (FileNotFoundError(2, "No such file or directory", "a.jsonl"), "no such file"),
    (IsADirectoryError(21, "Is a directory", "d"), "is a directory"),
    (PermissionError(13, "Permission denied", "p"), "permission denied"),
    (OSError(28, "No space left on device", "out.csv"), "no space left"),
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "UTF-8"),
    (RecursionError("maximum recursion depth exceeded"), "nested too deeply"),
], ids=["missing", "directory", "permission", "no_space", "not_utf8", "too_deep"])
def test_file_faults_are_bad_input(exc: BaseException, words: str) -> None:
    """Proves: file and decoding faults are exit 1 with one line saying what to do."""
    got = faults.classify(exc)
    assert got is not None and got[0] == 1 and words in got[1] and "\n" not in got[1]


def test_a_closed_pipe_is_quiet() -> None:
    """Proves: `rubricate rubric list | head -c 1` ends without a BrokenPipeError traceback."""
    proc = subprocess.run(f"{sys.executable} -m reviewer rubric list | head -c 1", shell=True, capture_output=True,
                          text=True, cwd=str(ROOT), env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120,
                          check=False)
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


@pytest.mark.parametrize("which", ["fifo", "device"])
def test_a_config_that_is_not_a_regular_file(which: str, fifo: Path, tmp_path: Path) -> None:
    """Proves: RUBRICATE_CONFIG naming a FIFO (which would block the TUI's start) or /dev/zero is
    one line, exit 1, before the TUI starts."""
    config = str(fifo) if which == "fifo" else "/dev/zero"
    proc = _exe("review", "--db", str(tmp_path / "x.db"), env={"RUBRICATE_CONFIG": config}, timeout=60)
    assert proc.returncode == 1 and "regular file" in one_line(proc.stderr)


@pytest.mark.parametrize("out", ["/dev/full", "/no/such/folder/x.csv"], ids=["output_disk_full", "output_folder_missing"])
def test_an_output_that_cannot_be_written(out: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Proves: an export whose --out cannot be written (a full disk, a missing folder) is one line,
    exit 1 (bad input: the path given), not a traceback from the write."""
    src = tmp_path / "a.jsonl"
    src.write_text('{"id": "a", "output": "x"}\n')
    db = str(tmp_path / "o.db")
    import_file(open_store(db), src, GQ)
    code, _, err = run_cli(["export", "--db", db, "--out", out], capsys)
    assert code == 1 and one_line(err).startswith("error: ")
