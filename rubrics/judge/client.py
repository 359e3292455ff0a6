"""The litellm client: bounded retries with backoff, strict JSON, one re-ask, cache, cost.

litellm is imported inside the functions that call it (with the local cost map, so nothing
reaches the network but the judge). The SDK's own retries are switched off (``max_retries=0``):
a call makes at most ``1 + retries`` attempts that fail, each bounded by ``timeout``; 5xx,
timeouts and dropped connections back off exponentially; other 4xx fail at once. A 429 is the
provider's limit: it has its own budget (:data:`RATE_LIMITED_RETRIES`), and every call of the run
pauses for the server's ``Retry-After`` while concurrency adapts (:mod:`rubrics.judge.limits`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from rubrics.judge.cache import KeyValueCache, digest, judge_cache_key
from rubrics.judge.limits import Limits, LimitTooSmall, message_tokens
from rubrics.judge.parse import ReplyError, extract_json
from rubrics.judge.prompt import BuiltPrompt

if TYPE_CHECKING:  # imported with litellm, never by merely importing this module
    import httpx

    from rubrics.judge.transport import AiohttpTransport

T = TypeVar("T")
#: 429 replies one call may take (besides ``retries`` for other failures) before it is an error.
RATE_LIMITED_RETRIES = 8
REASK = (
    "Your reply could not be used: {problem}. Reply again with only the JSON object, exactly in "
    "the shape asked for, and nothing else."
)
#: The re-ask for a reply that must end with a choice on its own line (FlexEval's shape).
REASK_LAST_LINE = (
    "Your reply could not be used: {problem}. Reply again: your reasoning, then on the last line "
    "only the choice, exactly as written in the list, with nothing else on that line."
)

#: A reply with nothing to read, live or from a batch.
NO_MESSAGE = "the server's reply has no message (empty 'choices'); nothing to read"


@dataclass
class _Http:
    """The one HTTP client litellm's OpenAI-family calls share, and its transport to close."""

    client: httpx.AsyncClient | None = None
    transport: AiohttpTransport | None = None
    #: litellm is imported and set up (:func:`import_litellm`)
    ready: bool = False


_HTTP = _Http()


def import_litellm() -> Any:
    """litellm, with its cost map read from the package instead of the network, set up once."""
    if _HTTP.ready:  # (every call asks: the set-up below, warnings filter included, is done once)
        return sys.modules["litellm"]
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    # Not litellm's aiohttp transport: it reads a reply cut off mid-body (a Content-Length longer
    # than what came) as if whole, and its sessions outlive the loop, so their finalizers printed
    # "Unclosed connection" and tracebacks at exit. OpenAI-family calls go through ours (aiohttp's
    # speed, closed by release_litellm); every other provider through httpx's own.
    litellm.disable_aiohttp_transport = True
    if _HTTP.client is None:
        from rubrics.judge.transport import http_client

        _HTTP.client, _HTTP.transport = http_client()
    litellm.aclient_session = _HTTP.client
    # litellm's own response objects trip pydantic's serializer check on every call: noise.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)
    _skip_unheard_logging(litellm)
    _HTTP.ready = True
    return litellm


def _skip_unheard_logging(litellm: Any) -> None:
    """Records nobody registered for are not built.

    After every reply litellm queues a coroutine on its logging worker (a task on the judge's event
    loop) that builds a logging record of the call for the callbacks registered with litellm.
    rubricate registers none, and reads the reply's price from the reply itself: with no callback
    registered (``litellm.callbacks``, ``success_callback``, ``failure_callback`` and their async
    lists), the coroutine is closed unrun. Building the records took about a sixth of the loop's
    time per call (py-spy, 64 calls in flight). Someone who registers a callback gets every record,
    as litellm alone would give it.
    """
    from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER as worker

    enqueue = worker.ensure_initialized_and_enqueue  # (called once: import_litellm sets up once)

    def enqueue_if_heard(async_coroutine: Any) -> None:
        if (litellm.callbacks or litellm.success_callback or litellm._async_success_callback
                or litellm.failure_callback or litellm._async_failure_callback):
            enqueue(async_coroutine)
        else:
            async_coroutine.close()

    # litellm is pinned, and tests/judge/test_wire.py holds the worker's method name
    worker.ensure_initialized_and_enqueue = enqueue_if_heard  # type: ignore[method-assign]  # litellm's one worker, on the instance


