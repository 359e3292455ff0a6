"""A stored align run in one line, for the calibration screen (nothing here calls the judge)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reviewer.services.align_result import stored

if TYPE_CHECKING:
    from reviewer.store.align_runs import AlignRunRecord


def _num(x: float | None, fmt: str = ".2f") -> str:
    return "—" if x is None else format(float(x), fmt)


def align_line(run: AlignRunRecord | None) -> str | None:
    """``last align (run 4): k2 chosen on 28 dev items; better on 12 test items: α 0.10 → 0.95,
    difference +0.85 [+0.60, +1.00]; written as rubric@1.1.0`` — or how it stopped; None
    without a run."""
    if run is None:
        return None
    head = f"last align (run {run.run})"
    result = stored(run.result)
    test = result.get("test")
    if run.status != "done" or not test:
        return f"{head}: stopped ({run.status}), nothing chosen"
    ci = test.get("difference_ci")
    interval = f" [{_num(ci[0], '+.2f')}, {_num(ci[1], '+.2f')}]" if ci else ""
    line = (f"{head}: {result.get('chosen')} chosen on {len(result.get('dev_items', []))} dev items; "
            f"{test.get('verdict')} on {test.get('n')} test items: α {_num(test['before'].get('alpha'))} → "
            f"{_num(test['after'].get('alpha'))}, difference {_num(test.get('difference'), '+.2f')}{interval}")
    written = run.written_ref
    return line + (f"; written as {written}" if written else "")
