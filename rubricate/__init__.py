"""rubricate from Python: a store's scores as a pandas DataFrame, its calibration report as
typed values, and the agreement statistics on plain arrays (docs/python.md).

    import rubricate

    with rubricate.open("rubricate.db") as store:
        df = store.scores("general-quality@1.0.0")
        report = store.calibrate("general-quality@1.0.0", bootstrap=0)
    rubricate.stats.alpha([[1, 1], [2, 3]], level="ordinal")

Importing this package loads neither pandas nor the database driver: ``open`` loads the store,
``Store.scores`` loads pandas (the ``notebook`` extra).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from rubricate import stats
from rubricate.api import Store, open

try:
    __version__: str = version("rubricate")
except PackageNotFoundError:  # run from a checkout that was never installed
    __version__ = "0+unknown"

__all__ = ["Store", "__version__", "open", "stats"]
