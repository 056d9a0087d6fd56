"""Procedural generation of a world: entities, then facts, then pages, the KB and the tasks.

Everything is drawn from one ``np.random.Generator`` seeded by the world seed, in a fixed order,
over lists (never sets, whose order depends on the interpreter's hash seed): the same seed gives
the same world byte for byte on any machine.
"""

from __future__ import annotations

import datetime as dt
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from searchgym.world.corpus import render_corpus
from searchgym.world.model import Entity, Fact
from searchgym.world.names import NameMaker
from searchgym.world.schema import ATTRIBUTES_BY_TYPE, OCCUPATIONS
from searchgym.world.tasks import generate_tasks
from searchgym.world.world import World

#: Scale of each preset size: the number of cities; other types scale with it.
SIZES: dict[str, int] = {"tiny": 8, "small": 24, "medium": 100, "large": 500, "xl": 9000}
#: Tasks generated per family (before the split), per preset size.
TASKS_PER_FAMILY: dict[str, int] = {"tiny": 30, "small": 90, "medium": 300, "large": 300, "xl": 300}
NAMESAKE_FRACTION = 0.15
NEAR_NAMESAKE_FRACTION = 0.12
OUTDATED_FRACTION = 0.5


_PRESET_OF_SCALE = {scale: label for label, scale in SIZES.items()}


def resolve_size(size: str | int) -> tuple[str, int]:
    """Map a preset name or an int scale >= 4 to (label, scale), with a clear error otherwise.

    An int equal to a preset's scale resolves to that preset ("tiny" and 8 are one world).
    """
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, (str, int, np.integer)):
        # the bound as the other two messages state it (was "or a positive int", where 1..3 are refused)
        raise TypeError(f"size must be one of {', '.join(SIZES)} or an int >= 4, "
                        f"got {type(size).__name__} {size!r:.40}")
    if isinstance(size, (int, np.integer)):
        size = int(size)
        if size < 4:
            raise ValueError(f"an integer size is a scale and must be >= 4, got {size}")
        return _PRESET_OF_SCALE.get(size, str(size)), size
    if size not in SIZES:
        raise ValueError(f"unknown world size {size!r}; accepted: {', '.join(SIZES)} or an int >= 4")
    return size, SIZES[size]


def size_from_text(size: str | int) -> str | int:
    """A world size as typed on a command line or in JSON options: digits are an int scale ("24"),
    anything else a preset name (checked by :func:`resolve_size`). Decimal digits only: "²" is a
    digit to ``str.isdigit`` that ``int`` refuses ("invalid literal for int()" was the CLI's error)."""
    return int(size) if str(size).isdecimal() else size


def check_seed(seed: object) -> int:
    """Seeds are non-negative ints (numpy ints accepted); anything else is a clear error."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be a non-negative int, got {type(seed).__name__} {seed!r}")
    if int(seed) < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed}")
    return int(seed)


def check_rate(name: str, value: object) -> float:
    """A fraction in [0, 1] (numpy floats accepted, bools not) as a float, else a clear error. Why: a
    bad ``bridge_shortcut_rate`` failed in ``float()`` ("could not convert string to float: 'x'", or
    a TypeError for None, "unhashable type" for a list in ``shared_world``), or only after the pages
    of the world were built (2.0), and True was a rate of 1.0."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a number in [0, 1], got {type(value).__name__} {value!r:.40}")
    if not 0.0 <= float(value) <= 1.0:  # NaN fails too
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return float(value)


@dataclass
class _Draft:
    """Mutable scratch space while generating; frozen into a :class:`World` at the end."""

    rng: np.random.Generator
    now: dt.date
    entities: dict[str, Entity] = field(default_factory=dict)
    facts: dict[str, Fact] = field(default_factory=dict)
    by_type: dict[str, list[str]] = field(default_factory=dict)
    occupation: dict[str, str] = field(default_factory=dict)
    company_kind: dict[str, str] = field(default_factory=dict)

    def pick(self, ids: list[str]) -> str:
        return ids[int(self.rng.integers(len(ids)))]

    def add_entity(self, etype: str, name: str, descriptor: str = "") -> str:
        eid = f"{etype}:{len(self.by_type.setdefault(etype, [])):05d}"
        self.entities[eid] = Entity(eid, etype, name, name, descriptor)
        self.by_type[etype].append(eid)
        return eid

    def add_fact(self, subject: str, predicate: str, value, object_id=None, as_of=None, current=True) -> str:
        fid = f"f{len(self.facts):06d}"
        self.facts[fid] = Fact(fid, subject, predicate, value, object_id, as_of, current)
        return fid


