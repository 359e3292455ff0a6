"""Rate limits a team sets (``--rpm``, ``--tpm``) and the judge's concurrency adapting to 429s.

Every judge call starts through one :class:`Limits`:

- **Calls and tokens per window** (a sliding window, 60 s for ``--rpm``/``--tpm``): a call starts
  only when the calls started in the last window are fewer than ``rpm`` and their tokens plus this
  call's are at most ``tpm``. Starts are also paced ``window / rpm`` apart, so a run goes at an even
  rate instead of a burst at each window's start. The window is padded (:data:`MARGIN_FRACTION`, :data:`MARGIN_MIN`) so the
  provider, which sees each call a little later than it started, never counts one too many.
  A call's tokens are estimated when it starts (:func:`message_tokens` of its prompt plus its
  ``max_tokens``) and replaced by the reply's own count when it comes.
- **Adaptive concurrency**: at most ``limit`` calls in flight, ``limit`` starting at
  ``--concurrency``. A 429 halves it and holds every new call until the server's ``Retry-After``
  (or the client's backoff) has passed; each ``limit`` calls answered in a row raise it by one,
  back up to ``--concurrency``.

:attr:`Limits.waited_s` is the wall time during which some call was held back by a limit (the
rate caps, a ``Retry-After`` pause, or concurrency lowered below ``--concurrency``): the run's
``limit_wait_s``. Waiting for a slot at full ``--concurrency`` is not a limit and is not counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import deque
from collections.abc import Mapping, Sequence

#: Seconds added to each window (and so to the pacing interval), 2 % of it and at least 0.25 s
#: (what a loaded machine may take to deliver a call, for windows scaled down): a call reaches the
#: provider a little after it starts here, so two calls a window apart here may be less apart there.
MARGIN_FRACTION = 0.02
MARGIN_MIN = 0.25


class LimitTooSmall(Exception):
    """One call needs more tokens than ``--tpm`` allows in a whole window: it can never start."""


def message_tokens(messages: Sequence[Mapping[str, str]]) -> int:
    """A rough input-token count of a prompt's messages (about four characters a token)."""
    return sum(len(m["content"]) for m in messages) // 4 + 8


class _Start:
    """One started call in the window: when, and its tokens (estimated, then counted)."""

    __slots__ = ("at", "tokens", "counted")

    def __init__(self, at: float, tokens: int) -> None:
        self.at, self.tokens = at, tokens
        #: still in the window's token sum
        self.counted = True


class Limits:
    """The caps and the adaptive concurrency every call of a run (a panel: of every model) shares."""

    def __init__(self, concurrency: int = 8, rpm: int | None = None, tpm: int | None = None,
                 window: float = 60.0) -> None:
        if rpm is not None and rpm < 1 or tpm is not None and tpm < 1:
            raise ValueError("--rpm and --tpm must be at least 1")
        self.rpm, self.tpm = rpm, tpm
        self.window = window + max(MARGIN_MIN, MARGIN_FRACTION * window)
        self.most = max(1, concurrency)
        #: calls allowed in flight now (lowered by 429s, climbing back to ``most``)
        self.limit = self.most
        self.in_flight = 0
        #: 429 replies seen
        self.throttled = 0
        self._starts: deque[_Start] = deque()
        self._tokens = 0
        self._resume_at = 0.0
        self._answered = 0
        self._held = 0
        self._held_since = 0.0
        self._waited = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None
        #: calls waiting for a slot alone (no cap holds them), woken one per freed slot in turn:
        #: woken all at once on every call's end, hundreds of waiters each took a loop turn per call
        self._line: deque[asyncio.Future[None]] = deque()

    @property
    def waited_s(self) -> float:
        """Wall seconds during which some call was held back by a limit."""
        now = time.monotonic()
        return self._waited + (now - self._held_since if self._held else 0.0)

    def _event(self) -> asyncio.Event:
        loop = asyncio.get_running_loop()
        if self._changed is None or self._loop is not loop:  # a panel runs one loop per model
            self._changed, self._loop = asyncio.Event(), loop
        return self._changed

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = asyncio.Event()
        free = self.limit - self.in_flight  # at least the slots free now (a woken call re-checks)
        while free > 0 and self._line:
            waiter = self._line.popleft()
            if not waiter.done():  # (a cancelled waiter left the line)
                waiter.set_result(None)
                free -= 1

    async def _wait_in_line(self) -> None:
        """Wait until a call's end frees a slot for this one."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._line.append(waiter)
        try:
            await waiter
        finally:
            if not waiter.done():
                waiter.cancel()

    def _prune(self, now: float) -> None:
        while self._starts and self._starts[0].at <= now - self.window:
            gone = self._starts.popleft()
            gone.counted = False
            self._tokens -= gone.tokens

    def _delay(self, now: float, tokens: int) -> tuple[float, bool]:
        """Seconds until a call of ``tokens`` may start (0: now; inf: when a call ends), and
        whether a limit (not plain ``--concurrency``) holds it."""
        if now < self._resume_at:
            return self._resume_at - now, True
        self._prune(now)
        delay = 0.0
        if self.rpm is not None and self._starts:
            delay = max(delay, self._starts[-1].at + self.window / self.rpm - now)
            if len(self._starts) >= self.rpm:
                delay = max(delay, self._starts[len(self._starts) - self.rpm].at + self.window - now)
        if self.tpm is not None and self._tokens + tokens > self.tpm:
            freed = self._tokens + tokens - self.tpm
            for start in self._starts:
                freed -= start.tokens
                if freed <= 0:
                    delay = max(delay, start.at + self.window - now)
                    break
        if delay > 0:
            return delay, True
        if self.in_flight >= self.limit:
            return math.inf, self.limit < self.most
        return 0.0, False

    async def acquire(self, tokens: int) -> _Start:
        """Wait until a call of about ``tokens`` tokens may start, and count it as started."""
        if self.tpm is not None and tokens > self.tpm:
            raise LimitTooSmall(f"one call needs about {tokens} tokens, more than --tpm {self.tpm} allows in "
                                "a minute: raise --tpm (or lower the rubric's max_tokens)")
        held = False
        try:
            while True:
                now = time.monotonic()
                delay, limited = self._delay(now, tokens)
                if delay == 0:
                    break
                if limited and not held:
                    held = True
                    self._held += 1
                    if self._held == 1:
                        self._held_since = now
                changed = self._event()
                if delay == math.inf and not limited:
                    await self._wait_in_line()
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), None if delay == math.inf else delay)
        finally:
            if held:
                self._held -= 1
                if self._held == 0:
                    self._waited += time.monotonic() - self._held_since
        start = _Start(now, tokens)
        self._starts.append(start)
        self._tokens += tokens
        self.in_flight += 1
        return start

    def release(self, start: _Start, tokens: int | None = None, retry_after: float | None = None,
                answered: bool = True) -> None:
        """A call ended: ``tokens`` is its reply's real count (None or 0: keep the estimate);
        ``retry_after`` set means the server answered 429 (hold new calls that many seconds);
        ``answered`` False is any other failure (it neither lowers nor raises concurrency)."""
        self.in_flight -= 1
        if tokens:
            if start.counted:
                self._tokens += tokens - start.tokens
            start.tokens = tokens
        if retry_after is not None:
            self.throttled += 1
            self.limit = max(1, self.limit // 2)
            self._answered = 0
            self._resume_at = max(self._resume_at, time.monotonic() + retry_after)
        elif answered:
            self._answered += 1
            if self.limit < self.most and self._answered >= self.limit:
                self.limit += 1
                self._answered = 0
        self._wake()