async def release_litellm() -> None:
    """Close this loop's judge connections and stop litellm's background logging worker on it.

    litellm parks a task on the loop after the first call and binds its queue to that loop; left
    alone, the loop's shutdown waits on it and the next loop inherits a queue it cannot use.
    Call this before the loop that made calls ends.
    """
    if "litellm" not in sys.modules:
        return
    if _HTTP.transport is not None:
        await _HTTP.transport.close_session()
    from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

    worker = GLOBAL_LOGGING_WORKER
    task = worker._worker_task
    if task is None or task.get_loop() is not asyncio.get_running_loop():
        worker._worker_task, worker._queue = None, None
        return
    # The queued log callbacks build litellm's logging records (queued only when someone registered
    # a callback: _skip_unheard_logging): drop them unrun. At a high call rate the worker, which
    # runs one at a time, falls thousands behind, and draining them held a run's end for seconds.
    _drop_queued(worker._queue)
    # Let the callback in progress finish first: a cancel that lands while the worker awaits one
    # is swallowed by wait_for and leaves the task hanging.
    if worker._queue is not None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(worker._queue.join(), timeout=5)
    task.cancel()
    await asyncio.wait({task}, timeout=2)
    worker._worker_task, worker._queue = None, None


def _drop_queued(queue: asyncio.Queue[Any] | None) -> None:
    """Empty litellm's logging queue without running its callbacks: each is closed unrun (no
    "never awaited" warning) and marked done, so a join waits only for the one in progress."""
    while queue is not None and not queue.empty():
        entry = queue.get_nowait()
        coroutine = entry.get("coroutine") if isinstance(entry, dict) else None
        if asyncio.iscoroutine(coroutine):
            coroutine.close()
        queue.task_done()


class JudgeCallError(Exception):
    """A call that failed after every allowed attempt (or at once, for a non-retryable error)."""


class CostCapReached(Exception):
    """``--max-cost`` is spent: no further call starts."""


@dataclass
class CostMeter:
    """Money spent so far across every client of a run (a panel shares one meter)."""

    cap: float | None = None
    spent: float = 0.0
    calls: int = 0
    cached_calls: int = 0

    def check(self) -> None:
        """Raise :class:`CostCapReached` once the cap is reached."""
        if self.cap is not None and self.spent >= self.cap:
            raise CostCapReached(f"cost cap ${self.cap:.4f} reached (spent ${self.spent:.4f})")


@dataclass(frozen=True)
class ClientSettings:
    """How to reach one judge model."""

    model: str
    api_base: str | None = None
    api_key: str | None = None
    timeout: float = 60.0
    retries: int = 2
    temperature: float = 0.0
    max_tokens: int | None = 1024
    backoff: float = 0.5
    backoff_max: float = 30.0


@dataclass
class Completion:
    """One reply's text and what it cost."""

    text: str
    cost_usd: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = False


@dataclass
class Outcome(Generic[T]):
    """A validated answer, or the error and raw reply that go to people; cost of every call."""

    value: T | None = None
    error: str | None = None
    raw: str | None = None
    cost_usd: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = True
    replies: list[str] = field(default_factory=list)

    def add(self, c: Completion) -> None:
        """Account for one completion."""
        self.cost_usd += c.cost_usd
        self.tokens_in += c.tokens_in
        self.tokens_out += c.tokens_out
        self.cached = self.cached and c.cached
        self.replies.append(c.text)


def _retry_after(exc: Exception) -> float | None:
    for source in (getattr(exc, "response", None), exc):
        headers = getattr(source, "headers", None) or getattr(source, "litellm_response_headers", None)
        if headers is not None:
            try:
                value = headers.get("retry-after")
                return None if value is None else min(60.0, float(value))
            except (TypeError, ValueError, AttributeError):
                return None
    return None


def _status(exc: Exception) -> int | None:
    """The HTTP status an SDK error carries, if any."""
    status = getattr(exc, "status_code", None)
    try:
        return None if status is None else int(status)
    except (TypeError, ValueError):
        return None


def _retryable(exc: Exception) -> bool:
    status = getattr(exc, "status_code", None)
    if isinstance(exc, asyncio.TimeoutError) or status is None:
        return True  # timeouts and dropped connections carry no status
    return int(status) == 429 or int(status) >= 500


def describe_failure(exc: Exception) -> str:
    """A failed provider call in one line: its HTTP status or kind, its first line, its root cause
    (a judge call's recorded error, and the batch API's failure in ``judge --batch``)."""
    status = getattr(exc, "status_code", None)
    kind = "timeout" if isinstance(exc, asyncio.TimeoutError) else type(exc).__name__
    text = str(exc).splitlines()[0][:200] if str(exc) else ""
    root = _root(exc)
    # the SDKs wrap a transport fault ("Connection error."): what really happened is at the root
    why = str(root).splitlines()[0][:200] if root is not exc and str(root) else ""
    said = f"{kind}{f' {status}' if status else ''}: {text}".rstrip(": ")
    return f"{said} ({why})" if why and why not in said else said


