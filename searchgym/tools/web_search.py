"""``web_search(query, k)``: ranked pages of the world's corpus, each with a query-focused snippet.

The snippet shows the sentences of a page that share the most word stems with the query, so an
agent sees the evidence it searched for; ``evidence_ids`` lists the fact ids of exactly those
sentences, which is how the env knows what gold evidence a search revealed. Results are cached
(LRU, keyed by the normalised query and k) because in RL rollouts the same queries recur.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from searchgym.shown import safe_repr
from searchgym.tools.base import Tool, ToolResult
from searchgym.tools.retrievers import RETRIEVER_NAMES, Retriever, make_retriever, page_document, tokenize
from searchgym.tools.tool_registry import LookupNames, TagForm, ToolSpec, register_tool
from searchgym.world.model import Page, Sentence

MAX_QUERY_CHARS = 300
SNIPPET_CHARS = 400
STEM_CHARS = 5  # snippet overlap compares word prefixes: "employs" ~ "employees", "founded" ~ "founder"

_NOT_WORD = re.compile(r"[\W_]+")


def normalize_query(query: str) -> str:
    """Lower-case, punctuation to spaces, whitespace collapsed: "Vexa Corp?" == "  vexa corp" (and NFKC
    for text that is not ASCII, as :func:`tokenize` reads it)."""
    if not query.isascii():
        query = unicodedata.normalize("NFKC", query)
    return " ".join(_NOT_WORD.sub(" ", query.lower()).split())


def snippet_terms(text: str) -> set[str]:
    """The crude stems (first letters of each non-stopword token) used to score sentences."""
    return {token[:STEM_CHARS] for token in tokenize(text)}


@dataclass(frozen=True)
class SearchHit:
    """One ranked page and the sentences of it shown to the agent (in page order)."""

    page_id: str
    title: str
    url: str
    score: float
    sentences: tuple[Sentence, ...]
    snippet: str

    @property
    def fact_ids(self) -> tuple[str, ...]:
        """Fact ids of the sentences shown in full (a truncated sentence is not counted)."""
        shown = [s.fact_id for s in self.sentences if s.fact_id is not None]
        return tuple(shown)


class CacheInfo(NamedTuple):
    hits: int
    misses: int
    size: int
    maxsize: int


def select_sentences(
    page: Page, query_terms: set[str], max_sentences: int, max_chars: int = SNIPPET_CHARS
) -> tuple[tuple[Sentence, ...], str]:
    """The sentences most relevant to the query (stem overlap; ties -> earlier), in page order.

    Sentences are taken by relevance while they fit in ``max_chars``; the most relevant one is
    always shown, cut with "..." if it alone is too long (and then it is not in the returned
    sentences, because its fact may be cut off).
    """
    if max_sentences <= 0 or not page.sentences:
        return (), ""
    ranked = sorted(
        range(len(page.sentences)),
        key=lambda i: (-len(query_terms & snippet_terms(page.sentences[i].text)), i),
    )
    chosen: list[int] = []
    used = 0
    for i in ranked:
        if len(chosen) == max_sentences:
            break
        length = len(page.sentences[i].text) + (1 if chosen else 0)
        if used + length <= max_chars:
            chosen.append(i)
            used += length
    if not chosen:
        first = page.sentences[ranked[0]].text
        return (), first[: max_chars - 3].rstrip() + "..."
    chosen.sort()
    sentences = tuple(page.sentences[i] for i in chosen)
    return sentences, " ".join(s.text for s in sentences)


class WebSearch(Tool):
    """Search the world's web pages; results are numbered with title, url and a snippet."""

    name = "web_search"
    description = (
        "Search the web. Returns the top-k pages, each with its title, url and the sentences "
        "most relevant to the query. Use short, specific queries (names, key words)."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to search for (at most 300 characters)."},
            "k": {
                "type": "integer",
                "description": "How many results to return (1 to 10, default 5).",
                "minimum": 1,
                "maximum": 10,
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    }

    def __init__(
        self,
        pages: Sequence[Page],
        backend: str | Retriever = "bm25s",
        default_k: int = 5,
        max_k: int = 10,
        cache_size: int = 4096,
        snippet_sentences: int = 3,
        snippet_chars: int = SNIPPET_CHARS,
    ):
        if max_k < 1 or not 1 <= default_k <= max_k:
            raise ValueError(f"need 1 <= default_k <= max_k; got default_k={default_k}, max_k={max_k}")
        if cache_size < 0 or snippet_sentences < 1:
            raise ValueError("cache_size must be >= 0 and snippet_sentences >= 1")
        self.pages = tuple(pages)
        if isinstance(backend, str):
            self.retriever: Retriever = make_retriever(backend, [page_document(p) for p in self.pages])
            self.backend = backend
        elif isinstance(backend, Retriever):
            self.retriever = backend
            self.backend = getattr(backend, "name", type(backend).__name__)
        else:
            raise TypeError(f"backend must be a retriever name ({', '.join(RETRIEVER_NAMES)}) or a Retriever, "
                            f"got {type(backend).__name__}")  # before: the names were not given
        self.default_k = default_k
        self.max_k = max_k
        self.cache_size = cache_size
        self.snippet_sentences = snippet_sentences
        self.snippet_chars = snippet_chars
        self.parameters = _parameters_for(default_k, max_k)
        self._cache: OrderedDict[tuple[str, int], tuple[SearchHit, ...]] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0
        #: (normalised query, k) -> (the cached hits, the result made of them): a result is text
        #: and evidence formatted from the hits alone, so a cache hit returns the same object
        self._results: dict[tuple[str, int], tuple[tuple[SearchHit, ...], ToolResult]] = {}

    # ------------------------------------------------------------------ structured search
    def search(self, query: str, k: int | None = None) -> list[SearchHit]:
        """Ranked hits for ``query`` (cached by normalised query and k); no argument checks."""
        return list(self._ranked((normalize_query(query), self.default_k if k is None else k)))

    def _ranked(self, key: tuple[str, int]) -> tuple[SearchHit, ...]:
        """``search``'s hits for (normalised query, k), the cached tuple itself (never to be changed)."""
        k = key[1]
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                self._hits += 1
                return cached
            self._misses += 1
        hits = self._search_uncached(key[0], k)
        if self.cache_size > 0:
            with self._lock:
                self._cache[key] = hits
                self._cache.move_to_end(key)
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return hits

    def _search_uncached(self, query: str, k: int) -> tuple[SearchHit, ...]:
        query_terms = snippet_terms(query)
        hits = []
        for index, score in self.retriever.search(query, k):
            page = self.pages[index]
            sentences, snippet = select_sentences(page, query_terms, self.snippet_sentences, self.snippet_chars)
            hits.append(SearchHit(page.id, page.title, page.url, score, sentences, snippet))
        return tuple(hits)

    def cache_info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self._hits, self._misses, len(self._cache), self.cache_size)

    def cache_clear(self) -> None:
        with self._lock:
            self._cache.clear()
            self._results.clear()
            self._hits = self._misses = 0

    # ------------------------------------------------------------------------- the tool
    def run(self, query: str, k: int | None = None) -> ToolResult:
        if not query.strip():
            return ToolResult.failure("web_search needs a non-empty query")
        if len(query) > MAX_QUERY_CHARS:
            return ToolResult.failure(
                f"web_search query is {len(query)} characters long; the limit is {MAX_QUERY_CHARS}"
            )
        if k is not None and not 1 <= k <= self.max_k:
            return ToolResult.failure(f"web_search k must be between 1 and {self.max_k}; got {safe_repr(k, 60)}")
        normalized = normalize_query(query)
        if not normalized:
            return ToolResult.failure("web_search query has no words to search for (only punctuation)")
        key = (normalized, self.default_k if k is None else k)
        hits = self._ranked(key)
        if not hits:
            return ToolResult(text=f"No results for {query.strip()!r}.")
        found = self._results.get(key)
        if found is not None and found[0] is hits:
            return found[1]
        blocks = [f"[{i}] {h.title} ({h.url})\n{h.snippet}" for i, h in enumerate(hits, start=1)]
        evidence = dict.fromkeys(fid for h in hits for fid in h.fact_ids)
        result = ToolResult(text="\n\n".join(blocks), evidence_ids=tuple(evidence))
        if self.cache_size > 0:
            if len(self._results) > self.cache_size:  # bounded as the hits' cache is
                self._results.clear()
            self._results[key] = (hits, result)
        return result


def _parameters_for(default_k: int, max_k: int) -> dict[str, Any]:
    """The JSON schema of this instance (k's range and default depend on the constructor)."""
    params: dict[str, Any] = {
        "type": "object",
        "properties": {
            "query": dict(WebSearch.parameters["properties"]["query"]),
            "k": {
                "type": "integer",
                "description": f"How many results to return (1 to {max_k}, default {default_k}).",
                "minimum": 1,
                "maximum": max_k,
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    return params


register_tool(ToolSpec(
    "web_search", WebSearch, build=lambda world, options: WebSearch(world.pages, **options),
    tag=TagForm("search", "query", "search query"), candidates=LookupNames("query", rank=1),
    roles=("searcher",), order=10,
))
