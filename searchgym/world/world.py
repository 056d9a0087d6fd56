"""`World`: one generated (or loaded) search world, immutable and shared.

A world holds the entities and facts, the corpus of pages, the knowledge base (a deliberately
incomplete subset of the facts) and the tasks. Build it once per (seed, size) with
:func:`searchgym.world.shared_world` and share it: envs, groups and teams never copy it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from functools import cached_property

from searchgym.world.families import FAMILIES, FamilyBuildError
from searchgym.world.mentions import MentionFinder
from searchgym.world.model import Entity, Fact, Page, Task, WorldStats

SPLITS = ("train", "dev", "test")
#: What a task's ``difficulty`` is.
DIFFICULTIES = ("easy", "hard")
#: v1: numeric tasks carry their number kind; bridges need both hops (bridge_shortcut_rate).
WORLD_VERSION = "world-v1"


@dataclass(frozen=True, eq=False)
class World:
    """A seeded fictional world (or a user corpus) with its tasks."""

    seed: int
    size: str
    now: dt.date
    entities: Mapping[str, Entity]
    facts: Mapping[str, Fact]
    pages: tuple[Page, ...]
    kb: Mapping[str, tuple[str, ...]]
    tasks: tuple[Task, ...]
    version: str = WORLD_VERSION
    meta: Mapping[str, object] = field(default_factory=dict)
    #: (family, what went wrong) for each family whose builder failed: it has no tasks here, and a
    #: task filter that asks for it is an error. Not in :meth:`to_json`: no fingerprint moves.
    family_failures: tuple[tuple[str, str], ...] = ()

    @classmethod
    def generate(cls, seed: int = 0, size: str | int = "small", bridge_shortcut_rate: float = 0.0) -> World:
        """Generate the world for ``seed`` and ``size`` (same inputs, same world, byte for byte).

        ``bridge_shortcut_rate`` is the largest fraction of bridges a single page may answer
        (0.0: every bridge needs every hop).
        """
        from searchgym.world.generate import generate_world

        return generate_world(seed=seed, size=size, bridge_shortcut_rate=bridge_shortcut_rate)

    # ----------------------------------------------------------------------------- look-ups
    @cached_property
    def page_by_id(self) -> dict[str, Page]:
        return {p.id: p for p in self.pages}

    @cached_property
    def task_by_id(self) -> dict[str, Task]:
        return {t.id: t for t in self.tasks}

    @cached_property
    def pages_of_fact(self) -> dict[str, tuple[str, ...]]:
        found: dict[str, list[str]] = defaultdict(list)
        for page in self.pages:
            for fid in page.fact_ids:
                found[fid].append(page.id)
        return {k: tuple(v) for k, v in found.items()}

    @cached_property
    def sentence_of_fact(self) -> dict[str, str]:
        """A sentence that states each fact on some page (the first page that has it)."""
        found: dict[str, str] = {}
        for page in self.pages:
            for sentence in page.sentences:
                if sentence.fact_id is not None:
                    found.setdefault(sentence.fact_id, sentence.text)
        return found

    @cached_property
    def kb_fact_ids(self) -> frozenset[str]:
        return frozenset(fid for fids in self.kb.values() for fid in fids)

    @cached_property
    def entities_by_name(self) -> dict[str, tuple[str, ...]]:
        """Lower-cased plain name -> ids of every entity with that name (namesakes share one)."""
        found: dict[str, list[str]] = defaultdict(list)
        for e in self.entities.values():
            found[e.name.lower()].append(e.id)
        return {k: tuple(v) for k, v in found.items()}

    @cached_property
    def entity_by_display_name(self) -> dict[str, str]:
        return {e.display_name.lower(): e.id for e in self.entities.values()}

    @cached_property
    def mentions(self) -> MentionFinder:
        """Finds entity names (plain and display) in a text; built once per world."""
        names = [(e.display_name, e.id) for e in self.entities.values()]
        names += [(e.name, e.id) for e in self.entities.values()]
        return MentionFinder(names)

    def tasks_in(
        self,
        split: str | None = None,
        families: str | Iterable[str] | None = None,
        difficulty: str | None = None,
    ) -> list[Task]:
        """Tasks of a split, optionally restricted to some families (a name, or a list of names) and
        one difficulty; a family or difficulty that does not exist is an error, not no tasks."""
        if split is not None and split not in SPLITS:
            raise ValueError(f"unknown split {split!r}; accepted: {', '.join(SPLITS)}")
        families = self.check_task_filter(families, difficulty)
        wanted = set(families) if families is not None else None
        return [
            t
            for t in self.tasks
            if (split is None or t.split == split)
            and (wanted is None or t.family in wanted)
            and (difficulty is None or t.difficulty == difficulty)
        ]

    def known_families(self) -> list[str]:
        """The families a task filter may name, sorted: the registered ones and its tasks' own."""
        return sorted(set(FAMILIES) | {t.family for t in self.tasks})

    def check_task_filter(self, families: str | Iterable[str] | None,
                          difficulty: str | None) -> list[str] | None:
        """``families`` as a list (one name is a list of one), or a ValueError naming the unknown
        families or difficulty and the accepted ones. Why: ``families="bridge"`` was read letter by
        letter, and a misspelled family or ``difficulty="HARD"`` selected no task, silently. A
        family is known when it is registered or some task of this world has it (a loaded world's)."""
        given = families
        if isinstance(families, str):
            families = [families]
        elif families is not None:
            if not isinstance(families, Iterable):
                raise TypeError(f"families must be None, a family name or a list of names, "
                                f"got {type(families).__name__}")
            families = list(families)
        if families is not None:
            known = self.known_families()
            if not families:  # before: "no tasks in split 'train' for families=[] ..." (the env), none (tasks_in)
                raise ValueError(f"families={given!r} is empty, which is not accepted: None (the default) means "
                                 f"every family; or name some of: {', '.join(known)}")
            unknown = [f for f in families if f not in known]
            if unknown:
                raise ValueError(f"unknown task families {unknown}; accepted: {', '.join(known)}")
        self._check_not_failed(families)
        if difficulty is not None and difficulty not in DIFFICULTIES:
            raise ValueError(f"difficulty must be None or one of {DIFFICULTIES}, got {difficulty!r}")
        return families

    def _check_not_failed(self, families: list[str] | None) -> None:
        """A :class:`FamilyBuildError` when the filter asks for a family whose builder failed
        (``None`` asks for every family); the families that work are served without it."""
        failed = dict(self.family_failures)
        asked = [f for f in (failed if families is None else families) if f in failed]
        if asked:
            every = " (families=None asks for every family)" if families is None else ""
            raise FamilyBuildError(f"{failed[asked[0]]}; this world has none of its tasks{every}: fix the "
                                   f"builder, or name families= without {asked[0]!r}")

    # ------------------------------------------------------------------------ description
    def stats(self) -> WorldStats:
        """Counts of entities, pages, tasks and where the gold facts can be found."""
        gold = {h.fact_id for t in self.tasks for h in t.evidence}
        in_pages = set(self.pages_of_fact)
        in_kb = self.kb_fact_ids
        return WorldStats(
            entities_by_type=dict(sorted(Counter(e.type for e in self.entities.values()).items())),
            facts=len(self.facts),
            pages_by_kind=dict(sorted(Counter(p.kind for p in self.pages).items())),
            kb_facts=len(in_kb),
            tasks_by_family=dict(sorted(Counter(t.family for t in self.tasks).items())),
            tasks_by_split=dict(sorted(Counter(t.split for t in self.tasks).items())),
            gold_facts_corpus_only=len({f for f in gold if f in in_pages and f not in in_kb}),
            gold_facts_kb_only=len({f for f in gold if f in in_kb and f not in in_pages}),
            gold_facts_both=len({f for f in gold if f in in_kb and f in in_pages}),
            shortcut_rate_by_family=self.shortcut_rates(),
        )

    def shortcut_rates(self) -> dict[str, float]:
        """Per family, the fraction of tasks one page answers: it names a focus entity and states an
        answer alias (for lists: every item). For lookups that is the point; for a bridge it is a
        shortcut past the hops (see :mod:`searchgym.world.shortcuts`)."""
        from searchgym.world.shortcuts import ShortcutDetector

        detector = ShortcutDetector(self.entities, self.facts, self.pages)
        found: dict[str, list[bool]] = defaultdict(list)
        for task in self.tasks:
            if task.answer_items:
                hit = all(detector.has_shortcut(task.focus_entity_ids, item) for item in task.answer_items)
            else:
                hit = detector.has_shortcut(task.focus_entity_ids, task.answers)
            found[task.family].append(hit)
        return {family: round(sum(v) / len(v), 4) for family, v in sorted(found.items())}

    def to_json(self, tasks: bool = True) -> str:
        """Canonical JSON of the whole world (what the fingerprint hashes); ``tasks=False`` leaves
        the tasks out (what :attr:`corpus_fingerprint` hashes)."""
        payload = {
            "version": self.version,
            "seed": self.seed,
            "size": self.size,
            "now": self.now.isoformat(),
            "entities": [asdict(e) for e in self.entities.values()],
            "facts": [asdict(f) for f in self.facts.values()],
            "pages": [asdict(p) for p in self.pages],
            "kb": {k: list(v) for k, v in self.kb.items()},
            "meta": dict(self.meta),
        }
        if tasks:
            payload["tasks"] = [asdict(t) for t in self.tasks]
        return json.dumps(payload, sort_keys=True, separators=(",", ":"))

    @cached_property
    def fingerprint(self) -> str:
        """SHA-256 of the canonical JSON: equal fingerprints mean byte-identical worlds."""
        return hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()

    @cached_property
    def corpus_fingerprint(self) -> str:
        """SHA-256 of :meth:`to_json` without the tasks: the version, seed, size and clock, the
        entities and facts, the pages, the KB, and ``meta`` (how the world was made: a generated
        world's knobs such as ``bridge_shortcut_rate``, or that it was read from files). Suites hash
        this plus only the tasks they use. So two worlds with the same pages and KB made with other
        knobs differ; ``meta`` stays in because every suite's published hash was computed with it."""
        return hashlib.sha256(self.to_json(tasks=False).encode("utf-8")).hexdigest()
