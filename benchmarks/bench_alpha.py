"""Krippendorff's alpha on 1M ratings (5 levels, and 100k distinct values) beside the
`krippendorff` package on a size it can do; and the whole calibration report for 100k items ×
10 dimensions with humans on 10 % and 1,000 bootstrap draws (target ≤ 5 s)."""

from __future__ import annotations

import resource
import time

import krippendorff
import numpy as np

from calibration.alpha import krippendorff_alpha
from calibration.report import DimensionInput, dimension_report
from calibration.reviewers import judge_spread, per_reviewer

rng = np.random.default_rng(0)
for label, values in (("5 levels", 5), ("100k distinct values", 100_000)):
    x = rng.integers(0, values, size=(200_000, 5)).astype(float)
    t = time.perf_counter()
    a = krippendorff_alpha(x, "ordinal" if values == 5 else "interval")
    took = time.perf_counter() - t
    print(f"alpha, 1,000,000 ratings, {label}: {took:.3f} s (alpha {a:.4f}) target ≤ 1 s: "
          f"{'PASS' if took <= 1 else 'FAIL'}")
print(f"peak RSS of this process after both 1M-rating runs: "
      f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB (target ≤ 500 MB)")
small = rng.integers(0, 101, size=(20_000, 5)).astype(float)
t = time.perf_counter()
ref = krippendorff.alpha(small.T, level_of_measurement="ordinal")
pkg = time.perf_counter() - t
t = time.perf_counter()
ours = krippendorff_alpha(small, "ordinal")
own = time.perf_counter() - t
print(f"same run, 100,000 ratings with 101 distinct values: krippendorff package {pkg:.3f} s, "
      f"ours {own:.4f} s, |difference| {abs(ref - (ours or 0)):.2e}")

N, DIMS = 100_000, 10
truth = rng.integers(1, 11, size=(N, DIMS)).astype(float)
judge = np.clip(np.round(truth + rng.normal(0, 1, truth.shape)), 1, 10)
humans = np.full((N, DIMS, 3), np.nan)
sel = rng.random(N) < 0.10
humans[sel] = np.clip(np.round(truth[sel][:, :, None] + rng.normal(0, 0.7, (sel.sum(), DIMS, 3))), 1, 10)
t = time.perf_counter()
for d in range(DIMS):
    dimension_report(DimensionInput(f"d{d}", judge[:, d], humans[:, d, :], list(range(1, 11)), 7.3),
                     draws=1000, seed=d)
    per_reviewer(humans[:, d, :], ["a", "b", "c"])  # and the people figures beside them
    judge_spread(np.full(N, 0.5), judge[:, d:d + 1])
took = time.perf_counter() - t
print(f"calibration report with per-reviewer figures, {N:,} items × {DIMS} dims, humans on 10 %, 1,000 bootstrap draws: "
      f"{took:.2f} s target ≤ 5 s: {'PASS' if took <= 5 else 'FAIL'}")
