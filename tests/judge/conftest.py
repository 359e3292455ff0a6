"""Judge test fixtures: one loopback OpenAI-compatible server per module, reset for each test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from rubrics.judge.client import release_litellm
from tests.judge.loopback import LoopbackServer


@pytest.fixture(scope="module")
def _server() -> Iterator[LoopbackServer]:
    server = LoopbackServer().start()
    yield server
    server.stop()


@pytest.fixture
def server(_server: LoopbackServer) -> LoopbackServer:
    """The running server with an empty record and the default (good) reply."""
    _server.reset()
    return _server


@pytest.fixture(autouse=True)
async def _release_litellm() -> AsyncIterator[None]:
    """litellm's logging worker must not outlive each test's event loop."""
    yield
    await release_litellm()
