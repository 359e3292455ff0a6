"""One rule for work a screen puts off (``call_next``, ``call_after_refresh``, the answer to a
read's message): it runs only while its screen is up, and does nothing once the screen is gone.

A deferred callback can outlive its screen: the queue's page read that lands while the app
quits had its table filled after Textual had removed the screen's widgets (the app runs its
pending callbacks once more as it unmounts), found no table and ended the app with ``NoMatches``
(exit 1); a callback a screen queues after the next frame runs on whichever screen is shown by
then, its own possibly gone. A screen is up from its mount until it is removed or the app starts
to exit (Textual's ``is_attached``); while it is up the callback runs as written, so a widget
missing from a live screen is still an error.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from textual.widget import Widget

P = ParamSpec("P")
W = TypeVar("W", bound=Widget)


def deferred(fn: Callable[Concatenate[W, P], None]) -> Callable[Concatenate[W, P], None]:
    """Make ``fn`` a screen's deferred callback: a no-op unless the screen (or widget) is up."""

    @functools.wraps(fn)
    def run(node: W, /, *args: P.args, **kwargs: P.kwargs) -> None:
        if node.is_mounted and node.is_attached:
            fn(node, *args, **kwargs)

    return run


__all__ = ["deferred"]
