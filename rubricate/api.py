"""A store opened from Python: :func:`open` and :class:`Store`.

Every figure comes from the same code as the command line's: :meth:`Store.scores` is the tidy
table ``rubricate export --format parquet`` writes (:mod:`reviewer.services.tidy`), and
:meth:`Store.calibrate` is the report of ``rubricate calibrate --format json``
(:func:`reviewer.services.calibrate_service.calibrate`), as the same plain values.
"""

from __future__ import annotations

import json
import os
from types import TracebackType
from typing import TYPE_CHECKING, cast

from reviewer.services.reports import CalibrationReport

if TYPE_CHECKING:
    import pandas

    from reviewer.store import Store as _Store

#: The one line a missing pandas gives (pandas is the ``notebook`` extra, not a dependency).
NO_PANDAS = ("rubricate: Store.scores() returns a pandas DataFrame and pandas is not installed; "
             "install it with: pip install 'rubricate[notebook]'")


def _pandas() -> None:
    """Refuse in one line, naming the extra, when pandas cannot be imported."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise ModuleNotFoundError(NO_PANDAS, name="pandas") from None


class Store:
    """An opened rubricate database (:func:`open`); close it with :meth:`close`, or use it in a
    ``with`` block."""

    def __init__(self, store: _Store) -> None:
        self._store = store

    def scores(self, rubric: str | None = None, dataset: str | None = None) -> pandas.DataFrame:
        """The tidy score table of a rubric version (``ID@VERSION``; every rubric's without
        one; ``dataset``: only its items) as a pandas DataFrame: one row per item × dimension ×
        scorer, the columns and rows of ``rubricate export --format parquet`` (docs/formats.md,
        "Tidy export")."""
        _pandas()
        import pyarrow as pa

        from reviewer.services.tidy import tidy_schema, tidy_tables

        tables = list(tidy_tables(self._store, rubric, dataset))
        table = pa.concat_tables(tables) if tables else tidy_schema().empty_table()
        del tables
        return table.to_pandas(self_destruct=True)

    def calibrate(self, rubric: str, *, dataset: str | None = None, sample: str | None = None,
                  group_by: str | None = None, human_aggregate: str = "mean", level: str | None = None,
                  bootstrap: int = 1000, seed: int = 0, normalise: str = "none", confidence: float = 0.95,
                  target_width: float | None = None, estimates: bool = True,
                  all_revisions: bool = False) -> CalibrationReport:
        """The calibration report of a rubric version: the figures of ``rubricate calibrate
        --rubric RUBRIC --format json`` with the same options (``bootstrap``: the draws for the
        intervals, 0 skips them), as the same plain values (dicts, lists, numbers, None)."""
        from reviewer.services.calibrate_service import calibrate
        from reviewer.services.report_json import calibration_number, report_json

        report = calibrate(self._store, rubric, dataset, sample, group_by, human_aggregate, level, seed,
                           draws=bootstrap, normalise=normalise, confidence=confidence,
                           target_width=target_width, estimates=estimates, all_revisions=all_revisions)
        # the JSON the command writes, read back: the same values, with numpy's numbers as floats
        return cast(CalibrationReport, json.loads(report_json(report, None, calibration_number)))

    def close(self) -> None:
        """Close the database's connections."""
        self._store.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def open(db: str | os.PathLike[str]) -> Store:
    """Open an existing rubricate database: a SQLite path or a database URL, as ``--db`` takes.
    A path with no database, or a database without rubricate's tables, is refused in one line."""
    from reviewer.store import open_store

    return Store(open_store(os.fspath(db), existing=True))


__all__ = ["CalibrationReport", "Store", "open"]
