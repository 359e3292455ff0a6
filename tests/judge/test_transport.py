"""The judge's own HTTP transport: calls share kept-alive connections, and ``release_litellm`` closes
every one of them before the loop ends (left open, they were finalized after it and printed
"Unclosed connection" at exit); the next loop opens its own."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator

import pytest

from rubrics.judge.client import ClientSettings, JudgeClient, release_litellm
from rubrics.judge.prompt import BuiltPrompt
from tests.judge.rawserver import RawServer

REPLY = json.dumps({"id": "r", "object": "chat.completion", "created": 0, "model": "judge-x",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": "fine"}}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}).encode()


class KeepAliveServer(RawServer):
    """Answers every request on a connection until the client closes it; counts open connections."""

    def __init__(self) -> None:
        self.closed = 0
        self.answered = 0
        super().__init__()

    def answer(self, conn: socket.socket) -> None:
        rest = b""
        try:
            while (request := self.read_request(conn, rest)) is not None:
                rest = request[1]
                self.answered += 1
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(REPLY)).encode() + b"\r\n\r\n" + REPLY)
        except ConnectionError:  # reset by the client: closed as well
            pass
        finally:
            conn.close()
            self.closed += 1

    def open_now(self) -> int:
        """Connections the client still holds (waiting briefly for closes in flight to land)."""
        deadline = time.monotonic() + 2.0
        while self.opened != self.closed and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.opened - self.closed


class ProxyServer(KeepAliveServer):
    """Answers as a proxy does, noting the target each connection's first request names."""

    def __init__(self) -> None:
        self.targets: list[str] = []
        super().__init__()

    def answer(self, conn: socket.socket) -> None:
        self.targets.append(conn.recv(4096, socket.MSG_PEEK).split(b" ")[1].decode())
        super().answer(conn)


@pytest.fixture
def keep_alive() -> Iterator[KeepAliveServer]:
    server = KeepAliveServer()
    yield server
    server.stop()


def _calls(url: str, n: int) -> None:
    async def run() -> None:
        judge = JudgeClient(ClientSettings(model="openai/judge-x", api_base=url, api_key="k", timeout=10.0,
                                           retries=0), concurrency=4)
        prompt = BuiltPrompt([{"role": "user", "content": "Score this."}], "h", "t", None, [])
        texts = await asyncio.gather(*(judge.complete(prompt, sample=i) for i in range(n)))
        assert [c.text for c in texts] == ["fine"] * n
        await release_litellm()

    asyncio.run(run())


def test_connections_are_reused_and_all_closed_when_the_loop_is_released(keep_alive: KeepAliveServer) -> None:
    _calls(keep_alive.url, 12)
    assert keep_alive.answered == 12
    assert keep_alive.opened <= 4  # four at a time, kept alive between calls
    assert keep_alive.open_now() == 0
    _calls(keep_alive.url, 12)  # a new loop: new connections, closed in turn
    assert keep_alive.answered == 24
    assert keep_alive.open_now() == 0


def test_a_proxy_named_by_the_environment_carries_the_calls(keep_alive: KeepAliveServer,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = ProxyServer()
    try:
        monkeypatch.setenv("HTTP_PROXY", proxy.url.removesuffix("/v1"))
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        _calls(keep_alive.url, 2)
        assert keep_alive.answered == 0 and proxy.answered == 2
        assert proxy.targets and set(proxy.targets) == {keep_alive.url + "/chat/completions"}
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        _calls(keep_alive.url, 2)  # a new loop reads the environment again
        assert keep_alive.answered == 2 and proxy.answered == 2
    finally:
        proxy.stop()
