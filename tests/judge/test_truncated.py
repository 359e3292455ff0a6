"""A judge server that cuts its reply off: headers promising a longer body (``Content-Length``)
than it sends, then the connection closed — or left open. Each is that item's recorded judge
error, bounded by ``--timeout``, and the program exits with nothing printed at exit (litellm's
aiohttp transport printed "Unclosed connection" and tracebacks from finalizers)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rubrics.judge.client import ClientSettings, JudgeCallError, JudgeClient
from rubrics.judge.prompt import BuiltPrompt
from tests.judge.rawserver import RawServer

ROOT = Path(__file__).resolve().parents[2]
PARTIAL = b'{"id": "x", "object": "chat.completion", "choices": ['


class CutOffServer(RawServer):
    """Answers every request with ``Content-Length: 5000`` and a 50-byte body; then closes the
    connection (``close=True``) or holds it open without another byte."""

    def __init__(self, close: bool) -> None:
        self.close = close
        self.count = 0
        self.held: list[socket.socket] = []
        super().__init__()

    def answer(self, conn: socket.socket) -> None:
        if self.read_request(conn) is None:
            return
        self.count += 1
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n" + PARTIAL)
        if self.close:
            conn.close()
        else:
            self.held.append(conn)

    def stop(self) -> None:
        super().stop()
        for conn in self.held:
            conn.close()


@pytest.fixture(params=["closes", "holds"])
def cut_off(request: pytest.FixtureRequest) -> Iterator[CutOffServer]:
    server = CutOffServer(close=request.param == "closes")
    yield server
    server.stop()


async def test_a_cut_off_reply_is_an_error_within_the_timeout(cut_off: CutOffServer) -> None:
    judge = JudgeClient(ClientSettings(model="openai/judge-x", api_base=cut_off.url, api_key="k", timeout=1.0,
                                       retries=0))
    prompt = BuiltPrompt([{"role": "user", "content": "Score this."}], "h", "t", None, [])
    with pytest.raises(JudgeCallError):  # litellm's first import is not the call's time
        await judge.complete(prompt, sample=0)
    started = time.monotonic()
    with pytest.raises(JudgeCallError) as caught:
        await judge.complete(prompt, sample=1)
    assert time.monotonic() - started < 1.0 + 0.5
    if cut_off.close:  # the fault itself, with what came and what was promised
        assert f"without sending complete message body (received {len(PARTIAL)} bytes, expected 5000)" in str(
            caught.value)
        assert "Expecting value" not in str(caught.value)  # not read as if whole, then unparsable
    else:
        assert str(caught.value).startswith("timeout")


def test_the_cli_records_it_and_prints_nothing_at_exit(cut_off: CutOffServer, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("DISABLE_AIOHTTP_TRANSPORT", None)
    db = str(tmp_path / "cut.db")
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"c{i}", "input": f"Question {i}?", "output": f"Answer {i}."}) + "\n"
                             for i in range(3)))

    def rubricate(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "reviewer", *args, "--db", db], env=env, capture_output=True,
                              text=True, timeout=300, check=False)

    assert rubricate("import", str(items), "--rubric", "general-quality@1.0.0").returncode == 0
    done = rubricate("judge", "--rubric", "general-quality@1.0.0", "--model", "openai/judge-x", "--api-base",
                     cut_off.url, "--api-key", "k", "--timeout", "1", "--retries", "1")
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr  # no "Unclosed connection", no traceback from a finalizer
    assert "3 items, 15 errors" in " ".join(done.stdout.split()), done.stdout
    assert cut_off.count == 30  # five dimensions, three items, two attempts each
    import sqlite3

    with sqlite3.connect(db) as conn:
        errors = [e for (e,) in conn.execute("SELECT error FROM judge_score")]
    assert len(errors) == 15
    cause = "without sending complete message body" if cut_off.close else "timeout"
    assert all(cause in (e or "") for e in errors), errors
