"""Read rubricate's own item records from a Parquet file: one row per item, the columns the
JSON Lines fields (``docs/formats.md``). ``conversation``, ``metadata``, ``judge``, ``human`` and
``gold`` may be nested columns or JSON text, as in CSV. pyarrow is imported only here, only when
a Parquet file is read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reviewer.io.adapters.base import AdapterError, Converted

#: Columns whose cells may be JSON text (as in CSV) or nested values.
JSON_COLUMNS = ("conversation", "metadata", "judge", "human", "gold")


def read_parquet(path: Path, src: str) -> Converted:
    """The file's rows as import records (``FILE:row N`` names each in messages)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - pyarrow is a dependency; said plainly if it is missing
        raise AdapterError(f"{src}: reading Parquet needs pyarrow; pip install pyarrow") from None
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises its own error types for every kind of bad file
        raise AdapterError(f"{src}: not a readable Parquet file ({str(exc)[:200]}); write it again") from None
    out = Converted("rubricate")
    for n, row in enumerate(table.to_pylist(), start=1):
        record: dict[str, Any] = {}
        for key, value in row.items():
            if value is None:
                continue
            if key in JSON_COLUMNS and isinstance(value, str):
                try:
                    value = json.loads(value)
                except ValueError:
                    raise AdapterError(f"{src}:row {n}: column {key!r} must hold JSON text") from None
            record[key] = value
        out.records.append((f"row {n}", record))
    return out


__all__ = ["read_parquet"]
