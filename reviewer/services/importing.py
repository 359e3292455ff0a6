"""Importing an item file: :mod:`reviewer.io` reads and checks it, the store writes the rows.

The store never opens or parses a file (an import-linter contract keeps it so); this is the one
place that joins the two, for the CLI, the demo and the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from reviewer.domain.pairs import PairLines
from reviewer.io.itemfile import ItemFile

if TYPE_CHECKING:  # (the store's types alone: importing them loads SQLAlchemy)
    from reviewer.store import Store
    from reviewer.store.views import ImportSummary


def import_file(store: Store, path: str | Path, rubric_ref: str, dataset: str | None = None,
                update_existing: bool = False, progress: Callable[[int, int], None] | None = None) -> ImportSummary:
    """Import a JSON Lines or CSV item file, its pair records with it, into ``store`` in one
    transaction (see :meth:`reviewer.store.importer.ImportMixin.import_items`); returns its
    ``ImportSummary``.
    A file with any bad line is refused whole, every bad line listed, nothing written."""
    source = ItemFile(path)
    errs: list[str] = []
    pairs = PairLines(tuple(source.pairs(errs)), tuple(errs))
    summary: ImportSummary = store.import_items(source, rubric_ref, dataset, update_existing=update_existing,
                                                progress=progress, pairs=pairs)
    return summary


__all__ = ["import_file"]
