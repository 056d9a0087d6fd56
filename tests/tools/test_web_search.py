from __future__ import annotations

import pytest

from searchgym.tools.web_search import SearchHit, WebSearch, normalize_query, select_sentences, snippet_terms
from searchgym.world.model import Page, Sentence


@pytest.fixture(scope="module")
def search(world):
    return WebSearch(world.pages)


def test_normalize_query_strips_case_punctuation_and_spaces():
    assert normalize_query("Vexa Corp?") == "vexa corp"
    assert normalize_query("  vexa   corp ") == "vexa corp"
    assert normalize_query("O'Brien-Smith!") == "o brien smith"


def test_result_text_lists_numbered_hits_with_title_url_and_snippet(search):
    result = search(query="Vexa Corporation", k=2)
    assert result.ok
    first, second = result.text.split("\n\n")
    assert first.startswith("[1] Vexa Corporation (https://pg-vexa.example/wiki)\n")
    assert second.startswith("[2] ")


def test_snippet_takes_most_overlapping_sentences_in_page_order_and_reports_their_facts(search):
    # overlaps with {vexa, corporation, founded}: s0=2, s1=1, s2=1, s3=2, s4=0 -> s0, s3 and s1 (tie -> earlier)
    result = search(query="Vexa Corporation founded", k=1)
    assert result.text == (
        "[1] Vexa Corporation (https://pg-vexa.example/wiki)\n"
        "Vexa Corporation is a company based in Olbrecht. It was founded in 1987. "
        "In 2030 Vexa Corporation reported revenue of 1200000000 dollars."
    )
    assert result.evidence_ids == ("f_vexa_hq", "f_vexa_founded", "f_vexa_revenue")


def test_snippet_sentences_setting_limits_the_sentences_shown(world):
    tool = WebSearch(world.pages, snippet_sentences=1)
    result = tool(query="Vexa Corporation founded", k=1)
    assert result.text.endswith("\nVexa Corporation is a company based in Olbrecht.")
    assert result.evidence_ids == ("f_vexa_hq",)


def test_evidence_ids_are_the_facts_of_shown_sentences_deduplicated(search):
    result = search(query="Mara Quell directed Glass Orchard", k=5)
    hits = search.search("Mara Quell directed Glass Orchard", 5)
    expected = list(dict.fromkeys(fid for hit in hits for s in hit.sentences if s.fact_id for fid in [s.fact_id]))
    assert list(result.evidence_ids) == expected
    assert result.evidence_ids.count("f_glass_director") == 1  # shown on two pages, listed once
    for hit in hits:
        for sentence in hit.sentences:
            assert sentence.text in result.text


def test_structured_search_returns_hits_best_first(search):
    hits = search.search("Olbrecht population", 3)
    assert all(isinstance(h, SearchHit) for h in hits)
    assert hits[0].page_id == "pg_olbrecht"
    assert hits[0].fact_ids == ("f_olb_pop",) or "f_olb_pop" in hits[0].fact_ids
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


@pytest.mark.parametrize("backend", ["bm25s", "rank_bm25"])
def test_both_bm25_backends_find_the_exact_title_first(world, backend):
    tool = WebSearch(world.pages, backend=backend)
    assert tool.search("Tarsin University", 3)[0].page_id == "pg_tarsin"
    assert tool.search("Heron migration", 3)[0].page_id == "pg_herons"


def test_equivalent_queries_hit_the_cache(world):
    tool = WebSearch(world.pages)
    first = tool(query="Vexa Corp?")
    assert tool.cache_info()[:3] == (0, 1, 1)
    second = tool(query="  vexa   corp")
    assert tool.cache_info()[:3] == (1, 1, 1)
    assert first.text == second.text
    tool(query="vexa corp", k=3)  # a different k is a different entry
    assert tool.cache_info()[:3] == (1, 2, 2)


def test_cache_evicts_the_least_recently_used_entry(world):
    tool = WebSearch(world.pages, cache_size=2)
    tool(query="olbrecht")
    tool(query="glass orchard")
    tool(query="olbrecht")  # refreshes olbrecht
    tool(query="orin dalsk")  # evicts glass orchard
    assert tool.cache_info().size == 2
    tool(query="olbrecht")
    assert tool.cache_info().hits == 2
    tool(query="glass orchard")
    assert tool.cache_info().misses == 4


