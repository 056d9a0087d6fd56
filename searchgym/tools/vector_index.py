"""Nearest-neighbour indexes over unit vectors: exact (a matrix product) and approximate (faiss HNSW).

The dense retriever's exact search costs a pass over every embedding per query (about 384
multiply-adds per page); past some tens of thousands of pages an HNSW graph answers in a small,
nearly constant time at a measured recall. faiss is an optional extra (``pip install
searchgym[ann]``); asking for HNSW without it is a clear error, and "auto" falls back to exact.
The graph is built on one thread so the same vectors always give the same graph and results.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import numpy as np

INDEX_KINDS = ("auto", "exact", "hnsw")
#: "auto" builds an HNSW graph from this many vectors on (when faiss is installed).
AUTO_HNSW_MIN_VECTORS = 20_000


class VectorIndex(Protocol):
    """Anything that returns the ``k`` vectors with the largest inner product with a query."""

    kind: str

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]: ...


def _ranked(indices: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Best first, ties to the lower index (the order every retriever promises)."""
    order = np.lexsort((indices, -scores))[:k]
    return [(int(indices[i]), float(scores[i])) for i in order]


class ExactIndex:
    """Brute force: every vector's inner product with the query (exact, O(n * dim) per query)."""

    kind = "exact"

    def __init__(self, vectors: np.ndarray):
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        n = self.vectors.shape[0]
        if k <= 0 or n == 0:
            return []
        # einsum, not BLAS: multi-threaded OpenBLAS spun ~7 ms of CPU per mat-vec on a busy
        # 2-core machine, for 0.1 ms of work at 3k vectors (one-thread speed is the same).
        scores = np.einsum("ij,j->i", self.vectors, np.asarray(query, dtype=np.float32))
        if k < n:  # keep everything tied with the k-th best, then order exactly
            kth = np.partition(scores, n - k)[n - k]
            keep = np.flatnonzero(scores >= kth)
            return _ranked(keep, scores[keep], k)
        return _ranked(np.arange(n), scores, k)


@contextmanager
def _faiss_threads(faiss: Any, count: int) -> Iterator[None]:
    previous = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(count)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(previous)


class HnswIndex:
    """faiss ``IndexHNSWFlat`` on inner product: approximate, about constant time per query.

    ``m`` is the graph degree, ``ef_construction`` / ``ef_search`` the candidate-list sizes at
    build and query time (larger: better recall, slower).
    """

    kind = "hnsw"

    def __init__(self, vectors: np.ndarray, m: int = 32, ef_construction: int = 80, ef_search: int = 64):
        if importlib.util.find_spec("faiss") is None:
            raise ImportError("the hnsw vector index needs faiss: pip install 'searchgym[ann]' (faiss-cpu)")
        import faiss

        if m < 2 or ef_construction < 1 or ef_search < 1:
            raise ValueError(f"need m >= 2, ef_construction >= 1, ef_search >= 1; got {m}, {ef_construction}, {ef_search}")
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self._faiss = faiss
        self.index = faiss.IndexHNSWFlat(vectors.shape[1], m, faiss.METRIC_INNER_PRODUCT)
        self.index.hnsw.efConstruction = ef_construction
        self.index.hnsw.efSearch = ef_search
        with _faiss_threads(faiss, 1):  # one thread: the same vectors always give the same graph
            self.index.add(vectors)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        k = min(k, self.index.ntotal)
        if k <= 0:
            return []
        ef = max(self.index.hnsw.efSearch, k)  # the candidate list must hold k results
        params = self._faiss.SearchParametersHNSW(efSearch=ef)
        with _faiss_threads(self._faiss, 1):  # a single query gains nothing from threads
            scores, indices = self.index.search(np.asarray(query, dtype=np.float32).reshape(1, -1), k, params=params)
        found = indices[0] >= 0
        return _ranked(indices[0][found].astype(np.int64), scores[0][found], k)


def build_vector_index(vectors: np.ndarray, kind: str = "auto", **options: Any) -> VectorIndex:
    """An index of ``kind`` over ``vectors`` (one of :data:`INDEX_KINDS`); ``options`` go to HNSW."""
    if kind not in INDEX_KINDS:
        raise ValueError(f"unknown vector index {kind!r}; accepted: {', '.join(INDEX_KINDS)}")
    if vectors.ndim != 2 or vectors.shape[0] == 0:
        raise ValueError(f"a vector index needs a non-empty 2-d array of vectors; got shape {vectors.shape}")
    if kind == "auto":
        use_hnsw = vectors.shape[0] >= AUTO_HNSW_MIN_VECTORS and importlib.util.find_spec("faiss") is not None
        kind = "hnsw" if use_hnsw else "exact"
    if kind == "hnsw":
        return HnswIndex(vectors, **options)
    if options:
        raise ValueError(f"the exact vector index takes no options; got {sorted(options)}")
    return ExactIndex(vectors)


def recall_at_k(approximate: VectorIndex, exact: VectorIndex, queries: np.ndarray, k: int = 10) -> float:
    """Mean fraction of the exact top ``k`` that the approximate index also returns."""
    found = []
    for query in queries:
        truth = {i for i, _ in exact.search(query, k)}
        got = {i for i, _ in approximate.search(query, k)}
        found.append(len(truth & got) / max(1, len(truth)))
    return float(np.mean(found)) if found else 0.0
