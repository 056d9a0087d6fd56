"""A small hand-built world, so the tool tests do not depend on the world generator.

Seven entities (two namesakes called "Mara Quell"), seventeen facts (one outdated), twelve
pages (entity pages, an outdated report, a near-namesake distractor, mention and unrelated
pages) and a KB that holds only some facts (Tarsin University has none).
"""

from __future__ import annotations

import datetime as dt

import pytest

from searchgym.world.model import Entity, EvidenceHop, Fact, Page, Sentence, Task
from searchgym.world.world import World


def _entities() -> dict[str, Entity]:
    items = [
        Entity("p_mara_dir", "person", "Mara Quell", "Mara Quell (film director)", "film director"),
        Entity("p_mara_chem", "person", "Mara Quell", "Mara Quell (chemist)", "chemist"),
        Entity("c_vexa", "company", "Vexa Corporation", "Vexa Corporation"),
        Entity("city_olbrecht", "city", "Olbrecht", "Olbrecht"),
        Entity("film_glass", "film", "Glass Orchard", "Glass Orchard"),
        Entity("uni_tarsin", "university", "Tarsin University", "Tarsin University"),
        Entity("p_orin", "person", "Orin Dalsk", "Orin Dalsk"),
    ]
    return {e.id: e for e in items}


def _facts() -> dict[str, Fact]:
    items = [
        Fact("f_vexa_founder", "c_vexa", "founder", "Mara Quell (chemist)", object_id="p_mara_chem"),
        Fact("f_vexa_hq", "c_vexa", "headquarters", "Olbrecht", object_id="city_olbrecht"),
        Fact("f_vexa_founded", "c_vexa", "founded_year", 1987),
        Fact("f_vexa_revenue", "c_vexa", "revenue", 1200000000, as_of=2030),
        Fact("f_vexa_revenue_old", "c_vexa", "revenue", 800000000, as_of=2019, current=False),
        Fact("f_olb_pop", "city_olbrecht", "population", 452300),
        Fact("f_olb_founded", "city_olbrecht", "founded_year", 1342),
        Fact("f_glass_director", "film_glass", "director", "Mara Quell (film director)", object_id="p_mara_dir"),
        Fact("f_glass_year", "film_glass", "release_year", 2011),
        Fact("f_glass_box", "film_glass", "box_office_millions", 12.75),
        Fact("f_mara_dir_born", "p_mara_dir", "birth_year", 1969),
        Fact("f_mara_chem_born", "p_mara_chem", "birth_year", 1958),
        Fact("f_mara_chem_alma", "p_mara_chem", "alma_mater", "Tarsin University", object_id="uni_tarsin"),
        Fact("f_tarsin_founded", "uni_tarsin", "founded_year", 1891),
        Fact("f_tarsin_city", "uni_tarsin", "located_in", "Olbrecht", object_id="city_olbrecht"),
        Fact("f_orin_born", "p_orin", "birth_year", 1975),
        Fact("f_orin_employer", "p_orin", "employer", "Vexa Corporation", object_id="c_vexa"),
    ]
    return {f.id: f for f in items}


def _page(pid: str, title: str, sentences: list[tuple[str, str | None]], kind: str = "entity",
          entity_id: str | None = None) -> Page:
    return Page(
        id=pid,
        url=f"https://{pid.replace('_', '-')}.example/wiki",
        title=title,
        sentences=tuple(Sentence(text, fid) for text, fid in sentences),
        kind=kind,
        entity_id=entity_id,
    )


