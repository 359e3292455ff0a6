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
    add_fitted(table, rows)


def add_fitted(table: DataTable[Any], rows: Sequence[Sequence[Text]]) -> None:
    """Add ``rows`` after the table's rows (keyed on by their index), widening a column a new cell
    is wider than (never cutting one): a page appended, the rows already there left as they are."""
    for n, column in enumerate(table.ordered_columns):
        column.width = max([column.width, *(r[n].cell_len for r in rows)])
    start = table.row_count
    for i, row_cells in enumerate(rows, start):
        table.add_row(*row_cells, key=str(i))
