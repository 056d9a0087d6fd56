"""Task generation: the seven built-in families of questions with gold answers and gold evidence chains.

Splits are assigned per *focus entity* (the entity a question names): every entity belongs to
exactly one split, and a task belongs to the split of its focus entities, so the test split asks
about entities that no train task asks about. A task whose answer (or any alias) appears
verbatim in its question is discarded.
"""

from __future__ import annotations

import bisect
import datetime as dt
import logging
import re
import zlib
from collections import defaultdict
from collections.abc import Mapping

import numpy as np

from searchgym.world.corpus import format_value
from searchgym.world.families import FAMILIES, FamilyBuildError, family_builder, run_builder, task_family
from searchgym.world.model import Entity, EvidenceHop, Fact, Page, Task
from searchgym.world.schema import ATTRIBUTES, RELATION_BY_NAME
from searchgym.world.shortcuts import ShortcutDetector

_log = logging.getLogger(__name__)
SPLIT_WEIGHTS = {"train": 0.6, "dev": 0.2, "test": 0.2}
_ATTR = {(a.entity_type, a.name): a for a in ATTRIBUTES}
#: The years-since questions by year attribute (public: a reader of questions knows their wording).
YEARS_SINCE_QUESTIONS = {
    "founded_year": "How many years ago was {s} founded?",
    "launch_year": "How many years ago was {s} launched?",
    "release_year": "How many years ago was {s} released?",
    "published_year": "How many years ago was {s} published?",
    "birth_year": "How many years have passed since {s} was born?",
    "established_year": "How many years ago was the {s} established?",
}


def _norm(text: str) -> str:
    return " " + re.sub(r"\s+", " ", re.sub(r"[^a-z0-9 ]", " ", text.lower())).strip() + " "


