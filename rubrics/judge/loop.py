"""The event loop a judge run sends its calls from: which threads its blocking work goes to.

litellm starts every call by running its synchronous set-up (``completion()``, which for an async
provider only builds the request) in the loop's *default executor*. Left to asyncio, that is a pool
of up to six threads; the set-ups are Python work under the interpreter's lock, so the extra threads
only take the lock from the loop that sends and reads the calls (measured: at 64 calls in flight
against a 200 ms server, one thread gave the run ~2 % more calls a second than six). A loop rubricate
makes for judge calls therefore gets a one-thread default executor (:data:`SETUP_THREADS`).

Work of rubricate's own that may hold a thread for seconds (an embedding model encoding a chunk)
goes to a thread of its own (:func:`off_loop`), so no call's set-up waits behind it.

The objects alive when the loop starts (litellm's, SQLAlchemy's, the rubric's: about a million)
live until it ends, and Python's cyclic garbage collector walked them all again on each of its
full passes: about 8 % of a 64-wide run's time. They are frozen out of its passes
(:func:`gc.freeze`) while the loop runs, and given back to it after (:func:`gc.unfreeze`), so a
process that runs judge loops again and again (the Python API) keeps collecting its garbage.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import weakref
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from rubrics.judge.client import release_litellm

R = TypeVar("R")

#: threads for litellm's per-call set-up on a judge loop
SETUP_THREADS = 1

_MODEL_THREADS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ThreadPoolExecutor] = (
    weakref.WeakKeyDictionary())


@contextlib.asynccontextmanager
async def judge_loop() -> AsyncIterator[None]:
    """Set the running loop (a fresh one rubricate made to send judge calls) up for them, and
    release litellm's connections and logging worker on it when the block ends (:func:`release_litellm`).

    Its default executor becomes :data:`SETUP_THREADS` threads; asyncio's own shutdown of the
    loop joins them. The thread for long work (:func:`off_loop`) is joined as the block ends. The
    objects alive as it starts are out of the garbage collector's passes until it ends."""
    loop = asyncio.get_running_loop()
    # (someone else's freeze is theirs to end: left as it is)
    frozen = gc.get_freeze_count() == 0
    if frozen:
        gc.freeze()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=SETUP_THREADS, thread_name_prefix="litellm-setup"))
    model = ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge-model")
    _MODEL_THREADS[loop] = model
    try:
        yield
    finally:
        try:
            await release_litellm()
        finally:
            _MODEL_THREADS.pop(loop, None)
            model.shutdown(wait=True)
            if frozen:
                gc.unfreeze()


async def off_loop(fn: Callable[..., R], *args: object) -> R:
    """``fn(*args)`` on a thread: the judge loop's own thread for long work, or (on a loop that is
    not a judge loop, e.g. a test scoring one item) asyncio's default one."""
    loop = asyncio.get_running_loop()
    model = _MODEL_THREADS.get(loop)
    if model is None:
        return await asyncio.to_thread(fn, *args)
    return await loop.run_in_executor(model, functools.partial(fn, *args))
