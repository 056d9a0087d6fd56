"""benchmarks/bench_search.py and bench_dense.py print each row as soon as it is measured, so a long
run shows progress (before: bench_search printed nothing after "corpus ready" until the end, and
bench_dense held every line until the end of its ~5 minutes). Each test looks at what was printed
when the next measurement starts."""

from __future__ import annotations

import bench_dense
import bench_search
import numpy as np


def last_line(text: str) -> str:
    return text.rstrip("\n").splitlines()[-1]


def test_bench_search_prints_each_row_once_measured(monkeypatch, capsys):
    printed = {}
    real_rank_bm25, real_bench = bench_search.RankBm25Retriever, bench_search.bench_search
    results = []

    class Dense:  # MiniLM's rows, without loading it
        def __init__(self, docs):
            pass

        def search(self, query, k):
            return []

    def rank_bm25(docs):
        printed["rank_bm25 built"] = capsys.readouterr().out
        return real_rank_bm25(docs)

    def hybrid(sparse, dense):
        printed["hybrid built"] = capsys.readouterr().out
        return Dense(None)

    monkeypatch.setattr(bench_search, "RankBm25Retriever", rank_bm25)
    monkeypatch.setattr(bench_search, "DenseRetriever", Dense)
    monkeypatch.setattr(bench_search, "HybridRetriever", hybrid)
    monkeypatch.setattr(bench_search, "bench_search", lambda *a, **k: results.append(real_bench(*a, **k)) or results[0])
    bench_search.main(["--size", "tiny", "--queries", "4", "--reference-queries", "2", "--dense-pages", "5"])
    rest = capsys.readouterr().out
    assert printed["rank_bm25 built"].startswith("corpus ready in ")
    assert last_line(printed["rank_bm25 built"]).startswith("bm25s ")
    assert last_line(printed["hybrid built"]).startswith("dense ") and "rank_bm25 " in printed["hybrid built"]
    assert rest.startswith("hybrid ")
    # the same report as before, line for line, only printed as it goes
    whole = printed["rank_bm25 built"] + printed["hybrid built"] + rest
    assert whole.partition("\n")[2] == bench_search._report(results[0], "World.generate(0, 'tiny')") + "\n"


class Model:
    """MiniLM's encode, as fixed vectors (no model to load)."""

    def encode(self, texts, **kwargs):
        vectors = np.random.default_rng(len(texts)).standard_normal((len(texts), 8)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_bench_dense_prints_each_line_once_measured(monkeypatch, capsys):
    monkeypatch.setattr(bench_dense, "HAVE_FAISS", False)
    monkeypatch.setattr(bench_dense, "load_sentence_model", Model)
    printed = []
    real_exact = bench_dense.ExactIndex

    def exact(vectors):
        printed.append(capsys.readouterr().out)
        return real_exact(vectors)

    monkeypatch.setattr(bench_dense, "ExactIndex", exact)
    bench_dense.main(["--real-pages", "4", "--queries", "3", "--vectors", "40"])
    printed.append(capsys.readouterr().out)
    assert "document encode, one thread: 4 pages" in printed[0]
    assert last_line(printed[0]).startswith("real MiniLM page embeddings (queries: page titles): 4 vectors")
    assert "  hnsw efSearch=64 " in printed[1] and last_line(printed[1]).startswith("uniform random unit vectors")
    assert "  hnsw efSearch=256 " in printed[2] and last_line(printed[2]).startswith("real embeddings + noise")
    assert last_line(printed[3]).startswith("composed dense query at 40 pages")
