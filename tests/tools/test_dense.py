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


def test_loading_the_sentence_model_leaves_pythons_global_random_state_alone():
    # before: importing sentence-transformers moved random's state, so random.seed(0) in user code
    # gave other draws once a dense env had been built (a fresh process: the first import moves it)
    import subprocess
    import sys

    code = ("import random; from searchgym.tools.retrievers import load_sentence_model; random.seed(0); "
            "before = random.getstate(); load_sentence_model(); print(random.getstate() == before)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "True", done.stderr[-2000:]
