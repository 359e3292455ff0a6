"""Small helpers the store tests share (test modules import these, never one another)."""

from __future__ import annotations

import json
from pathlib import Path

from reviewer.services.importing import import_file
from reviewer.store import Store

REF = "general-quality@1.0.0"
CAPITAL = "Paris is the capital of France."


def cap_item(store: Store, tmp_path: Path, output: str = CAPITAL, update: bool = False,
             judge: dict[str, float] | None = None) -> int:
    """Import item ``cap`` ("Capital of France?") under :data:`REF` with this output (``update``:
    as a new revision of the stored one) and these judge scores (model ``j``); its pk."""
    row: dict[str, object] = {"id": "cap", "input": "Capital of France?", "output": output}
    if judge:
        row["judge"] = {"model": "j", "scores": judge}
    path = tmp_path / f"items-{len(output)}.jsonl"
    path.write_text(json.dumps(row) + "\n")
    import_file(store, path, REF, update_existing=update)
    return int(next(r.item_pk for r in store.queue.queue_page("triage") if r.item_id == "cap"))