def _pages() -> tuple[Page, ...]:
    return (
        _page("pg_vexa", "Vexa Corporation", [
            ("Vexa Corporation is a company based in Olbrecht.", "f_vexa_hq"),
            ("It was founded in 1987.", "f_vexa_founded"),
            ("The company was founded by Mara Quell, a chemist.", "f_vexa_founder"),
            ("In 2030 Vexa Corporation reported revenue of 1200000000 dollars.", "f_vexa_revenue"),
            ("Its logo is a blue heron.", None),
        ], entity_id="c_vexa"),
        _page("pg_vexa_2019", "Vexa Corporation annual report 2019", [
            ("In 2019 the revenue of Vexa Corporation was 800000000 dollars.", "f_vexa_revenue_old"),
            ("The report was printed on recycled paper.", None),
        ], kind="outdated", entity_id="c_vexa"),
        _page("pg_vexa_shipping", "Vexa Corps Shipping", [
            ("Vexa Corps Shipping is a ferry operator.", None),
            ("It is not related to any technology company.", None),
        ], kind="mention"),
        _page("pg_olbrecht", "Olbrecht", [
            ("Olbrecht is a city on the river Senn.", None),
            ("Olbrecht has a population of 452300.", "f_olb_pop"),
            ("The city was founded in 1342.", "f_olb_founded"),
        ], entity_id="city_olbrecht"),
        _page("pg_glass", "Glass Orchard", [
            ("Glass Orchard is a drama film released in 2011.", "f_glass_year"),
            ("It was directed by Mara Quell.", "f_glass_director"),
            ("The film earned 12.75 million at the box office.", "f_glass_box"),
        ], entity_id="film_glass"),
        _page("pg_mara_dir", "Mara Quell (film director)", [
            ("Mara Quell is a film director born in 1969.", "f_mara_dir_born"),
            ("She directed Glass Orchard.", "f_glass_director"),
        ], entity_id="p_mara_dir"),
        _page("pg_mara_chem", "Mara Quell (chemist)", [
            ("Mara Quell is a chemist born in 1958.", "f_mara_chem_born"),
            ("She studied at Tarsin University.", "f_mara_chem_alma"),
            ("She founded Vexa Corporation.", "f_vexa_founder"),
        ], entity_id="p_mara_chem"),
        _page("pg_tarsin", "Tarsin University", [
            ("Tarsin University was founded in 1891.", "f_tarsin_founded"),
            ("The university is located in Olbrecht.", "f_tarsin_city"),
        ], entity_id="uni_tarsin"),
        _page("pg_orin", "Orin Dalsk", [
            ("Orin Dalsk was born in 1975.", "f_orin_born"),
            ("He works at Vexa Corporation as an engineer.", "f_orin_employer"),
        ], entity_id="p_orin"),
        _page("pg_festival", "Festival of Senn", [
            ("Glass Orchard was screened at the Festival of Senn.", None),
            ("Orin Dalsk attended the festival.", None),
        ], kind="mention"),
        _page("pg_herons", "Heron migration", [
            ("Blue herons migrate along the river Senn each spring.", None),
        ], kind="external"),
        _page("pg_ferries", "Ferry timetables", [
            ("Ferries leave Olbrecht harbour every hour.", None),
            ("Tickets are sold at the pier.", None),
        ], kind="external"),
    )


def _tasks() -> tuple[Task, ...]:
    return (
        Task(
            id="t_lookup", family="lookup", question="When was Vexa Corporation founded?",
            answers=("1987",), answer_type="number",
            evidence=(EvidenceHop("f_vexa_founded", "Vexa Corporation", "founded_year", ("pg_vexa", "kb")),),
            tools=("web_search",),
        ),
        Task(
            id="t_ambiguous", family="ambiguous", question="In which year was Mara Quell born?",
            answers=("1958",), answer_type="number",
            evidence=(
                EvidenceHop("clarification", "Mara Quell", "clarification", ("ask_for_clarification",)),
                EvidenceHop("f_mara_chem_born", "Mara Quell (chemist)", "birth_year", ("pg_mara_chem", "kb")),
            ),
            tools=("ask_for_clarification", "knowledge_base"), hops=2,
            clarification="I mean Mara Quell the chemist, who founded Vexa Corporation.",
        ),
    )


KB = {
    "c_vexa": ("f_vexa_founder", "f_vexa_founded", "f_vexa_revenue"),
    "city_olbrecht": ("f_olb_pop",),
    "film_glass": ("f_glass_director", "f_glass_year", "f_glass_box"),
    "p_mara_dir": ("f_mara_dir_born",),
    "p_mara_chem": ("f_mara_chem_born", "f_mara_chem_alma"),
    "p_orin": ("f_orin_born",),
}


def make_world() -> World:
    return World(
        seed=0,
        size="fixture",
        now=dt.date(2031, 5, 14),
        entities=_entities(),
        facts=_facts(),
        pages=_pages(),
        kb=KB,
        tasks=_tasks(),
    )


@pytest.fixture(scope="session")
def world() -> World:
    return make_world()
