"""A real ``rubricate serve`` on a demo store: the demo built (the test's own login its first
lead), a link made for ``ana``, the server started as a process of its own on a free loopback
port. Used by the served-app tests and ``benchmarks/bench_serve.py``."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A port nobody listens on now (loopback)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build(db: Path) -> str:
    """The demo store at ``db``; a live link's token for ``ana`` (a plain reviewer)."""
    from reviewer.demo.build import build_demo
    from reviewer.locations import os_login
    from reviewer.store import open_store

    build_demo(str(db), os_login())
    store = open_store(str(db))
    try:
        return store.links.add_link("ana", timedelta(days=7))
    finally:
        store.close()


@contextmanager
def serving(db: Path, extra: tuple[str, ...] = ()) -> Iterator[str]:
    """``rubricate serve --db DB`` running; yields its base URL. Stopped (SIGTERM) afterwards."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RUBRICATE_CONFIG": str(db.parent / "none.yaml")}
    env.pop("RUBRICATE_LINK_TOKEN", None)
    proc = subprocess.Popen([sys.executable, "-m", "reviewer", "serve", "--db", str(db), "--port", str(port), *extra],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    out = proc.stdout.read().decode() if proc.stdout else ""
                    raise AssertionError(f"rubricate serve did not start: {out}") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