class _TaskMaker:
    def __init__(self, entities, facts, pages, kb, now, rng):
        self.entities: Mapping[str, Entity] = entities
        self.now: dt.date = now
        self.rng: np.random.Generator = rng
        self.forward: dict[str, list[Fact]] = defaultdict(list)
        self.incoming: dict[tuple[str, str], list[Fact]] = defaultdict(list)
        for f in facts.values():
            if f.current:
                self.forward[f.subject_id].append(f)
                if f.object_id is not None:
                    self.incoming[(f.object_id, f.predicate)].append(f)
        self.page_sources: dict[str, list[str]] = defaultdict(list)
        for p in pages:
            for fid in p.fact_ids:
                self.page_sources[fid].append(p.id)
        self.kb_ids = {fid for fids in kb.values() for fid in fids}
        self.by_name: dict[str, list[str]] = defaultdict(list)
        for e in entities.values():
            self.by_name[e.name].append(e.id)
        self.unique = {e.id for e in entities.values() if len(self.by_name[e.name]) == 1}
        self.split_of = {}
        labels = list(SPLIT_WEIGHTS)
        weights = np.array(list(SPLIT_WEIGHTS.values()))
        for eid in entities:
            self.split_of[eid] = labels[int(rng.choice(len(labels), p=weights))]
        self.pool: dict[tuple[str, str], list[str]] = defaultdict(list)  # (split, type) -> unique entity ids
        for eid in entities:
            if eid in self.unique:
                self.pool[(self.split_of[eid], entities[eid].type)].append(eid)
        self.pool_position = {eid: i for ids in self.pool.values() for i, eid in enumerate(ids)}
        self.all_pool_types = tuple(sorted({t for (_, t) in self.pool}))
        self._pool_offsets: dict[tuple[str, tuple[str, ...]], tuple[list[int], list[str]]] = {}
        self.namesake_people = [e.id for e in entities.values() if e.type == "person" and len(self.by_name[e.name]) > 1]
        self.namesakes_in = {split: [p for p in self.namesake_people if self.split_of[p] == split] for split in labels}
        self.count = 0
        self.family: str | None = None  # the family being generated: its tasks are its own

    # ------------------------------------------------------------------- small helpers
    def pick(self, items: list):
        return items[int(self.rng.integers(len(items)))] if items else None

    def hop(self, fact: Fact) -> EvidenceHop:
        sources = list(self.page_sources.get(fact.id, [])) + (["kb"] if fact.id in self.kb_ids else [])
        return EvidenceHop(fact.id, self.entities[fact.subject_id].display_name, fact.predicate, tuple(sources))

    def aliases(self, fact: Fact) -> tuple[str, ...]:
        if fact.object_id is not None:
            e = self.entities[fact.object_id]
            return tuple(dict.fromkeys([e.display_name, e.name]))
        return self.number_aliases(fact.value)

    @staticmethod
    def number_aliases(value) -> tuple[str, ...]:
        return tuple(dict.fromkeys([str(value), format_value(value)]))

    @staticmethod
    def lookup_tools(hops: list[EvidenceHop]) -> list[str]:
        return ["knowledge_base" if "kb" in h.sources else "web_search" for h in hops]

    def relation_facts(self, eid: str, exclude: set[str] = frozenset()) -> list[Fact]:
        return [f for f in self.forward[eid] if f.object_id is not None and f.object_id not in exclude]

    def attribute_facts(self, eid: str, years: bool | None = None) -> list[Fact]:
        out = []
        for f in self.forward[eid]:
            if f.object_id is None:
                attr = _ATTR[(self.entities[eid].type, f.predicate)]
                if years is None or attr.is_year == years:
                    out.append(f)
        return out

    def entity_in(self, split: str, types: tuple[str, ...] | None = None) -> str | None:
        """A uniform pick over the split's pools of ``types`` (sorted), as if they were one list.

        The concatenated list is never built (that made task generation quadratic in the world's
        size); one draw of ``integers(total)`` is mapped into the pools through cached offsets.
        """
        key = (split, tuple(sorted(types)) if types else self.all_pool_types)
        if key not in self._pool_offsets:
            ends, total = [], 0
            for t in key[1]:
                total += len(self.pool.get((split, t), ()))
                ends.append(total)
            self._pool_offsets[key] = (ends, list(key[1]))
        ends, ordered = self._pool_offsets[key]
        if not ends or ends[-1] == 0:
            return None
        index = int(self.rng.integers(ends[-1]))
        slot = bisect.bisect_right(ends, index)
        return self.pool[(split, ordered[slot])][index - (ends[slot - 1] if slot else 0)]

    def other_in_pool(self, split: str, eid: str) -> str | None:
        """A uniform pick among the other members of ``eid``'s pool (the pool without it, unbuilt)."""
        pool = self.pool.get((split, self.entities[eid].type), [])
        if len(pool) < 2:
            return None
        index = int(self.rng.integers(len(pool) - 1))
        return pool[index + 1] if index >= self.pool_position[eid] else pool[index]

    def make(self, family, split, question, answers, answer_type, hops, tools, focus, *, operation="value",
             items=(), clarification=None, difficulty="easy", number_kind=None) -> Task | None:
        golds = [a for item in items for a in item] if items else list(answers)
        if any(_norm(a) in _norm(question) for a in golds if a.strip()):
            return None  # an answer verbatim in its question makes the task trivial
        self.count += 1
        family = self.family or family  # the family being generated owns (and numbers) it, whoever's builder ran
        return Task(
            id=f"{family}-{self.count:05d}", family=family, question=question, answers=tuple(answers),
            answer_type=answer_type, evidence=tuple(hops), tools=tuple(dict.fromkeys(tools)), split=split,
            hops=len([h for h in hops if h.fact_id not in ("clock", "clarification")]), operation=operation,
            focus_entity_ids=tuple(focus), answer_items=tuple(items), clarification=clarification,
            difficulty=difficulty, number_kind=number_kind if answer_type == "number" else None,
        )

    # ------------------------------------------------------------------- the families
    @task_family("lookup")
    def lookup(self, split: str) -> Task | None:
        eid = self.entity_in(split)
        fact = self.pick(self.forward[eid]) if eid else None
        if fact is None:
            return None
        e = self.entities[eid]
        kind = None
        if fact.object_id is not None:
            question = self.pick(list(RELATION_BY_NAME[fact.predicate].questions)).format(s=e.name)
            answer_type = "entity"
        else:
            attr = _ATTR[(e.type, fact.predicate)]
            question = self.pick(list(attr.questions)).format(s=e.name)
            answer_type, kind = "number", attr.kind
        hops = [self.hop(fact)]
        return self.make("lookup", split, question, self.aliases(fact), answer_type, hops, self.lookup_tools(hops), [eid],
                         number_kind=kind)

    def chain(self, start: str, n_relations: int) -> list[Fact] | None:
        visited, current, chain = {start}, start, []
        for _ in range(n_relations):
            fact = self.pick(self.relation_facts(current, visited))
            if fact is None:
                return None
            chain.append(fact)
            visited.add(fact.object_id)
            current = fact.object_id
        return chain

    def noun_phrase(self, start: str, chain: list[Fact]) -> str:
        phrase = self.entities[start].name
        for fact in chain:
            phrase = RELATION_BY_NAME[fact.predicate].noun_phrase.format(x=phrase)
        return phrase

    @task_family("bridge")
    def bridge(self, split: str) -> Task | None:
        n_hops = int(self.rng.integers(2, 4))  # 2-3 hops: every one is needed (see generate_tasks)
        start = self.entity_in(split)
        chain = self.chain(start, n_hops - 1) if start else None
        if not chain:
            return None
        last_entity = chain[-1].object_id
        numeric = self.rng.random() < 0.4
        options = self.attribute_facts(last_entity) if numeric else self.relation_facts(last_entity, {start})
        final = self.pick(options)
        if final is None:
            return None
        phrase = self.noun_phrase(start, chain)
        kind = None
        if final.object_id is not None:
            rel = RELATION_BY_NAME[final.predicate]
            question = f"{'Who' if rel.object_type == 'person' else 'What'} is {rel.noun_phrase.format(x=phrase)}?"
            answer_type = "entity"
        else:
            attr = _ATTR[(self.entities[last_entity].type, final.predicate)]
            question = f"What is the {attr.noun} of {phrase}?"
            answer_type, kind = "number", attr.kind
        hops = [self.hop(f) for f in chain + [final]]
        return self.make("bridge", split, question, self.aliases(final), answer_type, hops, self.lookup_tools(hops),
                         [start], difficulty="easy" if n_hops == 2 else "hard", number_kind=kind)

    @task_family("comparison")
    def comparison(self, split: str) -> Task | None:
        a = self.entity_in(split)
        rel_fact_a = self.pick(self.relation_facts(a)) if a else None
        if rel_fact_a is None:
            return None
        rel = RELATION_BY_NAME[rel_fact_a.predicate]
        b = self.other_in_pool(split, a)
        rel_fact_b = next((f for f in self.relation_facts(b) if f.predicate == rel.name), None) if b else None
        if rel_fact_b is None or rel_fact_b.object_id == rel_fact_a.object_id:
            return None
        attr_a = self.pick(self.attribute_facts(rel_fact_a.object_id))
        if attr_a is None:
            return None
        attr_b = next((f for f in self.attribute_facts(rel_fact_b.object_id) if f.predicate == attr_a.predicate), None)
        if attr_b is None or attr_b.value == attr_a.value:
            return None
        attr = _ATTR[(rel.object_type, attr_a.predicate)]
        smaller_wins = attr.is_year  # "earlier" compares years; everything else asks for the larger
        winner = rel_fact_a if (attr_a.value < attr_b.value) == smaller_wins else rel_fact_b
        who = "Who" if rel.object_type == "person" else f"Which {rel.object_type}"
        question = (f"{who} {attr.comparison}: {rel.noun_phrase.format(x=self.entities[a].name)} "
                    f"or {rel.noun_phrase.format(x=self.entities[b].name)}?")
        hops = [self.hop(f) for f in (rel_fact_a, attr_a, rel_fact_b, attr_b)]
        return self.make("comparison", split, question, self.aliases(winner), "entity", hops, self.lookup_tools(hops),
                         [a, b], operation="argmin" if smaller_wins else "argmax", difficulty="hard")

    @task_family("aggregate")
    def aggregate(self, split: str) -> Task | None:
        a = self.entity_in(split)
        fact_a = self.pick(self.attribute_facts(a, years=False)) if a else None
        if fact_a is None:
            return None
        b = self.other_in_pool(split, a)
        fact_b = next((f for f in self.attribute_facts(b, years=False) if f.predicate == fact_a.predicate), None) if b else None
        if fact_b is None or fact_a.value == fact_b.value:
            return None
        attr = _ATTR[(self.entities[a].type, fact_a.predicate)]
        if self.rng.random() < 0.5:
            operation, value = "sum", fact_a.value + fact_b.value
            question = f"What is the combined {attr.noun} of {self.entities[a].name} and {self.entities[b].name}?"
        else:
            if fact_a.value < fact_b.value:
                a, b, fact_a, fact_b = b, a, fact_b, fact_a
            operation, value = "difference", fact_a.value - fact_b.value
            question = (f"By how much does the {attr.noun} of {self.entities[a].name} exceed "
                        f"that of {self.entities[b].name}?")
        hops = [self.hop(fact_a), self.hop(fact_b)]
        return self.make("aggregate", split, question, self.number_aliases(value), "number", hops,
                         self.lookup_tools(hops) + ["calculator"], [a, b], operation=operation, number_kind=attr.kind)

    @task_family("temporal")
    def temporal(self, split: str) -> Task | None:
        start = self.entity_in(split)
        if start is None:
            return None
        chain = self.chain(start, 1) if self.rng.random() < 0.3 else []
        if chain is None:
            return None
        target = chain[-1].object_id if chain else start
        fact = self.pick([f for f in self.attribute_facts(target, years=True) if f.predicate in YEARS_SINCE_QUESTIONS])
        if fact is None:
            return None
        phrase = self.noun_phrase(start, chain)
        question = YEARS_SINCE_QUESTIONS[fact.predicate].format(s=phrase)
        if fact.predicate == "established_year" and chain:
            question = question.replace("the the ", "the ")
        hops = [self.hop(f) for f in chain + [fact]] + [EvidenceHop("clock", "", "current_time", ("current_time",))]
        tools = self.lookup_tools(hops[:-1]) + ["current_time", "calculator"]
        value = self.now.year - int(fact.value)
        return self.make("temporal", split, question, self.number_aliases(value), "number", hops, tools, [start],
                         operation="years_since", difficulty="hard" if chain else "easy", number_kind="count")

    @task_family("ambiguous")
    def ambiguous(self, split: str) -> Task | None:
        person_id = self.pick(self.namesakes_in[split])
        person = self.entities[person_id] if person_id is not None else None
        if person is None:
            return None
        namesakes = [self.entities[n] for n in self.by_name[person.name] if n != person.id]
        fact = self.pick(self.forward[person.id])
        if fact is None:
            return None
        other_values = {f.value for n in namesakes for f in self.forward[n.id] if f.predicate == fact.predicate}
        if fact.value in other_values:
            return None  # the ambiguity would not matter
        kind = None
        if fact.object_id is not None:
            question = self.pick(list(RELATION_BY_NAME[fact.predicate].questions)).format(s=person.name)
            answer_type = "entity"
        else:
            attr = _ATTR[("person", fact.predicate)]
            question = self.pick(list(attr.questions)).format(s=person.name)
            answer_type, kind = "number", attr.kind
        hops = [EvidenceHop("clarification", person.name, "ask_for_clarification", ("ask_for_clarification",)),
                self.hop(fact)]
        clarification = f"I mean {person.display_name}."
        tools = ["ask_for_clarification"] + self.lookup_tools(hops[1:])
        return self.make("ambiguous", split, question, self.aliases(fact), answer_type, hops, tools, [person.id],
                         clarification=clarification, difficulty="hard", number_kind=kind)

    @task_family("list")
    def listing(self, split: str) -> Task | None:
        relation = self.pick([r for r in RELATION_BY_NAME.values() if r.list_question])
        obj = self.entity_in(split, (relation.object_type,))
        subjects = self.incoming.get((obj, relation.name), []) if obj else []
        if not 2 <= len(subjects) <= 5:
            return None
        items = tuple(self.aliases_of_subject(f) for f in subjects)
        question = relation.list_question.format(o=self.entities[obj].name)
        hops = [self.hop(f) for f in subjects]
        answers = ("; ".join(item[0] for item in items),)
        return self.make("list", split, question, answers, "list", hops, ["web_search"] + self.lookup_tools(hops),
                         [obj], operation="set", items=items, difficulty="easy" if len(items) <= 3 else "hard")

    def aliases_of_subject(self, fact: Fact) -> tuple[str, ...]:
        e = self.entities[fact.subject_id]
        return tuple(dict.fromkeys([e.display_name, e.name]))