def _root(exc: BaseException) -> BaseException:
    """The first cause of an exception chain, as a traceback shows it (``raise … from None`` ends it;
    bounded: a cycle or a deep chain stops the walk)."""
    for _ in range(20):
        cause = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
        if cause is None:
            break
        exc = cause
    return exc


def read_completion(reply: Any, meter: CostMeter, price: Callable[[int, int], Any] | None) -> Completion:
    """A reply as the run's completion: its message text, its tokens, and what it cost by
    ``price(tokens_in, tokens_out)`` (a price that fails or is unknown costs 0), counted on
    ``meter``. The reply is litellm's response to a live call, or a batch reply's JSON body
    (its fields read as keys); a reply with no message is the call's error.
    """
    choices = _field(reply, "choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    message = _field(first, "message")
    text = _field(message, "content")
    if not (isinstance(message, Mapping) or hasattr(message, "content")) or not isinstance(text, str | None):
        raise JudgeCallError(NO_MESSAGE)
    usage = _field(reply, "usage")
    tokens_in, tokens_out = _count(_field(usage, "prompt_tokens")), _count(_field(usage, "completion_tokens"))
    try:
        cost = float(price(tokens_in, tokens_out) or 0.0) if price is not None else 0.0
    except Exception:  # a model without a known price costs what we cannot know: 0
        cost = 0.0
    meter.spent += cost
    meter.calls += 1
    return Completion(text or "", cost, tokens_in, tokens_out)


def _live_cost(litellm: Any, response: Any) -> Any:
    """What a live call cost: litellm prices every response as it returns it (its hidden
    ``response_cost``, None where the model has no known price) — pricing it again costs the event
    loop about as much as the rest of reading the reply; a response without that price is priced here."""
    hidden = getattr(response, "_hidden_params", None)
    if isinstance(hidden, Mapping) and "response_cost" in hidden:
        return hidden["response_cost"]
    return litellm.completion_cost(completion_response=response)


def _field(value: Any, name: str) -> Any:
    """A field of a reply's part: a key of a JSON object, else an attribute of litellm's object."""
    return value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)


