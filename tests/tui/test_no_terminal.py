"""``rubricate demo`` and ``rubricate review`` started without a terminal (CI, a pipe, ``2>`` to a
file) refuse in one line on standard error and exit 1, before anything is opened or built —
instead of starting an app that waits for keys that never come. The app reads keys from standard
input and draws on standard error, so those two are what must be terminals."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

EXE = str(Path(sys.executable).with_name("rubricate"))
SERVE = "serve it to browsers with `rubricate serve --db FILE`"
BUILD = ("build the demo database alone with `rubricate demo --build-only` and open it later with "
         "`rubricate review` in a terminal")


def _run(argv: list[str], stdin: int = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    """The command with standard output and error piped (a timeout: were the app started, it
    would wait for keys)."""
    return subprocess.run([EXE, *argv], stdin=stdin, capture_output=True, text=True, timeout=60)


def _refusal(command: str, stream: str, instead: str) -> str:
    return (f"error: {command} needs a terminal, and its {stream} is not one (the app reads keys from standard "
            f"input and draws on standard error): run it in a terminal, or {instead}")


def test_demo_in_a_pipe_is_refused_before_the_database_is_built(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    done = _run(["demo", "--db", str(db)])
    assert (done.returncode, done.stdout, done.stderr.splitlines()) == (
        1, "", [_refusal("rubricate demo", "standard input", BUILD)])
    assert list(tmp_path.iterdir()) == []  # nothing built for an app that could not start
    built = _run(["demo", "--db", str(db), "--build-only"])  # what the line says to run: works in a pipe
    assert built.returncode == 0 and db.exists(), built.stderr


def test_review_in_a_pipe_is_refused(demo_db: Path) -> None:
    done = _run(["review", "--db", str(demo_db), "--reviewer", "tess"])
    assert (done.returncode, done.stdout, done.stderr.splitlines()) == (
        1, "", [_refusal("rubricate review", "standard input", SERVE)])


def test_a_terminal_on_standard_input_alone_is_not_enough(demo_db: Path, tmp_path: Path) -> None:
    """Keys from a terminal but standard error redirected (where the app would draw): refused,
    naming standard error; the same for demo, which builds nothing."""
    main, other = pty.openpty()
    try:
        review = _run(["review", "--db", str(demo_db)], stdin=other)
        demo = _run(["demo", "--db", str(tmp_path / "new.db")], stdin=other)
    finally:
        os.close(main)
        os.close(other)
    assert (review.returncode, review.stderr.splitlines()) == (1, [_refusal("rubricate review", "standard error", SERVE)])
    assert (demo.returncode, demo.stderr.splitlines()) == (1, [_refusal("rubricate demo", "standard error", BUILD)])
    assert not (tmp_path / "new.db").exists()