def generate_tasks(
    entities: Mapping[str, Entity],
    facts: Mapping[str, Fact],
    pages: list[Page],
    kb: Mapping[str, tuple[str, ...]],
    now: dt.date,
    rng: np.random.Generator,
    per_family: int,
    bridge_shortcut_rate: float = 0.0,
    failures: dict[str, str] | None = None,
) -> list[Task]:
    """Generate up to ``per_family`` tasks of each family, with disjoint splits.

    At most a ``bridge_shortcut_rate`` fraction of the bridges may have a shortcut (a page that
    names the question's entity and states the answer: :mod:`searchgym.world.shortcuts`); the
    others need every hop. 0.0 (the default) rejects every shortcut; 1.0 keeps what the corpus
    gives. A family whose builder fails has no tasks, and goes into ``failures`` (name -> why).
    """
    if not 0.0 <= bridge_shortcut_rate <= 1.0:
        raise ValueError(f"bridge_shortcut_rate must be in [0, 1], got {bridge_shortcut_rate!r}")
    maker = _TaskMaker(entities, facts, pages, kb, now, rng)
    shortcuts = ShortcutDetector(entities, facts, pages)
    family_seed = int(rng.integers(2**63))
    labels = list(SPLIT_WEIGHTS)
    weights = np.array(list(SPLIT_WEIGHTS.values()))
    tasks: list[Task] = []
    made_by: dict[str, tuple[str, str]] = {}  # task id -> (family, question): an id is one task's
    seen_questions: set[str] = set()
    for family in FAMILIES:
        # Each family draws from its own generator and numbers its own ids, so adding or changing
        # one family leaves every other family's tasks (and the suites that use them) unchanged.
        rng = maker.rng = np.random.default_rng([family_seed, zlib.crc32(family.encode())])
        maker.count, maker.family = 0, family
        build = family_builder(family)
        made, attempts, with_shortcut, own = 0, 0, 0, {}
        try:
            while made < per_family and attempts < per_family * 30:
                attempts += 1
                split = labels[int(rng.choice(len(labels), p=weights))]
                task = run_builder(family, build, maker, split, made_by)
                if task is None or task.question in seen_questions or task.question in own:
                    continue
                if family == "bridge" and bridge_shortcut_rate < 1.0 and \
                        shortcuts.has_shortcut(task.focus_entity_ids, task.answers):
                    if with_shortcut + 1 > bridge_shortcut_rate * (made + 1):
                        continue
                    with_shortcut += 1
                own[task.question] = task
                made += 1
        except FamilyBuildError as exc:  # the family is left out, as if it had not been registered
            _log.warning("%s; its tasks are left out of the world", exc)
            if failures is not None:
                failures[family] = str(exc)
            continue
        seen_questions.update(own)
        tasks.extend(own.values())
    return tasks
