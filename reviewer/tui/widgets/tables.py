"""Filling a ``DataTable`` whose columns are as wide as their widest cell."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.widgets import DataTable


def fill_fitted(table: DataTable[Any], labels: Sequence[str], rows: Sequence[Sequence[Text]]) -> None:
    """Replace the table's columns and rows: each column as wide as its widest cell (or label),
    rows keyed by their index. The widths are set here: a width left to the table's next idle
    sizing was pictured either way (header-wide, cutting the cells, or full)."""
    table.clear(columns=True)
    for n, label in enumerate(labels):
        table.add_column(label, width=max([len(label), *(r[n].cell_len for r in rows)]))
    for i, row_cells in enumerate(rows):
        table.add_row(*row_cells, key=str(i))
