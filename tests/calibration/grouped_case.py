"""A fixed grouped-calibrate case (seeded): the input of the before/after figures test."""

from __future__ import annotations

import numpy as np

from calibration.alpha import Level
from calibration.report import DimensionInput


def grouped_inputs() -> list[DimensionInput]:
    """Three dimensions over 3,000 items in 40 groups of uneven size (some of one item, some
    constant on one side), with missing human ratings and group keys of mixed types."""
    rng = np.random.default_rng(2028)
    n = 3000
    keys: list[object] = [f"sys-{i}" for i in range(30)] + [7, 7.5, True, None, "", "é", "Ω-9", 12, "x y", "z"]
    groups = [keys[int(k)] for k in rng.zipf(1.3, n) % len(keys)]
    groups[5] = "alone"  # a group of one item: no correlation
    out = []
    dims: tuple[tuple[str, Level], ...] = (("accuracy", "ordinal"), ("clarity", "interval"), ("safe", "nominal"))
    for d, level in dims:
        top = 2 if level == "nominal" else 5
        truth = rng.integers(1, top + 1, n).astype(float)
        judge = np.clip(truth + rng.integers(-1, 2, n), 1, top).astype(float)
        humans = np.clip(truth[:, None] + rng.integers(-1, 2, (n, 3)), 1, top).astype(float)
        humans[rng.random((n, 3)) < 0.3] = np.nan
        flat = [i for i, g in enumerate(groups) if g == "z"]
        judge[flat] = 3.0 if top == 5 else 1.0  # one group the judge scores flat
        out.append(DimensionInput(d, judge, humans, list(range(1, top + 1)), 3.0 if top == 5 else 1.0,
                                  level=level, groups=groups))
    return out
