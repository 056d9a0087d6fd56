"""Per-candidate feature rows as one array, padding left as zeros.

Why: an observation's candidate tuple is padded with "" to ``max_candidates`` (often more than
half of it), and a padding row is all zeros; converting those rows from Python floats cost more
than the features themselves. Only the rows up to the last real candidate are converted.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np

from .encoders import BoundedCache


def real_count(candidates: Sequence[str]) -> int:
    """How many candidates there are up to the last non-empty one (the rest is padding)."""
    n = len(candidates)
    while n and not candidates[n - 1]:
        n -= 1
    return n


def feature_array(rows: Sequence[Sequence[float]], n_rows: int, n_features: int) -> np.ndarray:
    """[n_rows, n_features] float64: ``rows`` first (``len(rows) <= n_rows``), zeros after; the
    same values as ``np.array(rows + zero rows)``."""
    out = np.zeros(n_rows * n_features, dtype=np.float64)
    filled = len(rows) * n_features
    if filled:
        out[:filled] = np.fromiter(chain.from_iterable(rows), np.float64, filled)
    return out.reshape(n_rows, n_features)


class MemoisedRows:
    """Feature rows computed once per observation (``(text, candidates)``) and kept: rollouts
    compute them, the update epochs and dev evaluations see the same observations again.
    Subclasses set ``n_features`` and write ``_compute``."""

    n_features = 0

    def __init__(self, cache_size: int = 8192) -> None:
        self._cache = BoundedCache(cache_size)

    def observation_features(self, text: str, candidates: Sequence[str]) -> np.ndarray:
        return self._cache.get_or_make((text, tuple(candidates)), lambda: self._compute(text, candidates))

    def _compute(self, text: str, candidates: Sequence[str]) -> np.ndarray:
        raise NotImplementedError
