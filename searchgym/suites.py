"""Named, versioned, frozen task suites: what a published number was measured on.

A suite fixes an env id and its kwargs, a world (seed, size), a family mix and a difficulty,
and how many tasks of each split are used. Its ``content_hash`` covers the scoring rules'
version (:data:`searchgym.scoring.SCORING_RULES_VERSION`), the world's corpus, knowledge base
and clock (``World.corpus_fingerprint``), the definition (with the registered tools, when they
are not searchgym's own: :func:`registered_tools`), and the full content of the tasks it uses,
and nothing else: two results with the same suite id and hash were scored by the same rules on
byte-identical corpora and tasks with the same tools, and a task family the suite does not use
can change without changing its hash. A suite whose rules, world or definition must change gets a
new version (``-v2``), never an edited ``-v1``; the old id is kept in :data:`RETIRED_SUITES`
with the reason and its replacement, which is what ``get_suite`` and the leaderboard's
``verify`` say about it. The suites are defined once, at the end of this module (and in
:mod:`searchgym.text_suites`); a retirement registers the same definitions under new ids.

Tasks of a capped split are taken deterministically: families are interleaved (in the
suite's family order, world order within a family) so that a capped split keeps every
family of the suite represented.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import InitVar, asdict, dataclass, field
from typing import Any

from searchgym.named_registry import SLUG, NamedRegistry
from searchgym.scoring import SCORING_RULES_VERSION
from searchgym.tools.tool_registry import changed_from_built_in, tool_specs
from searchgym.world import shared_world
from searchgym.world.model import Task
from searchgym.world.world import SPLITS, World

HASH_VERSION = "suite-hash-v2"
#: searchgym's own tools, in tool order: those every env plays unless a user registers others.
BUILT_IN_TOOLS = ("web_search", "knowledge_base", "calculator", "current_time", "ask_for_clarification")


def registered_tools() -> list[str] | None:
    """Every registered tool as ``name=module.Class`` in tool order, or None while they are searchgym's
    own, as searchgym registers them. Why: every env plays every registered tool, so a tool a user
    registered changed what agents did on a frozen suite (random's calls per episode 4.35 -> 4.85) under
    the same suite hash; so did a built-in tool re-registered with other roles or order."""
    specs = tool_specs()
    own = all(s.tool_class.__module__.startswith("searchgym.tools.") and not changed_from_built_in(s) for s in specs)
    if own and tuple(s.name for s in specs) == BUILT_IN_TOOLS:
        return None
    return [tool_record(s) for s in specs]


#: The name a "spawn" worker process gives its copy of the caller's script (the script itself is ``__main__``).
WORKER_MAIN = "__mp_main__"


def tool_record(spec: Any) -> str:
    """A registered tool as a suite definition records it: ``name=module.Class``, and after it, in brackets,
    the fields in which a registration with searchgym's own class differs from searchgym's registration
    (``calculator=searchgym.tools.calculator.Calculator[roles=('lead',), order=35]``). A class of the
    caller's script is ``__main__.Class`` in a compare worker too (there the script is imported as
    ``__mp_main__``). Why: a run's suite hash changed with ``--workers``."""
    record = f"{spec.name}={_where(spec.tool_class)}"
    changed = changed_from_built_in(spec)
    if not changed:
        return record
    shown = (f"{name}={_where(value) if callable(value) else repr(value)}" for name, value in changed.items())
    return f"{record}[{', '.join(shown)}]"


def _where(code: Any) -> str:
    """``module.qualname`` of a class or function, the caller's script as ``__main__`` in a worker too."""
    module = getattr(code, "__module__", None) or "?"
    name = getattr(code, "__qualname__", None) or type(code).__qualname__  # a callable object: its class
    return f"{'__main__' if module == WORKER_MAIN else module}.{name}"