def test_no_hits_is_ok_and_says_so(search):
    for query in ("zzzqx", "the of and"):
        result = search(query=query)
        assert result.ok and result.text == f"No results for {query!r}." and result.evidence_ids == ()


def test_long_sentences_are_capped_and_a_cut_sentence_is_not_evidence():
    long_one = "Zorblat " + "word " * 100
    pages = [
        Page("p1", "https://p1.example", "Zorblat", (Sentence("Zorblat " + "a" * 250, "f1"), Sentence("Zorblat " + "b" * 250, "f2"))),
        Page("p2", "https://p2.example", "Other", (Sentence(long_one, "f3"),)),
    ] + [Page(f"x{i}", f"https://x{i}.example", f"Filler {i}", (Sentence(f"Nothing here {i}."),)) for i in range(4)]
    tool = WebSearch(pages)
    hits = tool.search("zorblat", 2)
    assert [s.fact_id for s in hits[0].sentences] == ["f1"]  # the second does not fit in 400 chars
    assert hits[1].sentences == () and hits[1].snippet.endswith("...") and len(hits[1].snippet) <= 400
    assert tool(query="zorblat").evidence_ids == ("f1",)


def test_a_retriever_object_can_be_the_backend(world):
    class Always:
        def search(self, query, k):
            return [(3, 1.0)]

    tool = WebSearch(world.pages, backend=Always())
    assert tool.search("anything", 5)[0].page_id == world.pages[3].id


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"query": ""}, "non-empty"),
        ({"query": "   "}, "non-empty"),
        ({"query": "x" * 301}, "limit is 300"),
        ({"query": "?!..."}, "no words"),
        ({"query": "olbrecht", "k": 0}, "between 1 and 10"),
        ({"query": "olbrecht", "k": 11}, "between 1 and 10"),
        ({"query": "olbrecht", "k": "3"}, "must be an integer"),
        ({"query": "olbrecht", "k": 2.0}, "must be an integer"),
        ({"query": "olbrecht", "k": True}, "must be an integer"),
        ({"query": 5}, "must be a string"),
        ({"query": None}, "must be a string"),
        ({"k": 3}, "missing"),
        ({"query": "olbrecht", "top_k": 3}, "unknown"),
    ],
)
def test_bad_arguments_fail_with_a_message(search, arguments, fragment):
    result = search(**arguments)
    assert not result.ok and result.evidence_ids == ()
    assert fragment in result.error


def test_schema_range_follows_max_k(world):
    tool = WebSearch(world.pages, default_k=3, max_k=4)
    k = tool.schema()["function"]["parameters"]["properties"]["k"]
    assert (k["minimum"], k["maximum"]) == (1, 4)
    assert len(tool.search("olbrecht")) == 3
    assert "between 1 and 4" in tool(query="olbrecht", k=5).error


@pytest.mark.parametrize("kwargs", [{"default_k": 0}, {"default_k": 11}, {"max_k": 0}, {"cache_size": -1}])
def test_bad_constructor_arguments_raise(world, kwargs):
    with pytest.raises(ValueError):
        WebSearch(world.pages, **kwargs)


def test_unknown_backend_name_lists_accepted(world):
    with pytest.raises(ValueError, match="accepted: bm25s"):
        WebSearch(world.pages, backend="faiss")


def test_snippet_matches_word_stems_so_directors_finds_directed(world):
    page = world.page_by_id["pg_glass"]
    sentences, snippet = select_sentences(page, snippet_terms("directors"), 1)
    assert snippet == "It was directed by Mara Quell." and sentences[0].fact_id == "f_glass_director"
    assert snippet_terms("Founded, founder; THE founding") == {"found"}


def test_snippet_chars_bounds_the_snippet(world):
    tool = WebSearch(world.pages, snippet_chars=60)
    hit = tool.search("Vexa Corporation founded", 1)[0]
    assert hit.snippet == "Vexa Corporation is a company based in Olbrecht."  # the next one would pass 60
