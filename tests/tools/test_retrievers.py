from __future__ import annotations

import warnings

import numpy as np
import pytest

from searchgym.tools.retrievers import (
    Bm25sRetriever,
    HybridRetriever,
    RankBm25Retriever,
    make_retriever,
    page_document,
    tokenize,
    top_k,
)


def test_tokenize_lowercases_splits_on_punctuation_and_drops_stopwords():
    assert tokenize("The revenue of Vexa Corp's firm, in 2030!") == ["revenue", "vexa", "corp", "s", "firm", "2030"]
    assert tokenize("the of and") == []


def test_top_k_orders_by_score_breaks_ties_by_index_and_drops_zero_scores():
    scores = np.array([1.0, 3.0, 3.0, 0.0, 2.0])
    assert top_k(scores, 2) == [(1, 3.0), (2, 3.0)]
    assert top_k(scores, 10) == [(1, 3.0), (2, 3.0), (4, 2.0), (0, 1.0)]
    assert top_k(scores, 10, positive_only=False)[-1] == (3, 0.0)
    assert top_k(scores, 0) == []


def test_page_document_repeats_the_title(world):
    doc = page_document(world.page_by_id["pg_olbrecht"])
    assert doc.startswith("Olbrecht Olbrecht Olbrecht is a city")


TITLE_QUERIES = [
    ("Vexa Corporation", "pg_vexa"),
    ("Olbrecht", "pg_olbrecht"),
    ("Glass Orchard", "pg_glass"),
    ("Tarsin University", "pg_tarsin"),
    ("Orin Dalsk", "pg_orin"),
    ("Mara Quell (chemist)", "pg_mara_chem"),
    ("Festival of Senn", "pg_festival"),
    ("Vexa Corps Shipping", "pg_vexa_shipping"),
]


@pytest.mark.parametrize("backend", ["bm25s", "rank_bm25"])
@pytest.mark.parametrize(("query", "page_id"), TITLE_QUERIES)
def test_exact_title_query_ranks_that_page_first(world, backend, query, page_id):
    docs = [page_document(p) for p in world.pages]
    retriever = make_retriever(backend, docs)
    hits = retriever.search(query, 5)
    assert world.pages[hits[0][0]].id == page_id
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)


def test_bm25s_and_rank_bm25_scores_differ_only_by_the_constant_k1_plus_1(world):
    """Same tokenizer and formula: BM25Okapi's tf part carries (k1 + 1) = 2.5, bm25s's does not."""
    docs = [page_document(p) for p in world.pages]
    fast, reference = Bm25sRetriever(docs), RankBm25Retriever(docs)
    for query in ["Vexa Corporation revenue", "Mara Quell born", "river Senn city", "founded 1987"]:
        fast_hits, ref_hits = fast.search(query, 12), reference.search(query, 12)
        assert [i for i, _ in fast_hits] == [i for i, _ in ref_hits]
        for (_, fast_score), (_, ref_score) in zip(fast_hits, ref_hits, strict=True):
            assert ref_score == pytest.approx(2.5 * fast_score, rel=1e-5)


@pytest.mark.parametrize("backend", ["bm25s", "rank_bm25"])
def test_sparse_search_returns_nothing_for_unknown_or_stopword_queries(world, backend):
    retriever = make_retriever(backend, [page_document(p) for p in world.pages])
    assert retriever.search("zzzqx", 5) == []
    assert retriever.search("the of and", 5) == []
    assert len(retriever.search("Olbrecht", 2)) == 2


def test_make_retriever_rejects_unknown_names_listing_the_accepted_ones():
    with pytest.raises(ValueError, match="bm25s, rank_bm25, dense, hybrid"):
        make_retriever("bm25", ["a doc"])


