"""Scale benchmark: how generation, indexing, memory and query latency grow from 10k to 1M pages.

Run: ``.venv/bin/python benchmarks/bench_scale.py`` (10k and 100k pages, a few minutes on 2 busy
cores); ``--million`` adds the 1M-page row (about 2 min of CPU to generate, several of wall);
``--dense`` adds the dense section (MiniLM encode throughput, exact vs HNSW search and recall@10).
Each size is measured in a fresh process (clean memory and garbage-collector state), and every
time is CPU time (``time.process_time``) beside wall time. Query latency is per single query,
p50/p99 over the same queries for every engine, measured interleaved in one loop: ``bm25s``
(this project's retriever), tantivy and rank-bm25 where installed and where they fit. The web_search rows use the envs' snippet settings and a cold cache (each query once).
The world-cache row times loading the same world back from the on-disk world cache.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

PAGES_PER_SCALE = 15.85  # pages per city at seed 0 (measured: 6,307 cities -> 99,937 pages)
DEFAULT_SIZES = (10_000, 100_000)
MILLION = 1_000_000
RANK_BM25_MAX_PAGES = 100_000  # pure Python: building it at 1M pages would take many minutes


def rss_gb() -> float:
    """Resident memory of this process now (Linux /proc; 0 elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1e6
    except OSError:
        pass
    return 0.0


def timed(work: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, CPU seconds, wall seconds)."""
    cpu, wall = time.process_time(), time.perf_counter()
    value = work()
    return value, time.process_time() - cpu, time.perf_counter() - wall


def latencies(engines: dict[str, Callable[[str], Any]], queries: Sequence[str]) -> dict[str, dict[str, float]]:
    """p50/p99 CPU and wall milliseconds per engine, the engines interleaved query by query."""
    cpu: dict[str, list[float]] = {name: [] for name in engines}
    wall: dict[str, list[float]] = {name: [] for name in engines}
    for query in queries:
        for name, engine in engines.items():
            c, w = time.process_time(), time.perf_counter()
            engine(query)
            cpu[name].append(time.process_time() - c)
            wall[name].append(time.perf_counter() - w)
    out = {}
    for name in engines:
        c, w = np.array(cpu[name]) * 1e3, np.array(wall[name]) * 1e3
        out[name] = {"cpu_p50": float(np.percentile(c, 50)), "cpu_p99": float(np.percentile(c, 99)),
                     "wall_p50": float(np.percentile(w, 50)), "wall_p99": float(np.percentile(w, 99))}
    return out


def tantivy_engine(docs: Sequence[str]) -> Callable[[str], list[int]] | None:
    """A single-threaded in-memory tantivy index over the same tokens (None when not installed)."""
    try:
        import tantivy
    except ImportError:
        return None
    from searchgym.tools.retrievers import tokenize

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=False)
    builder.add_integer_field("idx", stored=True, fast=True)
    index = tantivy.Index(builder.build())
    writer = index.writer(heap_size=200_000_000, num_threads=1)
    for i, doc in enumerate(docs):
        writer.add_document(tantivy.Document(body=" ".join(tokenize(doc)), idx=i))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()

    def search(query: str) -> list[int]:
        terms = " ".join(tokenize(query))
        if not terms:
            return []
        hits = searcher.search(index.parse_query(terms, ["body"]), 10).hits
        return [searcher.doc(address)["idx"][0] for _, address in hits]

    return search


def measure_row(pages_wanted: int, n_queries: int, seed: int) -> dict[str, Any]:
    """Every figure of one size, in this process."""
    from benchmarks.bench_search import sample_queries
    from searchgym.tools.retrievers import Bm25sRetriever, RankBm25Retriever, page_document
    from searchgym.tools.toolkit import ENV_SNIPPET_CHARS, ENV_SNIPPET_SENTENCES
    from searchgym.tools.web_search import WebSearch
    from searchgym.world.disk_cache import cache_identity, read_cached, write_cached
    from searchgym.world.generate import generate_world

    row: dict[str, Any] = {"pages_wanted": pages_wanted}
    scale = max(4, round(pages_wanted / PAGES_PER_SCALE))
    before = rss_gb()
    world, row["gen_cpu"], row["gen_wall"] = timed(lambda: generate_world(seed, scale))
    row.update(scale=scale, pages=len(world.pages), tasks=len(world.tasks), world_gb=rss_gb() - before)
    docs = [page_document(p) for p in world.pages]
    before = rss_gb()
    bm25, row["bm25s_build_cpu"], row["bm25s_build_wall"] = timed(lambda: Bm25sRetriever(docs))
    matrix = bm25._engine.scores
    row["index_mb"] = sum(matrix[key].nbytes for key in ("data", "indices", "indptr")) / 1e6
    row["bm25s_gb"] = rss_gb() - before
    queries = [q for q, _ in sample_queries(world.pages, n_queries, seed)]

    engines: dict[str, Callable[[str], Any]] = {"bm25s": lambda q: bm25.search(q, 10)}
    tool = WebSearch(world.pages, backend=bm25, snippet_sentences=ENV_SNIPPET_SENTENCES,
                     snippet_chars=ENV_SNIPPET_CHARS, cache_size=0)
    engines["web_search (cold)"] = lambda q: tool.search(q, 5)
    tantivy, row["tantivy_build_cpu"], row["tantivy_build_wall"] = timed(lambda: tantivy_engine(docs))
    if tantivy is not None:
        engines["tantivy"] = tantivy
        bm25_top = [[i for i, _ in bm25.search(q, 10)] for q in queries]
        row["tantivy_overlap"] = float(np.mean([len(set(a) & set(tantivy(q))) / max(1, len(a))
                                                for a, q in zip(bm25_top, queries, strict=True)]))
    row["latency"] = latencies(engines, queries)
    if len(docs) <= RANK_BM25_MAX_PAGES:
        reference, row["rank_bm25_build_cpu"], row["rank_bm25_build_wall"] = timed(lambda: RankBm25Retriever(docs))
        row["latency"].update(latencies({"rank_bm25": lambda q: reference.search(q, 10)}, queries[:20]))
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "world.pickle"
        identity = cache_identity(seed, scale, {})
        _, row["cache_write_cpu"], row["cache_write_wall"] = timed(lambda: write_cached(path, world, identity))
        row["cache_mb"] = path.stat().st_size / 1e6
        del world, tool, bm25
        loaded, row["cache_load_cpu"], row["cache_load_wall"] = timed(lambda: read_cached(path, identity))
        row["cache_load_ok"] = loaded is not None
    return row


def run_row_in_subprocess(pages: int, n_queries: int, seed: int) -> dict[str, Any]:
    code = ["--row", str(pages), "--queries", str(n_queries), "--seed", str(seed)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                                        os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, __file__, *code], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"the {pages:,}-page row failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(rows: list[dict[str, Any]]) -> str:
    # gen/load: a CPU-time ratio (before: unlabelled, beside columns of CPU/wall seconds)
    lines = ["growth (CPU s / wall s; memory in GB of resident memory added; gen/load CPU: generation's CPU time "
             "over the cache load's)", "",
             f"{'pages':>10}{'generate':>16}{'world GB':>10}{'bm25s build':>16}{'index MB':>10}{'bm25s GB':>10}"
             f"{'tantivy build':>16}{'cache load':>14}{'gen/load CPU':>14}"]
    for r in rows:
        tantivy = f"{r['tantivy_build_cpu']:.1f}/{r['tantivy_build_wall']:.1f}" if "tantivy_overlap" in r else "-"
        lines.append(
            f"{r['pages']:>10,}{r['gen_cpu']:>8.1f}/{r['gen_wall']:<7.1f}{r['world_gb']:>10.2f}"
            f"{r['bm25s_build_cpu']:>8.1f}/{r['bm25s_build_wall']:<7.1f}{r['index_mb']:>10.1f}{r['bm25s_gb']:>10.2f}"
            f"{tantivy:>16}{r['cache_load_cpu']:>7.2f}/{r['cache_load_wall']:<6.2f}"
            f"{r['gen_cpu'] / max(r['cache_load_cpu'], 1e-9):>13.1f}x")
    lines += ["", "single-query latency, ms: CPU p50 / p99 (wall p50 / p99); same queries for every engine", ""]
    for r in rows:
        lines.append(f"{r['pages']:,} pages ({r['tasks']} tasks" + (f"; tantivy top-10 overlap with bm25s "
                                                                 f"{r['tantivy_overlap']:.2f})" if "tantivy_overlap" in r else ")"))
        for name, lat in r["latency"].items():
            lines.append(f"  {name:<20}{lat['cpu_p50']:>8.3f} / {lat['cpu_p99']:<8.3f}"
                         f"({lat['wall_p50']:.3f} / {lat['wall_p99']:.3f})")
        if "tantivy" in r["latency"]:
            ratio = r["latency"]["tantivy"]["cpu_p50"] / max(r["latency"]["bm25s"]["cpu_p50"], 1e-9)
            lines.append(f"  p50 CPU ratio tantivy / bm25s: {ratio:.2f}x")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from suite_arg import count, describe, flagged, natural, out_file

    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--million", action="store_true", help="add the 1M-page row (heavy)")
    parser.add_argument("--sizes", type=count, nargs="+", default=list(DEFAULT_SIZES),
                        help="pages per row, one row each (default 10000 100000)")
    parser.add_argument("--queries", type=count, default=300, help="queries timed per engine and row (default 300)")
    parser.add_argument("--seed", type=natural, default=0, help="world and query seed (default 0)")
    parser.add_argument("--dense", action="store_true", help="add the dense section (benchmarks/bench_dense.py)")
    parser.add_argument("--row", type=int, help=argparse.SUPPRESS)  # internal: measure one row, print JSON
    parser.add_argument("--json", type=flagged(out_file, "--json"), help="also write the rows to this file")
    args = parser.parse_args(argv)
    if args.row is not None:
        print(json.dumps(measure_row(args.row, args.queries, args.seed)))
        return
    sizes = sorted(set(args.sizes + ([MILLION] if args.million else [])))
    rows = []
    for pages in sizes:
        print(f"measuring {pages:,} pages ...", file=sys.stderr, flush=True)
        rows.append(run_row_in_subprocess(pages, args.queries, args.seed))
    print(report(rows))
    if args.json:
        from searchgym.fileio import atomic_write_text

        atomic_write_text(args.json, json.dumps(rows, indent=1))
    if args.dense:
        print(flush=True)
        subprocess.run([sys.executable, str(Path(__file__).with_name("bench_dense.py"))], check=True)


if __name__ == "__main__":
    main()
