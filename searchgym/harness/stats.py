"""Intervals and significance for per-task results over seeds.

- :func:`bootstrap_ci`: the mean of a (seeds x tasks) matrix with a percentile bootstrap
  interval that resamples seeds *and* tasks (two-level), so the interval reflects both the
  test set's size and the spread between training seeds. With one seed it is the usual
  bootstrap over tasks.
- :func:`paired_permutation_test`: two methods on the same tasks; the per-task values (mean
  over seeds) are paired and the signs of the differences flipped at random (exact when there
  are at most 2^16 sign patterns). Two-sided p-value of the mean difference.

Every function takes an ``np.random.Generator`` (or a seed): no global state.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

EXACT_LIMIT = 16  # tasks with a non-zero difference up to which the permutation test is exact


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float

    def format(self, digits: int = 2) -> str:
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def _rng(rng: np.random.Generator | int | None) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(0 if rng is None else rng)


def bootstrap_ci(values: Sequence[Sequence[float]] | np.ndarray, level: float = 0.95, resamples: int = 2000,
                 rng: np.random.Generator | int | None = None) -> Interval:
    """Mean and percentile interval of a (seeds x tasks) matrix (a 1-D input is one seed)."""
    matrix = np.asarray(values, dtype=float)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    if matrix.ndim != 2 or matrix.size == 0:
        raise ValueError(f"bootstrap_ci needs a non-empty (seeds x tasks) matrix, got shape {matrix.shape}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    gen = _rng(rng)
    n_seeds, n_tasks = matrix.shape
    mean = float(matrix.mean())
    if matrix.size == 1:
        return Interval(mean, mean, mean)
    seeds = gen.integers(n_seeds, size=(resamples, n_seeds)) if n_seeds > 1 else np.zeros((resamples, 1), int)
    stats = np.empty(resamples)
    chunk = max(1, 2_000_000 // max(1, n_seeds * n_tasks))
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        tasks = gen.integers(n_tasks, size=(stop - start, n_tasks))
        picked = matrix[seeds[start:stop, :, None], tasks[:, None, :]]
        stats[start:stop] = picked.mean(axis=(1, 2))
    alpha = (1 - level) / 2
    low, high = np.quantile(stats, [alpha, 1 - alpha])
    return Interval(mean, float(low), float(high))


@dataclass(frozen=True)
class PairedTest:
    mean_difference: float  # mean over tasks of (a - b)
    p_value: float
    n_tasks: int
    exact: bool


def paired_permutation_test(a: Sequence[float], b: Sequence[float], resamples: int = 20_000,
                            rng: np.random.Generator | int | None = None) -> PairedTest:
    """Sign-flip test of mean(a - b) = 0 for paired per-task values (two-sided)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or x.size == 0:
        raise ValueError(f"paired values must be two non-empty vectors of one length, got {x.shape} and {y.shape}")
    diff = x - y
    observed = abs(diff.mean())
    nonzero = diff[diff != 0]
    if nonzero.size == 0:
        return PairedTest(0.0, 1.0, diff.size, True)
    tolerance = 1e-12
    if nonzero.size <= EXACT_LIMIT:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=nonzero.size)))
        means = np.abs(signs @ nonzero) / diff.size
        return PairedTest(float(diff.mean()), float(np.mean(means >= observed - tolerance)), diff.size, True)
    gen = _rng(rng)
    signs = gen.choice((-1.0, 1.0), size=(resamples, nonzero.size))
    means = np.abs(signs @ nonzero) / diff.size
    p = (np.sum(means >= observed - tolerance) + 1) / (resamples + 1)
    return PairedTest(float(diff.mean()), float(p), diff.size, False)
