"""Full garbage collections wait for the reviewer to pause.

Python runs a full (oldest-generation) collection after ten younger ones. With a review session's
objects that is a 10–30 ms stall, and it lands in the middle of whichever frame allocates past the
threshold: one next item in twenty took twice as long for it. People pause for seconds on each item,
so the full collection is run then instead; under continuous use one still runs after
:data:`BACKSTOP` younger collections, so memory stays bounded.

The youngest generation is collected after :data:`YOUNG` allocations instead of Python's 700:
showing an item allocates several thousand objects, almost all freed again by reference counting
before any collection, so at 700 every next item paid for 5–9 young collections (1–4 ms of the
UI thread) that found little; at :data:`YOUNG` it is about one, over far fewer survivors."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

#: Seconds without a key or a click that count as a pause.
IDLE_S = 1.0
#: Younger collections between full ones when no pause comes (Python's default is 10).
BACKSTOP = 100
#: Allocations (less deallocations) between collections of the youngest generation (Python's 700).
YOUNG = 10_000


class IdleCollector:
    """Tell it about each input (:meth:`touched`) and call :meth:`tick` every :data:`IDLE_S`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.last_input = clock()
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(max(young, YOUNG), middle, BACKSTOP)

    def touched(self) -> None:
        self.last_input = self.clock()

    def tick(self) -> bool:
        """Run a full collection when one is due and the reviewer has paused; whether it ran."""
        if gc.get_count()[2] == 0 or self.clock() - self.last_input < IDLE_S:
            return False
        gc.collect()
        return True