@dataclass(frozen=True)
class Suite:
    """One frozen definition. ``env_kwargs`` is stored as sorted (key, value) pairs (hashable,
    picklable for worker processes); pass a dict, read it back with :attr:`kwargs`.

    Split sizes are the *maximum* number of tasks used from each split (None: all of them).
    ``registered_tools`` is taken so that a recorded :meth:`definition` reads back (``Suite(**d)``)
    and is not kept: the definition always records the tools registered now.
    """

    id: str
    version: int
    env_id: str
    env_kwargs: tuple[tuple[str, Any], ...] | Mapping[str, Any] = ()
    world_seed: int = 0
    world_size: str = "small"
    train_size: int | None = None
    dev_size: int | None = 100
    test_size: int | None = 200
    families: tuple[str, ...] | None = None
    difficulty: str | None = None
    description: str = field(default="", compare=False)
    #: families of the train split when they differ from ``families`` (a curriculum: e.g. one-hop
    #: lookups to learn from, while dev and test hold only the suite's multi-hop families)
    train_families: tuple[str, ...] | None = None
    registered_tools: InitVar[Any] = None

    def __post_init__(self, registered_tools: Any = None) -> None:
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 0:
            raise ValueError(f"suite {self.id!r}: version must be an int >= 0 (2 for an id ending -v2), "
                             f"got {self.version!r}")
        pairs = self.env_kwargs.items() if isinstance(self.env_kwargs, Mapping) else self.env_kwargs
        object.__setattr__(self, "env_kwargs", tuple(sorted((str(k), v) for k, v in pairs)))
        for name in ("families", "train_families"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, (value,) if isinstance(value, str) else tuple(value))
        reserved = {"world_seed", "world_size", "split", "families", "difficulty", "world"} & set(self.kwargs)
        if reserved:
            raise ValueError(f"suite {self.id!r}: {sorted(reserved)} are suite fields, not env_kwargs")
        for split in SPLITS:
            size = self.split_size(split)
            if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
                raise ValueError(f"suite {self.id!r}: {split}_size must be None or a positive int, got {size!r}")

    def __hash__(self) -> int:  # env_kwargs may hold dicts (reward settings): hash what names the suite
        return hash((self.id, self.version, self.env_id))

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.env_kwargs)

    def split_size(self, split: str) -> int | None:
        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}; accepted: {', '.join(SPLITS)}")
        return getattr(self, f"{split}_size")

    def definition(self) -> dict[str, Any]:
        """Everything that identifies the suite (the description is editorial and left out), and the
        registered tools when they are not searchgym's own (:func:`registered_tools`)."""
        d = asdict(self)
        d.pop("description")
        d["env_kwargs"] = self.kwargs
        d["families"] = list(self.families) if self.families is not None else None
        d["train_families"] = list(self.train_families) if self.train_families is not None else None
        tools = registered_tools()
        if tools is not None:
            d["registered_tools"] = tools
        return d

    def families_for(self, split: str) -> tuple[str, ...] | None:
        """The families a split draws from: ``train_families`` for train when set, else ``families``."""
        if split == "train" and self.train_families is not None:
            return self.train_families
        return self.families

    # ------------------------------------------------------------------------------ world
    def world(self) -> World:
        """The suite's world (cached per process by :func:`searchgym.world.shared_world`)."""
        return shared_world(self.world_seed, self.world_size)

    def tasks(self, split: str = "test") -> list[Task]:
        return tasks(self, split)

    @property
    def content_hash(self) -> str:
        return content_hash(self)


def _interleave(pool: list[Task], family_order: Iterable[str]) -> list[Task]:
    by_family: dict[str, list[Task]] = {}
    for task in pool:
        by_family.setdefault(task.family, []).append(task)
    order = [f for f in family_order if f in by_family] + sorted(set(by_family) - set(family_order))
    queues = [by_family[f] for f in order]
    out: list[Task] = []
    for i in range(max((len(q) for q in queues), default=0)):
        out.extend(q[i] for q in queues if i < len(q))
    return out


def tasks(suite: Suite, split: str = "test") -> list[Task]:
    """The tasks of ``split`` that the suite uses, in a fixed order (see the module docstring)."""
    size = suite.split_size(split)
    families = suite.families_for(split)
    pool = suite.world().tasks_in(split, families, suite.difficulty)
    if not pool:
        raise ValueError(f"suite {suite.id!r} has no {split} tasks (families={families}, "
                         f"difficulty={suite.difficulty})")
    if size is None or size >= len(pool):
        return pool
    return _interleave(pool, families or ())[:size]


def capped_train_ids(suite: Suite) -> list[str] | None:
    """The ids of the suite's train split, in :func:`tasks`' order, where it caps that split
    (``train_size``); None where it does not (every built-in suite), and its trainers' envs hold that split
    whole. What a harness run's trainer config records as ``train_task_ids``: a trainer builds its env
    from the env id and settings alone, and drew from the world's whole train split."""
    if suite.train_size is None:
        return None
    return [task.id for task in tasks(suite, "train")]


_HASHES: dict[str, str] = {}


