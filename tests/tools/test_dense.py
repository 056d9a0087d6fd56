"""One test loads the offline MiniLM model (a few seconds); keep dense checks here, together."""

from __future__ import annotations

from searchgym.tools.retrievers import Bm25sRetriever, DenseRetriever, HybridRetriever, page_document
from searchgym.tools.web_search import WebSearch


def test_dense_and_hybrid_rank_the_exact_page_first(world):
    docs = [page_document(p) for p in world.pages]
    dense = DenseRetriever(docs)
    assert dense.embeddings.shape == (len(docs), 384)
    norms = (dense.embeddings**2).sum(axis=1)
    assert abs(norms - 1).max() < 1e-4
    hits = dense.search("Tarsin University", 3)
    assert world.pages[hits[0][0]].id == "pg_tarsin"
    assert hits[0][1] >= hits[1][1] >= hits[2][1]

    hybrid = HybridRetriever(Bm25sRetriever(docs), dense)
    assert world.pages[hybrid.search("Glass Orchard", 3)[0][0]].id == "pg_glass"

    tool = WebSearch(world.pages, backend=dense)
    result = tool(query="Olbrecht", k=2)
    assert result.ok and result.text.startswith("[1] Olbrecht (")
