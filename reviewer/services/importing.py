"""Importing an item file: :mod:`reviewer.io` reads and checks it, the store writes the rows.

The store never opens or parses a file (an import-linter contract keeps it so); this is the one
place that joins the two, for the CLI, the demo and the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from reviewer.io.itemfile import ItemFile


def import_file(store: Any, path: str | Path, rubric_ref: str, dataset: str | None = None,
                update_existing: bool = False, progress: Callable[[int, int], None] | None = None) -> Any:
    """Import a JSON Lines or CSV item file into ``store`` in one transaction (see
    :meth:`reviewer.store.items.Items.import_items`); returns its ``ImportSummary``.
    A file with any bad line is refused whole, every bad line listed, nothing written."""
    return store.items.import_items(ItemFile(path), rubric_ref, dataset, update_existing=update_existing,
                              progress=progress)


__all__ = ["import_file"]
