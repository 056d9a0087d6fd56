"""Rendering facts into a web corpus and a knowledge base, with distractors.

Each current fact lands on its subject's page, in the knowledge base, or both (never neither), so
choosing the tool is part of the skill. Distractor pages make search honest: outdated figures
("In 2019, Tarsk had ..."), news pages that mention an entity without any fact, near-namesakes
and namesakes (made in generation) that compete for the same query.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping

import numpy as np

from searchgym.world.model import Entity, Fact, Page, Sentence
from searchgym.world.schema import ATTRIBUTES, INTRO, MENTION_SENTENCES, RELATION_BY_NAME

P_ON_PAGE = 0.75
P_IN_KB = 0.55
P_ENTITY_NOT_IN_KB = 0.1
P_REVERSE_SENTENCE = 0.4
MAX_FACT_SENTENCES = 6
MAX_PAGE_SENTENCES = 8
MAX_LIST_ITEMS = 5  # keep equal to the bound in tasks.listing
MENTION_PAGES_PER_ENTITY = 0.3

_ATTRIBUTE = {(a.entity_type, a.name): a for a in ATTRIBUTES}


def format_value(value: object, is_year: bool = False) -> str:
    """Numbers as a reader expects them: years plain, large figures with thousands separators."""
    if isinstance(value, int) and not is_year and abs(value) >= 10_000:
        return f"{value:,}"
    return str(value)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _choice(rng: np.random.Generator, options: tuple[str, ...]) -> str:
    return options[int(rng.integers(len(options)))]


def fact_sentence(fact: Fact, entities: Mapping[str, Entity], rng: np.random.Generator, reverse: bool = False) -> str:
    """Render one fact with a paraphrase drawn from ``rng``."""
    subject = entities[fact.subject_id]
    if fact.object_id is not None:
        rel = RELATION_BY_NAME[fact.predicate]
        template = _choice(rng, rel.reverse_sentences if reverse else rel.sentences)
        return template.format(s=subject.display_name, o=fact.value)
    attr = _ATTRIBUTE[(subject.type, fact.predicate)]
    value = format_value(fact.value, attr.is_year)
    if not fact.current:
        return _choice(rng, attr.dated_sentences).format(s=subject.display_name, o=value, y=fact.as_of)
    return _choice(rng, attr.sentences).format(s=subject.display_name, o=value)


def _listable(incoming: list[Fact]) -> set[str]:
    """Incoming facts of list relations whose object has 2..MAX_LIST_ITEMS subjects."""
    by_relation: dict[str, list[str]] = defaultdict(list)
    for fact in incoming:
        if RELATION_BY_NAME[fact.predicate].list_question:
            by_relation[fact.predicate].append(fact.id)
    return {fid for ids in by_relation.values() if 2 <= len(ids) <= MAX_LIST_ITEMS for fid in ids}


def render_corpus(
    entities: Mapping[str, Entity], facts: Mapping[str, Fact], rng: np.random.Generator
) -> tuple[list[Page], dict[str, tuple[str, ...]]]:
    """Return (pages, kb) where kb maps entity id -> the fact ids the knowledge base holds."""
    forward: dict[str, list[Fact]] = defaultdict(list)
    incoming: dict[str, list[Fact]] = defaultdict(list)
    outdated: list[Fact] = []
    for fact in facts.values():
        if not fact.current:
            outdated.append(fact)
            continue
        forward[fact.subject_id].append(fact)
        if fact.object_id is not None:
            incoming[fact.object_id].append(fact)

    kb: dict[str, list[str]] = {}
    pages: list[Page] = []

    def new_page(title: str, url: str, sentences: list[Sentence], kind: str, entity_id: str | None) -> None:
        pages.append(Page(f"p{len(pages):06d}", url, title, tuple(sentences), kind, entity_id))

    for eid, entity in entities.items():
        in_kb_allowed = rng.random() >= P_ENTITY_NOT_IN_KB
        on_page: list[Fact] = []
        kb_ids: list[str] = []
        for fact in forward[eid]:
            page_it = rng.random() < P_ON_PAGE
            kb_it = in_kb_allowed and rng.random() < P_IN_KB
            if not page_it and not kb_it:
                page_it, kb_it = (True, False) if (not in_kb_allowed or rng.random() < 0.5) else (False, True)
            if page_it and len(on_page) >= MAX_FACT_SENTENCES:
                page_it, kb_it = False, True  # a full page overflows into the KB
            if page_it:
                on_page.append(fact)
            if kb_it:
                kb_ids.append(fact.id)
        if kb_ids:
            kb[eid] = kb_ids
        order = [on_page[i] for i in rng.permutation(len(on_page))]
        descriptor = entity.descriptor or entity.type
        article = "an" if descriptor[0] in "aeiou" else "a"
        intro = INTRO[entity.type].format(s=entity.display_name, d=descriptor, a=article)
        sentences = [Sentence(intro)] + [Sentence(fact_sentence(f, entities, rng), f.id) for f in order]
        listed = _listable(incoming[eid])
        for fact in incoming[eid]:
            if fact.id in listed:  # what a list question asks is always listed on the object's page
                sentences.append(Sentence(fact_sentence(fact, entities, rng, reverse=True), fact.id))
            elif len(sentences) < MAX_PAGE_SENTENCES and rng.random() < P_REVERSE_SENTENCE:
                sentences.append(Sentence(fact_sentence(fact, entities, rng, reverse=True), fact.id))
        url = f"https://wiki.searchgym.example/{entity.type}/{slug(entity.display_name)}"
        new_page(entity.display_name, url, sentences, "entity", eid)

    for fact in outdated:
        entity = entities[fact.subject_id]
        text = fact_sentence(fact, entities, rng)
        title = f"{entity.display_name} in {fact.as_of}"
        url = f"https://archive.searchgym.example/{fact.as_of}/{slug(entity.display_name)}"
        new_page(title, url, [Sentence(text, fact.id)], "outdated", entity.id)

    ids = list(entities)
    for i in range(int(len(ids) * MENTION_PAGES_PER_ENTITY)):
        a, b = (entities[ids[int(j)]] for j in rng.integers(len(ids), size=2))
        n = int(rng.integers(1, 3))
        texts = [_choice(rng, MENTION_SENTENCES).format(a=a.display_name, b=b.display_name) for _ in range(n)]
        url = f"https://news.searchgym.example/{slug(a.display_name)}-{i}"
        new_page(f"News about {a.display_name}", url, [Sentence(t) for t in texts], "mention", None)

    return pages, {k: tuple(v) for k, v in kb.items()}
