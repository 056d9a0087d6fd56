"""benchmarks/bench_search.py prints CPU time beside wall time for every backend figure, as the
benchmarks' README paragraph says (before: the backends' table, the index builds and queries/s,
was timed by the wall clock alone)."""

from __future__ import annotations

import bench_search

from searchgym.world import World


def test_backend_rows_print_cpu_beside_wall():
    result = bench_search.bench_search(World.generate(0, "tiny").pages, n_queries=8, reference_queries=4,
                                       dense_pages=0)
    assert all(len(result[key]) == 2 for key in ("build_s_bm25s", "qps_bm25s", "qps_rank_bm25"))
    report = bench_search._report(result, "tiny")
    assert "build s cpu/wall" in report and "queries/s cpu/wall" in report
    assert "query speed ratio: " in report and "x by CPU time (" in report and "x by wall time)" in report


def test_dense_rows_print_cpu_beside_wall():
    result = bench_search.bench_search(World.generate(0, "tiny").pages, n_queries=4, reference_queries=2,
                                       dense_pages=0)
    result.update(dense_subset_pages=10, build_s_dense_subset=(1.0, 2.0), build_s_dense_extrapolated_full=(10.0, 20.0),
                  qps_dense_subset=(5.0, 4.0), qps_hybrid_subset=(3.0, 2.5))
    dense = [line for line in bench_search._report(result, "tiny").splitlines() if line.startswith(("dense", "hybrid"))]
    assert "1.0/2.0" in dense[0] and "5.0/4.0" in dense[0] and "~10/20 s" in dense[0] and "3.0/2.5" in dense[1]
