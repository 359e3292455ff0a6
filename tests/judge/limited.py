"""An OpenAI-compatible chat server on 127.0.0.1 that counts, as a provider does, and enforces its
own rate limit: for rate-limit tests and ``benchmarks/bench_rpm.py``.

Each request's arrival time and its tokens as a provider counts them against a token limit (the
prompt's, about four characters a token, plus its ``max_tokens``) are recorded. Past its own
``rpm`` calls in any ``window`` seconds, it answers 429 with ``Retry-After`` (and counts the
refusal, not the call). :meth:`LimitedServer.most_in_window` and :meth:`most_tokens_in_window`
are the figures a test holds the client to.
"""

from __future__ import annotations

import asyncio
import json
import time
from bisect import bisect_left
from typing import Any

from aiohttp import web

from tests.judge.loopback import LoopbackServer

ANSWER = json.dumps({"score": 4, "rationale": "fine", "evidence": [], "confidence": 0.8})


class LimitedServer(LoopbackServer):
    """The server: what it served, when, and what it refused (started and stopped as the
    loopback server is; its script is not used)."""

    def __init__(self, rpm: int | None = None, window: float = 60.0, retry_after: float = 1.0,
                 delay: float = 0.0) -> None:
        super().__init__()
        self.rpm, self.window, self.retry_after, self.delay = rpm, window, retry_after, delay
        #: (arrival time, tokens) of every call served
        self.served: list[tuple[float, int]] = []
        #: times of the 429s sent
        self.refused: list[float] = []

    async def _handle(self, request: web.Request) -> web.Response:
        body: dict[str, Any] = await request.json()
        now = time.monotonic()
        prompt = sum(len(str(m.get("content", ""))) for m in body["messages"]) // 4
        with self._lock:
            recent = sum(1 for at, _ in self.served if at > now - self.window)
            if self.rpm is not None and recent >= self.rpm:
                self.refused.append(now)
                over = True
            else:
                self.served.append((now, prompt + int(body.get("max_tokens") or 0)))
                over = False
        if over:
            return web.json_response({"error": {"message": "rate limit", "type": "rate_limit"}}, status=429,
                                     headers={"Retry-After": f"{self.retry_after:g}"})
        if self.delay:
            await asyncio.sleep(self.delay)
        return web.json_response({
            "id": "chatcmpl-limited", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "judge"),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": ANSWER}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": 20, "total_tokens": prompt + 20},
        })

    def most_in_window(self, window: float | None = None) -> int:
        """The most calls served in any ``window`` seconds (the server's own window by default)."""
        times = sorted(at for at, _ in self.served)
        span = self.window if window is None else window
        return max((i - bisect_left(times, t - span, 0, i) + 1 for i, t in enumerate(times)), default=0)

    def most_tokens_in_window(self, window: float | None = None) -> int:
        """The most tokens served in any ``window`` seconds (a window closed at both ends)."""
        served = sorted(self.served)
        span = self.window if window is None else window
        return max((sum(n for at, n in served if t - span <= at <= t) for t, _ in served), default=0)