def _make_entities(d: _Draft, scale: int) -> None:
    names = NameMaker(d.rng)
    rng = d.rng
    for _ in range(max(3, scale // 6)):
        d.add_entity("country", names.country())
    for _ in range(scale):
        d.add_entity("city", names.place())
    for _ in range(max(3, scale // 2)):
        city = d.entities[d.pick(d.by_type["city"])].name
        d.add_entity("university", names.university(city))
    for _ in range(3 * scale):
        pid = d.add_entity("person", names.person())
        d.occupation[pid] = OCCUPATIONS[int(rng.integers(len(OCCUPATIONS)))]
    bases: list[str] = []
    for kind, count in (("company", scale), ("studio", max(2, scale // 4)), ("publisher", max(2, scale // 4))):
        for _ in range(count):
            base = None
            if bases and rng.random() < NEAR_NAMESAKE_FRACTION:
                base = bases[int(rng.integers(len(bases)))]  # a deliberate near-namesake: "Vexa Corp" / "Vexa Labs"
            name = names.company(base, kind)
            bases.append(name.split(" ")[0])
            cid = d.add_entity("company", name)
            d.company_kind[cid] = kind
    for etype, maker, count in (
        ("product", names.product, scale * 3 // 2),
        ("film", names.film, scale),
        ("book", names.book, scale),
        ("award", names.award, max(3, scale // 4)),
    ):
        for _ in range(count):
            d.add_entity(etype, maker())
    _make_namesakes(d)


def _make_namesakes(d: _Draft) -> None:
    """Give pairs of people the same name (with different occupations) so ambiguous tasks exist."""
    people = d.by_type["person"]
    n_pairs = max(2, int(len(people) * NAMESAKE_FRACTION / 2))
    order = [people[i] for i in d.rng.permutation(len(people))]
    made = 0
    for i in range(0, len(order) - 1, 2):
        if made >= n_pairs:
            break
        a, b = order[i], order[i + 1]
        if d.occupation[a] == d.occupation[b]:
            continue
        shared = d.entities[a].name
        for pid in (a, b):
            occ = d.occupation[pid]
            d.entities[pid] = Entity(pid, "person", shared, f"{shared} ({occ})", occ)
        made += 1
    for pid in people:  # every person's descriptor is its occupation (shown on its page)
        e = d.entities[pid]
        if not e.descriptor:
            d.entities[pid] = Entity(pid, "person", e.name, e.display_name, d.occupation[pid])


def _skewed_pool(d: _Draft, ids: list[str], fraction: float) -> list[str]:
    """A random subset of ``ids`` so that objects get several subjects (list tasks need that)."""
    n = max(2, int(len(ids) * fraction))
    return [ids[i] for i in sorted(d.rng.choice(len(ids), size=min(n, len(ids)), replace=False))]


def _relate(d: _Draft, subject: str, relation: str, obj: str) -> None:
    d.add_fact(subject, relation, d.entities[obj].display_name, object_id=obj)


def _make_relations(d: _Draft) -> None:
    rng, T = d.rng, d.by_type
    people_by_occ = {o: [p for p in T["person"] if d.occupation[p] == o] for o in OCCUPATIONS}
    for occ in OCCUPATIONS:  # guarantee each occupation has someone
        if not people_by_occ[occ]:
            people_by_occ[occ] = [T["person"][0]]
    companies = [c for c in T["company"] if d.company_kind[c] == "company"]
    studios = [c for c in T["company"] if d.company_kind[c] == "studio"]
    publishers = [c for c in T["company"] if d.company_kind[c] == "publisher"]
    cities_of: dict[str, list[str]] = {c: [] for c in T["country"]}
    for city in T["city"]:
        country = d.pick(T["country"])
        cities_of[country].append(city)
        _relate(d, city, "located_in", country)
    for country in T["country"]:
        if cities_of[country]:
            _relate(d, country, "capital", d.pick(cities_of[country]))
    for uni in T["university"]:
        _relate(d, uni, "campus_city", d.pick(T["city"]))
    executives = people_by_occ["entrepreneur"] + people_by_occ["engineer"] + people_by_occ["economist"]
    founders = _skewed_pool(d, people_by_occ["entrepreneur"], 0.6)
    for company in T["company"]:
        _relate(d, company, "headquartered_in", d.pick(T["city"]))
        _relate(d, company, "founded_by", d.pick(founders))
        if rng.random() < 0.7:
            _relate(d, company, "ceo", d.pick(executives))
    makers = _skewed_pool(d, companies, 0.6)
    for product in T["product"]:
        _relate(d, product, "made_by", d.pick(makers))
    directors = _skewed_pool(d, people_by_occ["film director"], 0.7)
    for film in T["film"]:
        _relate(d, film, "directed_by", d.pick(directors))
        _relate(d, film, "produced_by", d.pick(studios))
    authors = _skewed_pool(d, people_by_occ["author"], 0.7)
    for book in T["book"]:
        _relate(d, book, "written_by", d.pick(authors))
        _relate(d, book, "published_by", d.pick(publishers))
    for person in T["person"]:
        _relate(d, person, "born_in", d.pick(T["city"]))
        if rng.random() < 0.8:
            _relate(d, person, "alma_mater", d.pick(T["university"]))
        if rng.random() < 0.25:
            _relate(d, person, "award_received", d.pick(T["award"]))


def _round_value(value: int, high: int) -> int:
    if high >= 1_000_000:
        return int(round(value, -3))
    if high >= 50_000:
        return int(round(value, -1))
    return int(value)


def _make_attributes(d: _Draft) -> None:
    rng = d.rng
    for etype, attributes in ATTRIBUTES_BY_TYPE.items():
        for eid in d.by_type.get(etype, []):
            for attr in attributes:
                if attr.is_year:
                    value = int(rng.integers(attr.low, attr.high + 1))
                else:  # log-uniform: figures span orders of magnitude, as real ones do
                    value = _round_value(int(np.exp(rng.uniform(np.log(attr.low), np.log(attr.high)))), attr.high)
                    value = max(value, attr.low)
                as_of = d.now.year - 1 if attr.dated else None
                d.add_fact(eid, attr.name, value, as_of=as_of)
                if attr.dated and rng.random() < OUTDATED_FRACTION:
                    old = _round_value(int(value * rng.uniform(0.55, 0.92)), attr.high)
                    if old != value and old > 0:
                        d.add_fact(eid, attr.name, old, as_of=d.now.year - int(rng.integers(3, 12)), current=False)


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while generating, then restore its previous state.

    Generation allocates millions of small acyclic objects; the collector's repeated full passes
    over them cost about a third of the time at 100k pages and free nothing (reference counting
    frees everything that is dropped).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def generate_world(seed: int = 0, size: str | int = "small", bridge_shortcut_rate: float = 0.0) -> World:
    """Generate the world for (seed, size); see :meth:`World.generate`.

    ``bridge_shortcut_rate``: the largest fraction of bridge tasks that a single page may answer
    (it names the question's entity and states the answer; :mod:`searchgym.world.shortcuts`).
    """
    seed = check_seed(seed)
    label, scale = resolve_size(size)
    rate = check_rate("bridge_shortcut_rate", bridge_shortcut_rate)
    with _no_cyclic_gc():
        return _generate(seed, label, scale, rate)


def _generate(seed: int, label: str, scale: int, bridge_shortcut_rate: float) -> World:
    rng = np.random.default_rng([seed, scale, 20260])
    now = dt.date(int(rng.integers(2031, 2040)), int(rng.integers(1, 13)), int(rng.integers(1, 29)))
    d = _Draft(rng=rng, now=now)
    _make_entities(d, scale)
    _make_relations(d)
    _make_attributes(d)
    pages, kb = render_corpus(d.entities, d.facts, rng)
    per_family = TASKS_PER_FAMILY.get(label, min(300, max(30, scale * 3)))
    failures: dict[str, str] = {}
    tasks = generate_tasks(d.entities, d.facts, pages, kb, now, rng, per_family, bridge_shortcut_rate, failures)
    return World(
        seed=seed,
        size=label,
        now=now,
        entities=d.entities,
        facts=d.facts,
        pages=tuple(pages),
        kb=kb,
        tasks=tuple(tasks),
        meta={"bridge_shortcut_rate": float(bridge_shortcut_rate)},
        family_failures=tuple(failures.items()),
    )