def content_hash(suite: Suite) -> str:
    """SHA-256 of the scoring rules' version, the corpus fingerprint, the definition and the
    content of every task the suite uses (see the module docstring)."""
    key = json.dumps(suite.definition(), sort_keys=True, default=repr)
    if key not in _HASHES:
        payload = {
            "hash_version": HASH_VERSION,
            "scoring_rules": SCORING_RULES_VERSION,
            "corpus_fingerprint": suite.world().corpus_fingerprint,
            "definition": suite.definition(),
            "tasks": {split: [asdict(t) for t in tasks(suite, split)] for split in SPLITS},
        }
        blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=list).encode("utf-8")
        _HASHES[key] = hashlib.sha256(blob).hexdigest()
    return _HASHES[key]


def make_env(suite: Suite, split: str = "train", **overrides: Any):
    """The suite's env on ``split`` (a Gymnasium env or a PettingZoo ParallelEnv); ``overrides`` replace
    any of its settings (``world_seed=...``: the same tasks' kinds on another world)."""
    from searchgym.registry import make

    suite.split_size(split)  # validates the split name
    families = suite.families_for(split)
    kwargs = {"world_seed": suite.world_seed, "world_size": suite.world_size, "difficulty": suite.difficulty,
              "families": list(families) if families is not None else None, **suite.kwargs, **overrides}
    return make(suite.env_id, split=split, **kwargs)


def env_kind(suite: Suite) -> str:
    """"single" (Gymnasium) or "parallel" (PettingZoo), from the env registry."""
    from searchgym.registry import spec

    return spec(suite.env_id).kind


#: The entry points of the ``*-Numeric-*`` ids (a numeric wrapper over a candidate env).
NUMERIC_ENTRY_POINTS = ("searchgym.wrappers.numeric:make_numeric", "searchgym.wrappers.parallel:make_numeric_parallel")


def observation_kind(suite: Suite) -> str | None:
    """"numeric", "text" or "candidates": what the suite's env observes, from the registry and the
    suite's kwargs (no world is built); None for an env that does not say. The one place this is read
    (commands, the harness, the recipe and the benchmarks each combined the kwargs their own way)."""
    from searchgym.registry import spec

    entry = spec(suite.env_id)
    if entry.entry_point in NUMERIC_ENTRY_POINTS:
        return "numeric"
    return {**entry.kwargs, **suite.kwargs}.get("action_mode")


# ------------------------------------------------------------------------------- the suites
SUITES: NamedRegistry[Suite] = NamedRegistry("suite", name_pattern=SLUG)


def register_suite(suite: Suite, replace: bool = False) -> Suite:
    """Add a suite (tests and users may add their own; built-in ids cannot be replaced silently),
    checked first (:func:`check_suite`). The same definition again is no change (a module of suites
    may be imported twice)."""
    if not isinstance(suite, Suite):
        raise TypeError(f"register_suite takes a Suite, got {type(suite).__name__}")
    _refuse_taken(suite, replace)
    check_suite(suite)
    return SUITES.add(suite.id, suite, replace=True)


def register_frozen(suite: Suite) -> Suite:
    """searchgym's own suites: checked without importing their env classes (importing this module stays
    light); tests/test_suite_hash_pins.py checks each as :func:`register_suite` checks a user's."""
    _refuse_taken(suite, replace=False)
    check_suite(suite, load_env=False)
    return SUITES.add(suite.id, suite, replace=True)


def _refuse_taken(suite: Suite, replace: bool) -> None:
    if suite.id in SUITES and not replace and SUITES[suite.id] != suite:
        raise ValueError(f"suite id {suite.id!r} is taken by a different definition; choose a new id or version")


def check_suite(suite: Suite, load_env: bool = True) -> None:
    """A ValueError or TypeError naming the suite for what would fail only when it is played: an env id
    or task family that is not registered, and (``load_env``) a keyword or setting its env refuses.
    Why: such a suite was registered, and then failed ``searchgym suites`` for every suite."""
    from searchgym.registry import check_families, check_settings, spec

    owner = f"suite {suite.id!r}"
    try:
        entry = spec(suite.env_id)
    except (TypeError, ValueError) as exc:  # an unknown id: the registry's error lists the registered ones
        raise ValueError(f"{owner}: {exc}") from None
    for families in dict.fromkeys((suite.families, suite.train_families)):
        check_families(families, owner)
        if load_env:
            check_settings(entry, {"world_seed": suite.world_seed, "world_size": suite.world_size,
                                   "difficulty": suite.difficulty, "families": families, **suite.kwargs}, owner)


class UnknownSuite(KeyError):
    """An id that no suite has (a KeyError whose message reads well when printed)."""

    def __str__(self) -> str:
        return str(self.args[0])


