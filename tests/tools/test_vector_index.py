"""Vector indexes: exact search is exact, HNSW finds most of the exact neighbours, bad input is clear."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from searchgym.tools.vector_index import ExactIndex, build_vector_index, recall_at_k

HAVE_FAISS = importlib.util.find_spec("faiss") is not None


def _unit(rng: np.random.Generator, n: int, dim: int = 16) -> np.ndarray:
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_exact_index_ranks_by_inner_product_with_ties_to_the_lower_index():
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.6, 0.8]], dtype=np.float32)
    index = ExactIndex(vectors)
    assert [i for i, _ in index.search(np.array([1.0, 0.0]), 3)] == [0, 2, 3]
    assert [i for i, _ in index.search(np.array([1.0, 0.0]), 10)] == [0, 2, 3, 1]
    assert index.search(np.array([1.0, 0.0]), 0) == []


def test_bad_index_requests_are_clear_errors():
    vectors = _unit(np.random.default_rng(0), 10)
    with pytest.raises(ValueError, match="accepted: auto, exact, hnsw"):
        build_vector_index(vectors, "ivf")
    with pytest.raises(ValueError, match="non-empty 2-d"):
        build_vector_index(vectors[:0], "exact")
    with pytest.raises(ValueError, match="takes no options"):
        build_vector_index(vectors, "exact", m=8)


def test_auto_is_exact_for_small_collections():
    assert build_vector_index(_unit(np.random.default_rng(1), 50), "auto").kind == "exact"


@pytest.mark.skipif(not HAVE_FAISS, reason="faiss is the optional 'ann' extra")
def test_hnsw_finds_the_exact_neighbours_of_clustered_vectors_and_is_deterministic():
    rng = np.random.default_rng(2)
    centres = _unit(rng, 40)
    vectors = centres[rng.integers(40, size=3000)] + 0.05 * rng.standard_normal((3000, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = vectors[rng.integers(3000, size=50)]
    hnsw = build_vector_index(vectors, "hnsw", m=16, ef_search=64)
    assert hnsw.kind == "hnsw"
    assert recall_at_k(hnsw, ExactIndex(vectors), queries, k=10) >= 0.9
    again = build_vector_index(vectors, "hnsw", m=16, ef_search=64)
    assert [hnsw.search(q, 10) for q in queries[:10]] == [again.search(q, 10) for q in queries[:10]]
    many = hnsw.search(queries[0], 500)  # k beyond ef_search still gives k distinct results
    assert len(many) == 500 and len({i for i, _ in many}) == 500
