"""Fixed grouped-calibrate cases (seeded): the input of the before/after figures test, and items
for a corrected ranking by group."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

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


def ranked_items(n: int, audited: int, models: str, dims: tuple[str, ...], centre: Callable[[int], float],
                 spread: float, flatter: float, noise: float, top: float,
                 seed: int) -> tuple[list[str], dict[str, dict[str, list[float]]]]:
    """Item lines for a corrected ranking by ``metadata.model`` (or ``variant``, the same): item
    ``i`` is model ``models[i % len(models)]`` with a true score about ``centre(i)`` (give or take
    ``spread``) on a scale of 1 to ``top``, the judge adding ``flatter``
    to the first model's (and noise); the first ``audited`` items are in the audit sample with one
    person's true score. Returns the lines and, per model, the labels ``y``, the judge's scores on
    them ``yhat`` and on the rest ``yu`` (what PPI's mean of that model is computed from)."""
    rng = np.random.default_rng(seed)
    truth: dict[str, dict[str, list[float]]] = {m: {"y": [], "yhat": [], "yu": []} for m in models}
    lines: list[str] = []
    for i in range(n):
        model = models[i % len(models)]
        true = float(np.clip(np.rint(rng.normal(centre(i), spread)), 1, top))
        judge = float(np.clip(np.rint(true + (flatter if model == models[0] else 0.0) + rng.normal(0, noise)), 1, top))
        item: dict[str, Any] = {"id": f"q{i}", "input": "q", "output": "x", "metadata": {"model": model}, "variant": model,
                                "judge": {"model": "j", "scores": {d: judge for d in dims}}}
        if i < audited:
            item["audit"] = True
            item["human"] = [{"reviewer": "ana", "scores": {d: true for d in dims}}]
            truth[model]["y"].append(true)
            truth[model]["yhat"].append(judge)
        else:
            truth[model]["yu"].append(judge)
        lines.append(json.dumps(item))
    return lines, truth