#: Suites that no longer exist, with why: results on them cannot be re-scored by today's rules.
RETIRED_SUITES: dict[str, str] = {}
_V0_REASON = ("the scoring rules changed (scoring-v1 matched any number within 1% of the gold, so wrong "
              "years and counts scored; scoring-v2 matched years and counts only as the same integer) and "
              "the world generator changed (bridges need every hop); results on it cannot be re-scored")
#: Why the ``-v1`` suites were retired (their ``-v2`` successors have the same definitions).
V1_REASON = ("the scoring rules changed (scoring-v2 matched a computed answer, a sum or a difference, within "
             "0.5% of the gold, so sums off by one scored; scoring-v3 matches a computed answer only exactly); "
             "results on it were scored by the old rules, and its successor has the same world, tasks and "
             "settings")


def retire_suite(old_id: str, reason: str, replacement: str) -> None:
    """Record that ``old_id`` no longer exists, why, and which suite replaces it."""
    RETIRED_SUITES[old_id] = f"suite {old_id} was retired: {reason}. Use {replacement}"


def get_suite(suite_id: str | Suite) -> Suite:
    if isinstance(suite_id, Suite):
        return suite_id
    if not isinstance(suite_id, str):  # a list was "unhashable type: 'list'", from the look-up below
        raise UnknownSuite(f"a suite id is a string (or a Suite), got {type(suite_id).__name__} {suite_id!r:.60}; "
                           f"known suites: {', '.join(SUITES)}")
    if suite_id in RETIRED_SUITES and suite_id not in SUITES:
        raise UnknownSuite(RETIRED_SUITES[suite_id])
    if suite_id not in SUITES:
        raise UnknownSuite(f"unknown suite {suite_id!r}; known suites: {', '.join(SUITES)}")
    return SUITES[suite_id]


def list_suites() -> list[Suite]:
    return list(SUITES.values())


#: The families of the suites over every family: searchgym's own, in generation order, written out.
#: Why not ``tuple(FAMILIES)``: that was read when this module was first imported, so a family that a
#: user's module registered before that joined every such suite, its hash and its test tasks.
ALL_FAMILIES = ("lookup", "bridge", "comparison", "aggregate", "temporal", "ambiguous", "list")
#: The main suite's families: every one needs two or more evidence hops.
MULTI_HOP_FAMILIES = ("bridge", "comparison", "aggregate", "temporal")

# The main suite: its settings are here and nowhere else.
register_frozen(Suite(
    "quick-v2", 2, "TeamSearch-Generalists-Candidates-v0",
    {"team_size": 2, "max_rounds": 8, "reward": {"step_cost": 0.0}},
    world_seed=0, world_size="medium", dev_size=60, test_size=160, families=MULTI_HOP_FAMILIES,
    train_families=("lookup", *MULTI_HOP_FAMILIES),
    description="the main suite: two generalists share a blackboard on multi-hop questions (bridges of 2-3 "
                "hops, comparisons, aggregates, temporal; one-hop lookups in the train split only), 8 rounds, "
                "outcome reward (no step cost: with one, groups that all fail rank trajectories by length and "
                "every group-relative method learns to answer early)",
))

_FAMILY_DEFAULTS = {"world_seed": 0, "world_size": "medium", "dev_size": 100, "test_size": 200, "families": ALL_FAMILIES}
for _name, _env, _kwargs, _what in (
    ("searchqa", "SearchQA-Candidates-v0", {"max_steps": 12}, "one agent, candidate actions"),
    ("team", "TeamSearch-Candidates-v0", {"max_rounds": 12}, "lead, searcher and analyst share a blackboard"),
    ("group", "GroupSearch-Candidates-v0", {"group_size": 4, "max_steps": 12},
     "four agents attempt each task; the prediction is their majority vote"),
):
    for _difficulty, _suffix in ((None, ""), ("easy", "-easy"), ("hard", "-hard")):
        _level = {None: "every family and difficulty", "easy": "easy tasks", "hard": "hard tasks"}[_difficulty]
        register_frozen(Suite(f"{_name}{_suffix}-v2", 2, _env, _kwargs, difficulty=_difficulty,
                              description=f"{_what}; {_level}", **_FAMILY_DEFAULTS))
for _name in ("quick", *(f"{k}{d}" for k in ("searchqa", "team", "group") for d in ("", "-easy", "-hard"))):
    retire_suite(f"{_name}-v0", _V0_REASON, f"{_name}-v2")
    retire_suite(f"{_name}-v1", V1_REASON, f"{_name}-v2")
from searchgym import text_suites  # noqa: E402,F401  (registers the text-mode suites)
