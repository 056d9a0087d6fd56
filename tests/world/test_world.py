"""The world generator: determinism, schema coverage, distractors, KB overlap, splits."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

from searchgym.world import FAMILIES, World, load_corpus, load_tasks, shared_world
from searchgym.world.schema import ATTRIBUTES, RELATIONS
from searchgym.world.tasks import _norm


@pytest.fixture(scope="module")
def world() -> World:
    return shared_world(0, "small")


def test_same_seed_same_world_in_a_new_process(world):
    code = "from searchgym.world import World; print(World.generate(0, 'small').fingerprint)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == world.fingerprint
    assert World.generate(1, "small").fingerprint != world.fingerprint


def test_schema_has_enough_types_relations_and_paraphrases(world):
    assert len({e.type for e in world.entities.values()}) >= 8
    assert len({f.predicate for f in world.facts.values() if f.object_id}) >= 12
    assert {f.predicate for f in world.facts.values() if f.object_id is None} >= {"population", "revenue", "birth_year"}
    for relation in RELATIONS:
        assert len(relation.sentences) >= 3, relation.name
    for attribute in ATTRIBUTES:
        assert len(attribute.sentences) >= 3, attribute.name


def test_pages_use_several_paraphrases_per_relation(world):
    openings = Counter()
    for page in world.pages:
        for s in page.sentences:
            if s.fact_id and world.facts[s.fact_id].predicate == "founded_by":
                openings[s.text.split()[1] if s.text.startswith("The") else s.text.split()[-2]] += 1
    assert len(openings) >= 3


def test_names_are_fictional_and_namesakes_exist(world):
    names = Counter(e.name for e in world.entities.values())
    shared = [n for n, c in names.items() if c > 1]
    assert shared, "deliberate namesakes are needed for ambiguous tasks"
    display = [e.display_name for e in world.entities.values()]
    assert len(set(display)) == len(display), "display names disambiguate every namesake"


def test_distractor_pages_of_every_kind(world):
    kinds = Counter(p.kind for p in world.pages)
    assert kinds["outdated"] > 0 and kinds["mention"] > 0 and kinds["entity"] > 0
    outdated = [world.facts[f] for p in world.pages if p.kind == "outdated" for f in p.fact_ids]
    assert all(not f.current for f in outdated)
    assert not any(f in world.kb_fact_ids for p in world.pages if p.kind == "outdated" for f in p.fact_ids)


def test_knowledge_base_is_incomplete_and_overlaps_the_corpus(world):
    stats = world.stats()
    assert stats.gold_facts_corpus_only > 0 and stats.gold_facts_kb_only > 0 and stats.gold_facts_both > 0
    current = {f.id for f in world.facts.values() if f.current}
    assert world.kb_fact_ids < current


def test_every_gold_hop_names_true_sources(world):
    for task in world.tasks:
        for hop in task.evidence:
            if hop.fact_id in ("clock", "clarification"):
                continue
            assert hop.sources, task.id
            for source in hop.sources:
                if source == "kb":
                    assert hop.fact_id in world.kb_fact_ids
                else:
                    assert hop.fact_id in world.page_by_id[source].fact_ids


def test_every_family_in_every_split(world):
    for split in ("train", "dev", "test"):
        families = {t.family for t in world.tasks_in(split)}
        assert families == set(FAMILIES), (split, set(FAMILIES) - families)


def test_test_split_asks_about_entities_no_train_task_asks_about(world):
    train = {e for t in world.tasks_in("train") for e in t.focus_entity_ids}
    test = {e for t in world.tasks_in("test") for e in t.focus_entity_ids}
    assert train and test and not (train & test)


def test_no_answer_appears_verbatim_in_its_question(world):
    for task in world.tasks:
        golds = [a for item in task.answer_items for a in item] or list(task.answers)
        assert not any(_norm(a) in _norm(task.question) for a in golds), task.id


def test_tasks_carry_the_tools_they_need(world):
    for task in world.tasks:
        if task.family == "temporal":
            assert {"current_time", "calculator"} <= set(task.tools)
        if task.family == "aggregate":
            assert "calculator" in task.tools
        if task.family == "ambiguous":
            assert "ask_for_clarification" in task.tools and task.clarification
        if task.family == "bridge":
            assert 2 <= task.hops <= 4


@pytest.mark.parametrize("seed", ["0", 1.5, None, True, -1])
def test_bad_seeds_are_clear_errors(seed):
    with pytest.raises((TypeError, ValueError), match="seed"):
        World.generate(seed, "tiny")


def test_bad_size_is_a_clear_error():
    with pytest.raises(ValueError, match="accepted"):
        World.generate(0, "gigantic")


def test_load_corpus_and_tasks_round_trip_and_report_bad_lines(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "d1", "title": "Alpha", "text": "Alpha is red. It is big."}) + "\n")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "q1", "question": "What colour is Alpha?", "answers": ["red"]}) + "\n")
    pages = load_corpus(corpus)
    assert pages[0].title == "Alpha" and len(pages[0].sentences) == 2
    assert load_tasks(tasks)[0].answers == ("red",)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "title": "t", "text": "ok"}\n{"id": 2}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: missing key"):
        load_corpus(bad)
