"""The data model of a search world: entities, facts, pages and tasks.

Everything here is a frozen dataclass so that a world, once generated, can be shared by every
env, group member and team role without copies and without anyone mutating it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Value = str | int | float


@dataclass(frozen=True)
class Entity:
    """A fictional thing with a type (person, city, ...), a name and numeric attributes.

    ``display_name`` disambiguates namesakes ("Mara Quell (film director)"); for an entity
    whose name is unique it equals ``name``.
    """

    id: str
    type: str
    name: str
    display_name: str
    descriptor: str = ""


@dataclass(frozen=True)
class Fact:
    """One statement about an entity: a relation to another entity or a numeric attribute.

    ``object_id`` is set for relations (``value`` is then the object's display name).
    ``as_of`` marks a dated figure; ``current=False`` marks an outdated figure kept only for
    distractor pages (it is never gold evidence and never in the knowledge base).
    """

    id: str
    subject_id: str
    predicate: str
    value: Value
    object_id: str | None = None
    as_of: int | None = None
    current: bool = True


@dataclass(frozen=True)
class Sentence:
    """A sentence of a page; ``fact_id`` names the fact it states, if any."""

    text: str
    fact_id: str | None = None


@dataclass(frozen=True)
class Page:
    """A web page of the corpus. ``kind`` is ``entity``, ``outdated``, ``mention`` or ``external``."""

    id: str
    url: str
    title: str
    sentences: tuple[Sentence, ...]
    kind: str = "entity"
    entity_id: str | None = None

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)

    @property
    def fact_ids(self) -> tuple[str, ...]:
        return tuple(s.fact_id for s in self.sentences if s.fact_id is not None)


@dataclass(frozen=True)
class EvidenceHop:
    """One hop of a task's gold evidence chain: the fact and where it can be found.

    ``sources`` lists page ids and/or ``"kb"`` (the knowledge base has the fact).
    ``entity`` is the display name of the fact's subject: what an agent looks up.
    """

    fact_id: str
    entity: str
    predicate: str
    sources: tuple[str, ...]


@dataclass(frozen=True)
class Task:
    """A question with its gold answers, evidence chain and the tools it needs.

    ``answers`` are aliases of one answer; list tasks put each item's aliases in
    ``answer_items`` instead (and ``answers`` holds the items joined, for display).
    ``operation`` says how the hops combine (``value``, ``sum``, ``difference``,
    ``argmax``/``argmin``, ``years_since``, ``set``): the oracle uses it, never the answer.
    ``clarification`` is what the simulated user says when asked (ambiguous tasks only).
    ``number_kind`` says what a numeric answer is; with ``operation`` it decides how the answer
    is scored (:func:`searchgym.scoring.match_kind`): years and counts as the same integer,
    stated quantities within a relative tolerance, computed values (any operation but
    ``value``) exactly.
    """

    id: str
    family: str
    question: str
    answers: tuple[str, ...]
    answer_type: str  # "entity", "number", "list" or "text"
    evidence: tuple[EvidenceHop, ...]
    tools: tuple[str, ...]
    split: str = "train"
    hops: int = 1
    operation: str = "value"
    focus_entity_ids: tuple[str, ...] = ()
    answer_items: tuple[tuple[str, ...], ...] = ()
    clarification: str | None = None
    difficulty: str = "easy"
    number_kind: str | None = None  # "year", "count" or "quantity" for numeric answers (scoring)

    @property
    def gold_fact_ids(self) -> frozenset[str]:
        return frozenset(h.fact_id for h in self.evidence)


@dataclass(frozen=True)
class WorldStats:
    """Counts that describe a world (``searchgym world stats``)."""

    entities_by_type: dict[str, int] = field(default_factory=dict)
    facts: int = 0
    pages_by_kind: dict[str, int] = field(default_factory=dict)
    kb_facts: int = 0
    tasks_by_family: dict[str, int] = field(default_factory=dict)
    tasks_by_split: dict[str, int] = field(default_factory=dict)
    gold_facts_corpus_only: int = 0
    gold_facts_kb_only: int = 0
    gold_facts_both: int = 0
    #: family -> fraction of its tasks that one page answers (names a focus entity, states the answer)
    shortcut_rate_by_family: dict[str, float] = field(default_factory=dict)