class JudgeClient:
    """Calls one judge model through litellm; shared by every method of a run."""

    def __init__(
        self,
        settings: ClientSettings,
        cache: KeyValueCache | None = None,
        meter: CostMeter | None = None,
        concurrency: int = 8,
        limits: Limits | None = None,
    ) -> None:
        self.settings = settings
        self.cache = cache
        self.meter = meter or CostMeter()
        #: the rate caps and adaptive concurrency every call starts through (``concurrency``
        #: in flight and no cap, unless a run hands its own)
        self.limits = limits or Limits(concurrency)
        self._schema_support: bool | None = None

    @property
    def model(self) -> str:
        """The model name as litellm knows it."""
        return self.settings.model

    def supports_schema(self) -> bool:
        """Whether litellm knows this model takes ``response_format`` with a JSON schema."""
        if self._schema_support is None:
            try:
                self._schema_support = bool(import_litellm().supports_response_schema(self.model))
            except Exception:  # unknown model: parse the reply instead
                self._schema_support = False
        return self._schema_support

    def _params(self, schema: dict[str, Any] | None) -> dict[str, Any]:
        params: dict[str, Any] = {"temperature": self.settings.temperature}
        if self.settings.max_tokens:
            params["max_tokens"] = self.settings.max_tokens
        if schema is not None and self.supports_schema():
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "judgement", "schema": schema, "strict": True},
            }
        return params

    async def complete(
        self, prompt: BuiltPrompt, sample: int = 0, followup: list[dict[str, str]] | None = None
    ) -> Completion:
        """One reply to the prompt (plus a re-ask follow-up), from the cache when it holds it."""
        params = self._params(prompt.schema)
        key_hash = prompt.prompt_hash if not followup else digest([prompt.prompt_hash, followup])
        key = judge_cache_key(self.model, key_hash, params, sample, self.settings.api_base)
        if self.cache is not None:
            hit = self.cache.get(key)
            if isinstance(hit, dict) and isinstance(hit.get("text"), str):  # else: not usable, ask again
                self.meter.cached_calls += 1
                return Completion(hit["text"], 0.0, _count(hit.get("tokens_in")),
                                  _count(hit.get("tokens_out")), cached=True)
        completion = await self._answer(key, prompt.messages + (followup or []), params)
        if self.cache is not None:
            self.cache.put(key, {"text": completion.text, "cost_usd": completion.cost_usd,
                                 "tokens_in": completion.tokens_in, "tokens_out": completion.tokens_out})
        return completion

    async def _answer(self, key: str, messages: list[dict[str, str]], params: dict[str, Any]) -> Completion:
        """The reply to one request the cache does not hold (``key`` is its cache key): a live call
        here; a batch run answers from its batch instead (:mod:`rubrics.judge.batch`)."""
        return await self._call(messages, params)

    async def _call(self, messages: list[dict[str, str]], params: dict[str, Any]) -> Completion:
        litellm = import_litellm()
        s = self.settings
        tokens = message_tokens(messages) + int(params.get("max_tokens") or 0)
        failed = throttled = 0
        while True:
            self.meter.check()
            try:
                start = await self.limits.acquire(tokens)
            except LimitTooSmall as exc:
                raise JudgeCallError(str(exc)) from None
            try:
                # (a deadline on this task, not wait_for's second task and callbacks per call)
                async with asyncio.timeout(s.timeout):
                    response = await litellm.acompletion(
                        model=s.model, messages=messages, api_base=s.api_base,
                        api_key=s.api_key, timeout=s.timeout, max_retries=0, **params,
                    )
            except BaseException as exc:
                if not isinstance(exc, Exception):  # cancelled, Ctrl-C: the slot is free again
                    self.limits.release(start, answered=False)
                    raise
                limited = _status(exc) == 429
                wait = _retry_after(exc) if limited else None
                if wait is None:
                    wait = min(s.backoff_max, s.backoff * 2 ** (failed + throttled)) * random.uniform(0.8, 1.2)
                self.limits.release(start, retry_after=wait if limited else None, answered=False)
                # a 429 is the provider's limit, not the call's fault: it has its own budget
                throttled += limited
                failed += not limited
                if not _retryable(exc) or failed > max(0, s.retries) or throttled > RATE_LIMITED_RETRIES:
                    raise JudgeCallError(f"{describe_failure(exc)} (after {failed + throttled} attempts)") from exc
                if not limited:  # a 429's pause is the limits' to hold, for every call
                    await asyncio.sleep(wait)
                continue
            used = None
            try:
                completion = self._completion(litellm, response)
                used = completion.tokens_in + completion.tokens_out
            finally:
                self.limits.release(start, used)
            return completion

    def _completion(self, litellm: Any, response: Any) -> Completion:
        return read_completion(response, self.meter, lambda _in, _out: _live_cost(litellm, response))

    async def judge(
        self, prompt: BuiltPrompt, validate: Callable[[dict[str, Any]], T], sample: int = 0,
        parse: Callable[[str], dict[str, Any]] = extract_json, reask: str = REASK,
    ) -> Outcome[T]:
        """A validated answer: the reply, then one re-ask if it is unusable, then an error.

        ``parse`` turns the reply text into the answer mapping ``validate`` checks (JSON by
        default; FlexEval's last-line choice for ``judge.reply: last_line``)."""
        out: Outcome[T] = Outcome()
        try:
            first = await self.complete(prompt, sample)
        except JudgeCallError as exc:
            return Outcome(error=str(exc), cached=False)
        out.add(first)
        try:
            out.value = _read(validate, first.text, parse)
            return out
        except ReplyError as exc:
            problem = str(exc)
        followup = [
            {"role": "assistant", "content": first.text},
            {"role": "user", "content": reask.format(problem=problem)},
        ]
        try:
            second = await self.complete(prompt, sample, followup)
        except JudgeCallError as exc:
            out.error, out.raw = f"{problem}; the re-ask failed: {exc}", first.text
            return out
        out.add(second)
        try:
            out.value = _read(validate, second.text, parse)
        except ReplyError as exc:
            out.error = f"unusable reply after one re-ask: {exc}"
            out.raw = f"{first.text}\n--- re-ask reply ---\n{second.text}"
        return out


def _read(validate: Callable[[dict[str, Any]], T], text: str,
          parse: Callable[[str], dict[str, Any]] = extract_json) -> T:
    """The validated answer in a reply; anything that goes wrong reading it is a :class:`ReplyError`
    (a validator tripping over an odd value must not end the run)."""
    try:
        return validate(parse(text))
    except ReplyError:
        raise
    except RecursionError:
        raise ReplyError("the reply's JSON is nested too deeply") from None
    except Exception as exc:
        raise ReplyError(f"the reply could not be read ({type(exc).__name__}: {str(exc)[:200]})") from None


def _count(value: Any) -> int:
    """A token count from a reply or the cache; anything odd counts as 0."""
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError, OverflowError):
        return 0
