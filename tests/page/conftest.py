"""The page tests' store: the demo database, built once, and the pages written from it by the
real ``rubricate`` command in a child process (as a person runs it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reviewer.demo.build import build_demo

ROOT = Path(__file__).resolve().parents[2]
GQ = "general-quality@1.0.0"


def rubricate(*argv: str) -> subprocess.CompletedProcess[str]:
    """``rubricate ARGV...`` in a child process; fails the test on a non-zero exit."""
    done = subprocess.run([sys.executable, "-m", "reviewer", *argv], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding ``demo.db`` and the demo's pages and JSON: calibrate's and report's."""
    where = tmp_path_factory.mktemp("page")
    db = str(where / "demo.db")
    build_demo(db, "lead")
    for fmt in ("html", "json"):
        rubricate("calibrate", "--rubric", GQ, "--format", fmt, "--out", str(where / f"calibrate.{fmt}"), "--db", db)
        rubricate("report", "--rubric", GQ, "--format", fmt, "--out", str(where / f"report.{fmt}"), "--db", db)
    return where
