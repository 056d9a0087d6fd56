from __future__ import annotations

import pytest

from searchgym.tools.knowledge_base import KnowledgeBase


@pytest.fixture(scope="module")
def kb(world):
    return KnowledgeBase(world)


def test_exact_display_name_prints_type_and_kb_facts(kb):
    result = kb(entity="mara quell (CHEMIST)")
    assert result.ok
    assert result.text == "Mara Quell (chemist) (person)\n- birth year: 1958\n- alma mater: Tarsin University"
    assert result.evidence_ids == ("f_mara_chem_born", "f_mara_chem_alma")


def test_unique_plain_name_resolves_and_prints_only_kb_facts(kb):
    result = kb(entity="  Vexa   Corporation ")
    assert result.text.splitlines() == [
        "Vexa Corporation (company)",
        "- founder: Mara Quell (chemist)",
        "- founded year: 1987",
        "- revenue: 1200000000 (as of 2030)",
    ]
    assert result.evidence_ids == ("f_vexa_founder", "f_vexa_founded", "f_vexa_revenue")
    assert "800000000" not in result.text  # the outdated figure is never in the KB


def test_float_values_print_without_noise(kb):
    assert "- box office millions: 12.75" in kb(entity="Glass Orchard").text


def test_namesakes_get_a_disambiguation_list_without_evidence(kb):
    result = kb(entity="mara quell")
    assert result.ok and result.evidence_ids == ()
    assert "- Mara Quell (chemist) (person)" in result.text
    assert "- Mara Quell (film director) (person)" in result.text
    assert "full name" in result.text


def test_a_typo_resolves_to_the_clear_best_match(kb):
    result = kb(entity="Vexa Corporaton")
    assert result.text.splitlines()[0] == "No entity is named 'Vexa Corporaton'. Showing results for Vexa Corporation."
    assert result.evidence_ids == ("f_vexa_founder", "f_vexa_founded", "f_vexa_revenue")


def test_word_order_does_not_matter_for_fuzzy_matching(kb):
    result = kb(entity="Dalsk Orin")
    assert "Showing results for Orin Dalsk" in result.text and result.evidence_ids == ("f_orin_born",)


def test_a_typo_of_a_shared_name_gives_the_disambiguation_list(kb):
    result = kb(entity="Mara Quel")
    assert result.evidence_ids == ()
    assert "Mara Quell (chemist)" in result.text and "Mara Quell (film director)" in result.text


def test_no_match_names_the_closest_entities(kb):
    result = kb(entity="Olbrich Harbour Authority")
    assert result.ok and result.evidence_ids == ()
    assert result.text.startswith("No entity matches 'Olbrich Harbour Authority'; closest: ")
    assert len(result.text.split("closest: ")[1].split(", ")) == 3


def test_an_entity_without_kb_facts_says_so(kb):
    result = kb(entity="Tarsin University")
    assert result.ok and result.evidence_ids == ()
    assert result.text.startswith("Tarsin University (university)\n")
    assert "no facts" in result.text


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"entity": ""}, "non-empty"),
        ({"entity": "   "}, "non-empty"),
        ({"entity": "x" * 201}, "too long"),
        ({"entity": 3}, "must be a string"),
        ({"entity": ["Olbrecht"]}, "must be a string"),
        ({}, "missing"),
        ({"entity": "Olbrecht", "type": "city"}, "unknown"),
    ],
)
def test_bad_arguments_fail_with_a_message(kb, arguments, fragment):
    result = kb(**arguments)
    assert not result.ok and fragment in result.error
