"""benchmarks/bench_dense.py runs without faiss, as docs/SCALE.md says (only its HNSW rows need it):
they print "-" and the composed query uses exact search. Before: it refused to start without faiss,
and printed no row at all."""

from __future__ import annotations

import bench_dense
import numpy as np


def test_without_faiss_the_hnsw_rows_print_a_dash_and_the_exact_rows_are_measured(monkeypatch):
    monkeypatch.setattr(bench_dense, "HAVE_FAISS", False)
    rng = np.random.default_rng(0)
    vectors = bench_dense._unit(rng.standard_normal((50, 8), dtype=np.float32))
    lines, latency = bench_dense.compare_indexes("random", vectors, vectors[:4], (16, 64))
    assert lines[1].lstrip().startswith("exact") and "recall@10 1.000" in lines[1]
    assert [line.split()[1] for line in lines[2:]] == ["efSearch=16", "efSearch=64"]
    assert all(line.split()[2] == "-" and bench_dense.NO_FAISS in line for line in lines[2:])
    assert list(latency) == [0] and latency[0]["cpu_p50"] >= 0


def test_the_whole_benchmark_runs_without_faiss(monkeypatch, capsys):
    monkeypatch.setattr(bench_dense, "HAVE_FAISS", False)
    bench_dense.main(["--real-pages", "4", "--queries", "3", "--vectors", "40"])
    out = capsys.readouterr().out
    assert out.count("hnsw efSearch=") == 6 and "hnsw build" not in out
    assert "(one-thread encode p50 + exact search p50)" in out
