"""The line diff of an output against its corrected answer (reviewer.domain.corrections): every
line of both texts, in order, each marked; past MAX_DIFF_LINES no diff at all (None), never a
slow one on the screen's thread."""

from __future__ import annotations

import random
import time

from hypothesis import given
from hypothesis import strategies as st

from reviewer.domain.corrections import MAX_DIFF_LINES, line_diff

LINES = st.lists(st.sampled_from(["", "a", "b", "the answer", "  indented", "x y z"]), max_size=30)


@given(LINES, LINES)
def test_the_diff_keeps_every_line_of_both_in_order(a: list[str], b: list[str]) -> None:
    diff = line_diff("\n".join(a), "\n".join(b))
    assert diff is not None
    assert [line for side, line in diff if side != "correction"] == "\n".join(a).splitlines()
    assert [line for side, line in diff if side != "output"] == "\n".join(b).splitlines()


def test_an_added_line_is_the_only_change() -> None:
    assert line_diff("one\ntwo", "one\nsource: WHO\ntwo") == [
        ("same", "one"), ("correction", "source: WHO"), ("same", "two")]


def test_past_the_bound_there_is_no_diff_and_at_it_one_comes_quickly() -> None:
    """Texts built so that no line is rare enough to anchor the match (the slow case)."""
    rng = random.Random(1)
    a = "\n".join(f"l{rng.randrange(100)}" for _ in range(MAX_DIFF_LINES))
    b = "\n".join(f"l{rng.randrange(100)}" for _ in range(MAX_DIFF_LINES))
    start = time.perf_counter()
    assert line_diff(a, b) is not None
    assert time.perf_counter() - start < 1.0  # ~50 ms idle; generous for a loaded machine
    assert line_diff(a + "\nmore", b) is None and line_diff(a, b + "\nmore") is None
