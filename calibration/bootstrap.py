"""Percentile bootstrap of every interval in a report, vectorised: figures from weighted sums.

A bootstrap draw resamples the units (items) with replacement; unit ``u`` is then picked
``W[b, u]`` times in draw ``b``. Every figure with an interval here is a function of a few sums
over units (alpha of ``m``, ``Σx``, ``Σx²``, the unit's observed disagreement and, for nominal and
ratio, its per-value counts; Pearson of ``Σx, Σy, Σx², Σy², Σxy``), so a draw's figure is
``W @ S`` — one matrix product for every figure of every dimension — followed by a few
vectorised operations. The weights come from one seed for the whole report, so the dimensions'
intervals come from the same resamples of items; they are streamed in chunks (:class:`Draws`).

Ordinal positions, nominal categories and Spearman ranks are taken from the full sample (as
before: the metric is fixed, the units are resampled).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass
from queue import Empty, Queue

import numpy as np
from numpy.typing import NDArray

from calibration.alpha import Level, ordinal_positions, unique_codes

Array = NDArray[np.float64]
#: Per-draw sums (draws × k) → the figure per draw (NaN where undefined).
Finish = Callable[[Array], Array]
#: Beyond this many distinct values, nominal and ratio alpha are bootstrapped draw by draw.
MAX_VALUES = 64
#: Draws per chunk of weights at most, and the bytes a chunk's floats may take (the product
#: ``W @ S`` is memory-bound: a chunk of a few tens of megabytes is as fast as a bigger one).
CHUNK = 50
CHUNK_BYTES = 32 << 20


class Draws:
    """Resampling weights over ``n_units`` units for ``draws`` draws, from ``seed``.

    The weights are streamed: each pass over :meth:`chunks` draws them again from the seed, a few
    rows at a time (the same rows every pass, whatever the chunk size), so a pass holds a chunk
    of at most :data:`CHUNK_BYTES` of them (and the next chunk's units, drawn ahead), never the
    whole ``draws × n_units`` matrix."""

    def __init__(self, n_units: int, draws: int, seed: int) -> None:
        self.n_units, self.draws, self.seed = n_units, draws, seed

    @property
    def rows(self) -> int:
        """Draws per chunk: ``CHUNK``, fewer when that many rows of floats would pass ``CHUNK_BYTES``."""
        return max(1, min(CHUNK, CHUNK_BYTES // (8 * max(1, self.n_units))))

    def chunks(self) -> Generator[Array, None, None]:
        """The weights, a chunk of draws at a time, as float (draws × units).

        The seed's units are drawn on a thread of its own (the generator lets go of the GIL), one
        chunk ahead, while this thread counts them and the caller works on the chunk before:
        the same rows in the same order as drawing them here (one stream, read in order)."""
        ahead: Queue[NDArray[np.int32] | BaseException | None] = Queue(maxsize=1)
        stop = threading.Event()

        def draw() -> None:
            try:
                rng = np.random.default_rng(self.seed)
                n, rows = self.n_units, self.rows
                for start in range(0, self.draws, rows):
                    if stop.is_set():
                        return
                    # one call for k rows reads the stream as k calls of one row each do
                    ahead.put(rng.integers(0, n, size=(min(rows, self.draws - start), n), dtype=np.int32))
                ahead.put(None)
            except BaseException as e:  # handed to the reader, raised there
                ahead.put(e)

        drawer = threading.Thread(target=draw, name="bootstrap-draws", daemon=True)
        drawer.start()
        try:
            while (units := ahead.get()) is not None:
                if isinstance(units, BaseException):
                    raise units
                chunk = np.empty(units.shape, dtype=np.float64)
                for row, picked in enumerate(units):  # how often each unit was drawn (exact: ≤ n)
                    chunk[row] = np.bincount(picked, minlength=self.n_units)
                yield chunk
        finally:  # the reader stopped (done, or left early): let the drawer see it and end
            stop.set()
            while drawer.is_alive():
                with contextlib.suppress(Empty):
                    ahead.get(timeout=0.05)
            drawer.join()


@dataclass
class Spec:
    """One interval to compute: per-unit sums ``S`` (units × k) and how a draw's sums become
    the figure."""

    sums: Array
    finish: Finish


def run(specs: list[Spec], draws: Draws) -> list[tuple[float, float] | None]:
    """The 95% percentile interval of each spec's figure (None when no draw defined it)."""
    out: list[tuple[float, float] | None] = []
    for vals in per_draw(specs, draws):
        vals = vals[~np.isnan(vals)]
        out.append((float(np.percentile(vals, 2.5)), float(np.percentile(vals, 97.5))) if vals.size else None)
    return out


def per_draw(specs: list[Spec], draws: Draws) -> list[Array]:
    """Each spec's figure in every draw (NaN where a draw leaves it undefined), draw ``b`` of
    every spec from the same resample: a paired comparison subtracts them draw by draw."""
    if not specs:
        return []
    from threadpoolctl import threadpool_limits

    widths = [s.sums.shape[1] for s in specs]
    stacked = np.concatenate([s.sums for s in specs], axis=1)
    # One BLAS thread: the product is memory-bound, and BLAS threads spinning on a busy machine
    # cost many times the work itself (26 s of CPU against 1.6 s on one thread, measured).
    with threadpool_limits(limits=1, user_api="blas"):
        parts = [w @ stacked for w in draws.chunks()]
    sums = np.concatenate(parts, axis=0) if parts else np.zeros((0, stacked.shape[1]))
    out: list[Array] = []
    col = 0
    for spec, k in zip(specs, widths, strict=True):
        out.append(spec.finish(sums[:, col:col + k]))
        col += k
    return out


def _ratio(a: Array, b: Array) -> Array:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(a + b == 0, 0.0, ((a - b) / (a + b)) ** 2)


def alpha_spec(data: Array, level: Level) -> Spec | None:
    """Krippendorff's alpha over resampled units of ``data`` (units × coders, NaN missing);
    None when the level's distinct values are too many to count per unit (the caller then
    bootstraps draw by draw)."""
    data = np.asarray(data, dtype=np.float64)
    mask = ~np.isnan(data)
    m = mask.sum(axis=1).astype(np.float64)
    pairable = m >= 2
    mask &= pairable[:, None]
    m = np.where(pairable, m, 0.0)
    safe_m = np.where(pairable, m - 1, 1.0)
    if level in ("nominal", "ratio"):
        uniq, codes, _ = unique_codes(data[mask])
        if uniq.size > MAX_VALUES or uniq.size == 0:
            return None
        rows, _ = np.nonzero(mask)
        counts = np.zeros((data.shape[0], uniq.size))
        np.add.at(counts, (rows, codes), 1.0)
        dist = (uniq[:, None] != uniq[None, :]).astype(np.float64) if level == "nominal" else _ratio(
            uniq[:, None], uniq[None, :])
        # within a unit: Σ_{c,k} n_uc n_uk δ(c, k) / (m − 1)
        observed = np.einsum("uc,ck,uk->u", counts, dist, counts) / safe_m
        sums = np.column_stack([m, observed, counts])

        def finish(s: Array) -> Array:
            n, o, nc = s[:, 0], s[:, 1], s[:, 2:]
            e = np.einsum("bc,ck,bk->b", nc, dist, nc)
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where((e > 0) & (n >= 2), 1 - (n - 1) * o / e, np.nan)

        return Spec(sums, finish)
    x = np.where(mask, data, 0.0)
    if mask.any():
        x[mask] = ordinal_positions(data[mask]) if level == "ordinal" else data[mask]
        x[mask] -= x[mask].mean()  # alpha does not move with a shift; the sums stay small
    s1, s2 = x.sum(axis=1), (x * x).sum(axis=1)
    observed = np.where(pairable, (2 * m * s2 - 2 * s1 * s1) / safe_m, 0.0)

    def finish_interval(s: Array) -> Array:
        n, t1, t2, o = s[:, 0], s[:, 1], s[:, 2], s[:, 3]
        e = 2 * n * t2 - 2 * t1 * t1
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where((e > 1e-9 * np.maximum(n * t2, 1.0)) & (n >= 2), 1 - (n - 1) * o / e, np.nan)

    return Spec(np.column_stack([m, s1, s2, observed]), finish_interval)


def pearson_spec(a: Array, b: Array, keep: NDArray[np.bool_]) -> Spec:
    """Pearson's r over resampled units where ``keep`` (on ranks, it is Spearman's)."""
    a = np.where(keep, a - (a[keep].mean() if keep.any() else 0.0), 0.0)
    b = np.where(keep, b - (b[keep].mean() if keep.any() else 0.0), 0.0)
    one = keep.astype(np.float64)
    sums = np.column_stack([one, a, b, a * a, b * b, a * b])

    def finish(s: Array) -> Array:
        n, x, y, xx, yy, xy = s.T
        den = np.sqrt(np.clip(n * xx - x * x, 0, None) * np.clip(n * yy - y * y, 0, None))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where((den > 1e-12 * np.maximum(n * n, 1.0)) & (n >= 3), (n * xy - x * y) / den, np.nan)

    return Spec(sums, finish)