@pytest.mark.parametrize("backend", ["bm25s", "rank_bm25"])
@pytest.mark.parametrize("docs", [[""], ["", "  "], ["the of", "and"], ["", "", "", "?!"]])
def test_a_corpus_without_a_word_builds_quietly_and_finds_nothing(backend, docs):
    """A user corpus of empty pages (``world_from_files``): before, rank_bm25 raised ZeroDivisionError
    while building and bm25s warned "invalid value encountered in scalar divide"."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        retriever = make_retriever(backend, docs)
        assert retriever.search("alpha red", 5) == [] and retriever.search("the", 5) == []


@pytest.mark.parametrize("backend", ["bm25s", "rank_bm25"])
def test_empty_corpus_is_a_clear_error(backend):
    with pytest.raises(ValueError, match="empty corpus"):
        make_retriever(backend, [])


class _Fixed:
    def __init__(self, ranking):
        self.ranking = ranking

    def search(self, query, k):
        return self.ranking[:k]


def test_hybrid_fuses_rankings_by_reciprocal_rank():
    hybrid = HybridRetriever(_Fixed([(2, 9.0), (0, 5.0)]), _Fixed([(0, 0.9), (1, 0.8)]), rrf_k=60)
    fused = hybrid.search("q", 3)
    assert [i for i, _ in fused] == [0, 2, 1]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[1][1] == pytest.approx(1 / 61)
    assert fused[2][1] == pytest.approx(1 / 62)
    assert hybrid.search("q", 1) == [fused[0]]


def test_terms_in_most_documents_get_bm25okapi_idf_floor_in_both_engines():
    # "alpha" is in 3 of 4 docs: raw idf log(1.5/3.5) < 0; BM25Okapi floors it at 0.25 * mean idf
    docs = ["alpha beta", "alpha gamma gamma", "alpha delta", "epsilon zeta"]
    fast, reference = Bm25sRetriever(docs), RankBm25Retriever(docs)
    fast_hits, ref_hits = fast.search("alpha", 4), reference.search("alpha", 4)
    assert [i for i, _ in fast_hits] == [i for i, _ in ref_hits] == [0, 2, 1]  # doc 1 is longer
    idf_common, idf_rare = np.log(1.5 / 3.5), np.log(3.5 / 1.5)
    floor = 0.25 * (idf_common + 5 * idf_rare) / 6
    norm = 1.5 * (1 - 0.75 + 0.75 * 2 / 2.25)  # doc 0: length 2, mean length 9/4
    assert fast_hits[0][1] == pytest.approx(floor * 1 / (norm + 1), rel=1e-5)
    assert ref_hits[0][1] == pytest.approx(2.5 * fast_hits[0][1], rel=1e-5)


def test_torch_threads_runs_a_block_on_that_many_threads_and_restores_the_count():
    import torch

    from searchgym.tools.retrievers import torch_threads

    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(RuntimeError), torch_threads(1):
        raise RuntimeError("the count comes back even when the block fails")
    assert torch.get_num_threads() == before


@pytest.mark.parametrize("backend", ["bm25s", "rank_bm25"])
def test_a_one_or_two_page_corpus_finds_its_pages(backend, tmp_path):
    """Before: Okapi's idf is <= 0 for every term of a corpus of one or two documents, so every
    search of such a world_from_files world answered "No results" (even a page's exact title)."""
    import searchgym
    from searchgym.world import world_from_files

    one = ["Alpha Corp Alpha Corp was founded in 1990. It makes widgets."]
    two = [*one, "Beta Ltd Beta Ltd is based in Gamma City. Beta was founded in 1991."]
    assert [i for i, _ in make_retriever(backend, one).search("Alpha Corp", 5)] == [0]
    assert [i for i, _ in make_retriever(backend, two).search("Gamma City", 5)] == [1]
    assert [i for i, _ in make_retriever(backend, two).search("founded 1990", 5)] == [0, 1]
    assert make_retriever(backend, two).search("zzz", 5) == []
    (tmp_path / "corpus.jsonl").write_text('{"id": "p1", "title": "Alpha Corp", "text": "Alpha Corp was founded in 1990."}\n')
    (tmp_path / "tasks.jsonl").write_text('{"id": "q1", "question": "When was Alpha Corp founded?", "answers": ["1990"]}\n')
    world = world_from_files(tmp_path / "corpus.jsonl", tmp_path / "tasks.jsonl")
    env = searchgym.make("SearchQA-v0", world=world, split="test", backend=backend)
    env.reset(seed=0)
    observation, *_ = env.step('<tool_call>{"name": "web_search", "arguments": {"query": "Alpha Corp"}}</tool_call>')
    assert "[1] Alpha Corp (doc://p1)" in observation
