"""Rate limits against a server that counts: ``--rpm`` and ``--tpm`` never exceeded in any window,
concurrency adapting to 429s (held for ``Retry-After``, climbing back), and the time waited in the
run's report. Windows are scaled down to a second or two so the suite stays fast."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reviewer.cli import _register, app
from reviewer.services import judging
from rubrics.judge.client import ClientSettings, JudgeClient
from rubrics.judge.limits import Limits
from rubrics.judge.prompt import Sandbox
from tests.judge.helpers import db, store  # noqa: F401  (fixtures)
from tests.judge.limited import LimitedServer


@pytest.fixture
def limited() -> Iterator[LimitedServer]:
    server = LimitedServer(window=1.0, retry_after=0.5)
    server.start()
    yield server
    server.stop()


def client(server: LimitedServer, limits: Limits, max_tokens: int | None = 50) -> JudgeClient:
    settings = ClientSettings(model="openai/judge-x", api_base=server.url, api_key="sk-test", timeout=10,
                              retries=0, backoff=0.01, max_tokens=max_tokens)
    return JudgeClient(settings, limits=limits)


async def calls(judge: JudgeClient, n: int) -> list[Any]:
    """``n`` different prompts at once (no cache: each is a call)."""
    prompts = [Sandbox().finish("system", f"rate answer {i}", None) for i in range(n)]
    return await asyncio.gather(*(judge.complete(p) for p in prompts))


async def test_rpm_is_never_exceeded_in_any_window(limited: LimitedServer) -> None:
    limited.rpm = 8  # the server refuses a ninth call in a second: the client must never ask it
    limits = Limits(concurrency=16, rpm=8, window=1.0)
    started = time.monotonic()
    done = await calls(client(limited, limits), 20)
    elapsed = time.monotonic() - started
    assert len(done) == 20 and limited.refused == []
    assert limited.most_in_window() <= 8
    assert len(limited.served) == 20
    assert elapsed >= 2.0  # 20 calls at 8 a second: two full windows at least
    assert limits.waited_s > 1.0 and limits.throttled == 0


async def test_tpm_is_never_exceeded_in_any_window(limited: LimitedServer) -> None:
    # each call counts its prompt and max_tokens (about 60 tokens): 200 a second is three calls
    limits = Limits(concurrency=16, tpm=200, window=1.0)
    done = await calls(client(limited, limits), 9)
    assert len(done) == 9 and len(limited.served) == 9
    assert limited.most_tokens_in_window() <= 200
    assert limits.waited_s > 1.0


async def test_a_call_larger_than_tpm_is_one_clear_error(limited: LimitedServer) -> None:
    judge = client(limited, Limits(tpm=100, window=1.0), max_tokens=1024)
    out = await judge.judge(Sandbox().finish("system", "rate", None), lambda a: a)
    assert out.value is None and out.error is not None
    assert "more than --tpm 100" in out.error and limited.served == []


async def test_429s_lower_concurrency_honour_retry_after_and_it_climbs_back(limited: LimitedServer) -> None:
    limited.rpm, limited.delay = 6, 0.05  # the server's own limit; the client sets none
    limits = Limits(concurrency=12, window=1.0)
    judge = client(limited, limits)
    lowest: list[int] = []

    async def watch() -> None:
        while True:
            lowest.append(limits.limit)
            await asyncio.sleep(0.01)

    watcher = asyncio.create_task(watch())
    done = await calls(judge, 24)
    watcher.cancel()
    # every call got its answer in the end (retries=0: only the 429 budget carried them)
    assert len(done) == 24 and len(limited.served) == 24
    assert limits.throttled == len(limited.refused) >= 1
    assert min(lowest) < 12
    # after each 429 the client held every new call for Retry-After (0.5 s): calls reaching the
    # server after a refusal but within 0.4 s of it were already on the wire when it was sent
    first = limited.refused[0]
    arrivals = sorted(at for at, _ in limited.served)
    late = [at for at in arrivals if first + 0.15 < at < first + 0.4]
    assert late == []
    assert limits.waited_s >= 0.5
    # a second batch at the server's pace, answered in a row, raises concurrency again
    before = limits.limit
    for _ in range(4):
        await calls(judge, 3)
        await asyncio.sleep(0.5)
    assert limits.limit > before or limits.limit == 12


def test_run_reports_the_time_waited_for_limits(store: Any, tmp_path: Path, db: str) -> None:  # noqa: F811
    server = LimitedServer(rpm=4, window=1.0)
    server.start()
    try:
        opts = judging.JudgeOptions(rubric_ref="judge-test@1.0.0", models=["openai/judge-x"], api_base=server.url,
                                    api_key="sk-test", timeout=5, retries=0, rpm=4, limit_window=1.0)
        [run] = judging.run(store, opts)
        assert run.totals.status == "done" and run.totals.errors == 0 and server.refused == []
        assert server.most_in_window() <= 4
        assert run.totals.limit_wait_s > 0.5 and run.totals.rate_limited == 0
        _register()
        stored = CliRunner().invoke(app, ["judge", "--report", str(run.run_id), "--format", "json", "--db", db])
        assert stored.exit_code == 0, stored.output
        totals = json.loads(stored.stdout)["totals"]
        assert totals["limit_wait_s"] == pytest.approx(run.totals.limit_wait_s, abs=0.001)
        assert totals["rate_limited"] == 0
        table = CliRunner().invoke(app, ["judge", "--report", str(run.run_id), "--db", db])
        assert "limit_wait_s:" in table.output
    finally:
        server.stop()


async def test_a_freed_slot_wakes_one_waiting_call_not_every_one() -> None:
    """Calls held only by ``--concurrency`` wait in line: a call's end wakes the next one alone,
    so a 64-wide run with hundreds of waiting calls does not re-check every one on every reply."""
    limits = Limits(2)
    held = [await limits.acquire(1), await limits.acquire(1)]
    checks = 0
    delay = limits._delay

    def counted(now: float, tokens: int) -> tuple[float, bool]:
        nonlocal checks
        checks += 1
        return delay(now, tokens)

    setattr(limits, "_delay", counted)  # noqa: B010  (counting the re-checks, nothing else)
    started: list[int] = []

    async def call(i: int) -> None:
        held.append(await limits.acquire(1))
        started.append(i)

    waiting = [asyncio.create_task(call(i)) for i in range(20)]
    await asyncio.sleep(0.01)
    checks = 0
    limits.release(held.pop(0))
    await asyncio.sleep(0.01)
    assert started == [0]  # the first in line, and only it
    assert checks == 1
    for task in waiting:
        task.cancel()
    await asyncio.gather(*waiting, return_exceptions=True)
