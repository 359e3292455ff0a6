"""Judge replies a run could not store, kept in a file until the next run stores them.

A judge reply is paid for: when the database refuses the run's writes past its timeout (another
process holding the write lock, the server gone), the replies not yet in the judge cache are
written to a file outside the database (:meth:`judge_pending_path`), with the run that could not
be closed. The next judge run of that database first puts them into the judge cache and closes the
run (``failed``, or ``interrupted`` after Ctrl-C), then removes the file; ``--only-missing`` then scores the missing items from
the cache without calling the judge again.

The file is JSON: ``{"format": FORMAT, "cache": {key: value}, "runs": {run id: totals}}``; it is
written whole to a temporary file, flushed to disk and renamed, so a crash leaves the old file or
the new one, never half of one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reviewer.errors import UserError

if TYPE_CHECKING:  # (the store's class, for its type alone: importing it loads SQLAlchemy)
    from reviewer.store import Store

FORMAT = "rubricate-judge-pending/1"
#: The cache keys of judge replies (the other cached values are embeddings, free to make again).
REPLY_PREFIX = "judge:"


def replies(entries: Mapping[str, object]) -> int:
    """How many of the cache entries are judge replies."""
    return sum(1 for key in entries if key.startswith(REPLY_PREFIX))


def read(path: Path) -> tuple[dict[str, dict[str, object]], dict[int, dict[str, object]]] | None:
    """The kept cache entries and unclosed runs (run id → totals), or None with no file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not {FORMAT}")
        cache, runs = data.get("cache"), data.get("runs")
        if not isinstance(cache, dict) or not all(isinstance(v, dict) for v in cache.values()):
            raise ValueError("'cache' is not a mapping of entries")
        if not isinstance(runs, dict) or not all(isinstance(v, dict) for v in runs.values()):
            raise ValueError("'runs' is not a mapping of run totals")
        return {str(k): v for k, v in cache.items()}, {int(k): v for k, v in runs.items()}
    except ValueError as exc:  # JSONDecodeError is one
        raise UserError(f"{path}: not a file of kept judge replies ({exc}); move it away to go on "
                        "(the replies in it are then asked for again)") from None


def keep(path: Path, cache: Mapping[str, dict[str, object]], runs: Mapping[int, dict[str, object]]) -> None:
    """Add entries and unclosed runs to the file (entries already there win: first write wins,
    as in the cache)."""
    have_cache, have_runs = read(path) or ({}, {})
    merged = {**cache, **have_cache}
    data = {"format": FORMAT, "cache": merged, "runs": {str(k): v for k, v in {**have_runs, **runs}.items()}}
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        json.dump(data, out, ensure_ascii=False)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
    try:  # the rename itself reaches the disk
        folder = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def restore(store: Store) -> int:
    """Store what an earlier run kept (the cache entries; the unclosed runs closed with the status
    they ended with) and remove the file; how many judge replies it held (0: no file). A store that
    still refuses the writes raises, and the file stays."""
    path = store.runs.judge_pending_path()
    kept = read(path)
    if kept is None:
        return 0
    cache, runs = kept
    store.runs.judge_cache_put_many(cache)
    for run_id, totals in sorted(runs.items()):
        store.runs.finish_judge_run(run_id, str(totals.get("status") or "failed"), totals)
    path.unlink(missing_ok=True)
    return replies(cache)
