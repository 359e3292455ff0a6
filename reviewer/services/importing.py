"""Importing an item file: :mod:`reviewer.io` reads and checks it, the store writes the rows.

The store never opens or parses a file (an import-linter contract keeps it so); this is the one
place that joins the two, for the CLI, the demo and the tests. A file in another tool's format
(``--from promptfoo``, …; or recognised by its shape) is converted by its adapter
(:mod:`reviewer.io.adapters`) into the same records, checked the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reviewer.domain.pairs import PairLines
from reviewer.errors import UserError
from reviewer.io.itemfile import ItemFile

if TYPE_CHECKING:  # (the store's types alone: importing them loads SQLAlchemy)
    from reviewer.io.adapters import ConvertedSource
    from reviewer.io.adapters.base import Converted
    from reviewer.store import Store
    from reviewer.store.views import ImportSummary


def import_file(store: Store, path: str | Path, rubric_ref: str, dataset: str | None = None,
                update_existing: bool = False, progress: Callable[[int, int], None] | None = None) -> ImportSummary:
    """Import a JSON Lines or CSV item file, its pair records with it, into ``store`` in one
    transaction (see :meth:`reviewer.store.items.Items.import_items`); returns its
    ``ImportSummary``.
    A file with any bad line is refused whole, every bad line listed, nothing written."""
    return import_opened(store, Opened(ItemFile(path), "rubricate", False), rubric_ref, dataset,
                         update_existing, progress)


@dataclass
class Opened:
    """A file opened for import: what it will be read as, and how that was decided."""

    source: ItemFile | ConvertedSource
    format: str
    #: True when the format was recognised from the file's shape (no ``--from``)
    detected: bool
    converted: Converted | None = None
    notes: list[str] = field(default_factory=list)


#: The first bytes of a Parquet file.
PARQUET_MAGIC = b"PAR1"


def open_source(path: Path, fmt: str | None, name: str | None = None, traces: Path | None = None) -> Opened:
    """``path`` as an import source in format ``fmt`` (None: recognised by its shape, else the
    native item file). ``name`` is what messages call it (``-`` for standard input); ``traces``
    a Langfuse traces file for a scores export's texts."""
    from reviewer.io.adapters import FORMATS, AdapterError, ConvertedSource, detect, read_source

    shown = name or str(path)
    if fmt is not None and fmt not in FORMATS:
        raise UserError(f"--from: unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    try:
        with path.open("rb") as fh:
            head = fh.read(4)
        if head == PARQUET_MAGIC and fmt in (None, "rubricate"):
            from reviewer.io.parquet import read_parquet
            from reviewer.store.importer import paused_gc

            with paused_gc():
                converted = read_parquet(path, shown)
            return Opened(ConvertedSource(path, converted, shown), "rubricate", False, converted)
        detected = fmt is None
        fmt = fmt or detect(path)
        if fmt is None or fmt == "rubricate":
            if traces is not None:
                raise UserError(f"{traces}: --traces goes with --from langfuse")
            return Opened(ItemFile(path, name), "rubricate", False)
        from reviewer.store.importer import paused_gc

        with paused_gc():  # millions of long-lived objects: collections over them cost more than the reading
            converted = read_source(path.read_bytes(), fmt, shown,
                                    None if traces is None else (traces.read_bytes(), str(traces)))
    except OSError as exc:
        raise UserError(f"{shown}: {exc.strerror or exc}; check the path") from None
    except AdapterError as exc:
        raise UserError(str(exc)) from None
    return Opened(ConvertedSource(path, converted, shown), fmt, detected, converted)


def import_opened(store: Store, opened: Opened, rubric_ref: str, dataset: str | None = None,
                  update_existing: bool = False,
                  progress: Callable[[int, int], None] | None = None) -> ImportSummary:
    """Import an opened source (:func:`open_source`), a JSON Lines item file's pair records with
    it; its notes (what had no home in rubricate, each said once) are in ``opened.notes``
    afterwards."""
    pairs = None
    if isinstance(opened.source, ItemFile):  # a JSON Lines item file may hold pair records
        errs: list[str] = []
        records = opened.source.pairs(errs)
        pairs = PairLines(tuple(records), tuple(errs), opened.source.name or str(opened.source.path))
    summary: ImportSummary = store.items.import_items(opened.source, rubric_ref, dataset, update_existing=update_existing,
                                                progress=progress, pairs=pairs)
    if opened.converted is not None:
        rubric = store.rubrics.get_rubric(rubric_ref)
        dims = {d.id for d in rubric.dimensions}
        for dim in opened.converted.dimensions:
            if dim not in dims:
                opened.converted.no_home[f"scores on {dim!r}: the rubric {rubric.ref} has no such dimension"] += 1
        opened.notes = opened.converted.notes()
    return summary


__all__ = ["Opened", "import_file", "import_opened", "open_source"]
