"""A scripted OpenAI-compatible chat server on 127.0.0.1 for judge tests and benchmarks.

Serves ``POST /v1/chat/completions``. Each request takes the next scripted :class:`Reply` (or the
default one): a body text (or a function of the request body), an HTTP status, headers, a delay.
Hostile servers are scripted too: ``envelope`` replaces the whole JSON response (``{"choices": []}``,
a message without content), and ``raw`` sends bytes that are not JSON at all.
Every request body is recorded, so tests assert on the prompt litellm actually sent.

Runs in a background thread (``LoopbackServer().start()``) or as a process for benchmarks:
``python -m tests.judge.loopback [--delay SECONDS]`` prints its port and serves until killed, each
reply held for the delay (a model's latency). Every connection has TCP_NODELAY (aiohttp sets it on
each accepted socket: ``tests/judge/test_loopback.py`` reads it), so a reply's last segment is never
held back waiting for an ACK (Nagle): the latency measured is the delay's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

GOOD = json.dumps({"score": 4, "rationale": "Minor flaw: terse.", "evidence": [], "confidence": 0.8})


@dataclass
class Reply:
    """One scripted answer."""

    content: str | Callable[[dict[str, Any]], str] = GOOD
    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    #: The whole response body instead of the usual chat.completion envelope around ``content``
    #: (or a function of the request body giving it, None meaning the usual envelope).
    envelope: Any = None
    #: Bytes sent as the body as they are (with a JSON content type), e.g. a cut-off response
    #: (or a function of the request body giving them, None meaning the usual envelope).
    raw: bytes | Callable[[dict[str, Any]], bytes | None] | None = None


def user_prompt(body: dict[str, Any]) -> str:
    """The user message of a recorded request (the first one: re-asks add more)."""
    return str(next(m["content"] for m in body["messages"] if m["role"] == "user"))


def system_prompt(body: dict[str, Any]) -> str:
    """The system message of a recorded request."""
    return str(next(m["content"] for m in body["messages"] if m["role"] == "system"))


class LoopbackServer:
    """The server, its script and its record of requests."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.script: deque[Reply] = deque()
        self.default = Reply()
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The ``api_base`` to hand litellm."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def count(self) -> int:
        """Requests served since the last reset."""
        return len(self.requests)

    def reset(self, *replies: Reply, default: Reply | None = None) -> None:
        """Forget recorded requests and script the next replies."""
        with self._lock:
            self.requests.clear()
            self.script = deque(replies)
            self.default = default or Reply()

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
            reply = self.script.popleft() if self.script else self.default
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.status != 200:
            error = {"error": {"message": f"scripted {reply.status}", "type": "server_error"}}
            return web.json_response(error, status=reply.status, headers=reply.headers)
        raw = reply.raw(body) if callable(reply.raw) else reply.raw
        if raw is not None:
            return web.Response(body=raw, status=200, content_type="application/json", headers=reply.headers)
        whole = reply.envelope(body) if callable(reply.envelope) else reply.envelope
        if whole is not None:
            return web.json_response(whole, headers=reply.headers)
        content = reply.content(body) if callable(reply.content) else reply.content
        return web.json_response(
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "judge"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            },
            headers=reply.headers,
        )

    def routes(self, app: web.Application) -> None:
        """The endpoints served (a sibling server adds its own)."""
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_post("/chat/completions", self._handle)

    async def _serve(self, port: int) -> None:
        app = web.Application()
        self.routes(app)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        server = site._server  # typed as asyncio's AbstractServer; it is an asyncio.Server
        sockets = server.sockets if isinstance(server, asyncio.Server) else ()
        self.port = sockets[0].getsockname()[1]

    def start(self) -> LoopbackServer:
        """Serve from a daemon thread; returns once the port is bound."""
        ready = threading.Event()

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            self._loop.run_until_complete(self._serve(0))
            ready.set()
            self._loop.run_forever()
            self._loop.close()

        self._thread = threading.Thread(target=run, daemon=True, name="loopback-judge")
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("loopback server did not start")
        return self

    def stop(self) -> None:
        """Shut the server down."""
        if self._loop is not None and self._runner is not None and self._thread is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(5)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)


def main() -> None:
    """Serve in this process (for benchmarks): print the port, then serve forever."""
    parser = argparse.ArgumentParser(description="A loopback OpenAI-compatible judge server.")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds each reply is held (latency)")
    server = LoopbackServer()
    server.default = Reply(delay=parser.parse_args().delay)

    async def serve() -> None:
        await server._serve(0)
        print(server.port, flush=True)
        await asyncio.Event().wait()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
