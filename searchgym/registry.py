"""Environment ids: one registry for single-agent (Gymnasium) and multi-agent (PettingZoo) envs.

Every single-agent id is also registered with Gymnasium as ``searchgym/<id>``, so both
``searchgym.make("SearchQA-v0")`` and ``gymnasium.make("searchgym/SearchQA-v0")`` work.
Multi-agent ids make a PettingZoo ``ParallelEnv``; ``make_aec`` gives its AEC view.

The ``*-Numeric*`` ids are the candidate-mode envs behind :mod:`searchgym.wrappers`: a flat
``Box`` of hashed features with ``action_masks()`` (single agent, for SB3 / CleanRL), or fixed
agent sets with masks for finished agents (multi-agent, for SuperSuit-style vector wrappers).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium
import numpy as np

from searchgym.envs.play_rules import PlayRules, play_rules
from searchgym.named_registry import SLUG, NamedRegistry, UnknownNameError

KINDS = ("single", "parallel")


@dataclass(frozen=True)
class EnvSpec:
    """An id, the class that implements it (``module:Class``), and its default kwargs."""

    id: str
    entry_point: str
    kind: str = "single"
    kwargs: dict[str, Any] = field(default_factory=dict)
    description: str = ""

    def load(self) -> type:
        module, _, name = self.entry_point.partition(":")
        return getattr(importlib.import_module(module), name)


#: Every env id (listed in id order). A taken id is replaced only by ``register(..., replace=True)``.
ENV_IDS: NamedRegistry[EnvSpec] = NamedRegistry("env id", sort_key=lambda s: s.id, name_pattern=SLUG)


def register(id: str, entry_point: str, kind: str = "single", description: str = "", *, replace: bool = False,
             **kwargs: Any) -> EnvSpec:
    """Add an id, checked first (:func:`check_registration`). An id taken by another registration is
    an error unless ``replace=True``; the same registration again is no change. Why: re-registering
    ``SearchQA-v0`` replaced it silently, and a frozen suite then played another env under its hash."""
    s = _new_spec(id, entry_point, kind, description, kwargs)
    taken = ENV_IDS.find(id)
    if taken is not None and not replace:
        if taken == s:
            return taken
        raise ValueError(f"env id {id!r} is already registered (to {taken.entry_point}); choose another id, "
                         "or pass replace=True to replace it")
    check_registration(s)
    return _add(s)


def _new_spec(id: str, entry_point: str, kind: str, description: str, kwargs: dict[str, Any]) -> EnvSpec:
    if not isinstance(id, str) or not SLUG.match(id):
        raise ValueError(f"an env id is a string of letters, digits and _ . + - (a letter or digit first), got {id!r}")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if not isinstance(entry_point, str) or ":" not in entry_point:
        raise ValueError(f"entry_point must look like 'package.module:Class', got {entry_point!r}")
    return EnvSpec(id, entry_point, kind, dict(kwargs), description)


def _add(spec: EnvSpec) -> EnvSpec:
    ENV_IDS.add(spec.id, spec, replace=True)
    id, entry_point, kwargs = spec.id, spec.entry_point, spec.kwargs
    if spec.kind == "single":
        gym_id = f"searchgym/{id}"
        gymnasium.envs.registration.registry.pop(gym_id, None)
        # No passive checker by default: tests/envs/test_conformance.py runs Gymnasium's full
        # check_env on every id, and the passive one (Gymnasium 1.4) breaks the first step after a
        # first reset that raised (a misspelled option): "cannot unpack non-iterable NoneType".
        gymnasium.register(gym_id, entry_point=entry_point, kwargs=dict(kwargs), disable_env_checker=True)
    else:  # a clear error, not Gymnasium's "doesn't exist in namespace searchgym. Did you mean: `SearchQA`?"
        gymnasium.envs.registration.registry.pop(f"searchgym/{id}", None)
        gymnasium.register(f"searchgym/{id}", entry_point="searchgym.registry:refuse_gymnasium_make",
                           kwargs={"multi_agent_id": id}, disable_env_checker=True)
    return spec


def _register_own(id: str, entry_point: str, kind: str = "single", description: str = "", **kwargs: Any) -> None:
    """searchgym's own ids, added without importing their classes (``import searchgym`` stays light);
    tests/test_env_registration.py checks each as :func:`register` checks a user's."""
    _add(_new_spec(id, entry_point, kind, description, kwargs))


def base_env(env: Any) -> Any:
    """The searchgym env under any wrappers (Gymnasium's, PettingZoo's, the ``*-Numeric-v0`` feature
    wrappers). Why not ``env.unwrapped`` alone: a PettingZoo env that is not a ``BaseParallelWrapper``
    is its own ``unwrapped`` unless it says otherwise (``NumericParallel`` was, so
    ``tasks("GroupSearch-Numeric-v0")`` failed with "'NumericParallel' object has no attribute 'tasks'")."""
    base = env.unwrapped
    while not hasattr(base, "tasks") and hasattr(base, "env"):
        base = base.env.unwrapped
    return base


def refuse_gymnasium_make(multi_agent_id: str, **kwargs: Any) -> None:
    """What ``gymnasium.make("searchgym/<multi-agent id>")`` (or ``make_vec``) runs: an error saying
    the id is a PettingZoo env and how to make it."""
    raise ValueError(f"{multi_agent_id} is a multi-agent PettingZoo env, not a Gymnasium env: make it with "
                     f"searchgym.make({multi_agent_id!r}) (a ParallelEnv) or searchgym.make_aec({multi_agent_id!r}); "
                     "gymnasium.make and make_vec take the single-agent ids (searchgym list)")


def spec(id: str) -> EnvSpec:
    if not isinstance(id, str):
        raise TypeError(f"an env id is a string, got {type(id).__name__}")
    return ENV_IDS.get(id.removeprefix("searchgym/"))  # unknown: an error (KeyError, ValueError) listing them


def registered_setting(id: str, key: str) -> Any:
    """The value the registration of ``id`` fixes for the env keyword ``key`` (a wrapped id's, its
    ``base_id``'s), or None. Why: an ad-hoc suite of ``SearchQA-Candidates-Easy-v0`` built with
    difficulty None overrode the id's own "easy", so `searchgym train` played and tested every family."""
    entry = spec(id)
    for _ in range(len(ENV_IDS) + 1):  # a chain of base ids, never a cycle
        if key in entry.kwargs:
            return entry.kwargs[key]
        base = entry.kwargs.get("base_id")
        if not isinstance(base, str):
            return None
        entry = spec(base)
    return None


def declared_rules(id: str) -> PlayRules:
    """How the env of ``id`` plays: its class's declaration (a wrapped id plays as its ``base_id``)."""
    s = spec(id)
    target = s.load()
    if isinstance(target, type):
        return play_rules(target)
    if "base_id" in s.kwargs:
        return declared_rules(s.kwargs["base_id"])
    if s.kind == "single":
        return PlayRules("single")
    raise ValueError(f"{s.id} is made by {s.entry_point}, a function: register it with a base_id (the id it wraps), "
                     "or register the env class, which declares how it plays")


def registered() -> list[EnvSpec]:
    return list(ENV_IDS.values())


def accepted_kwargs(target: Any) -> list[str] | None:
    """Keyword names a class (following ``**kwargs`` up its bases) or a function takes; None when a
    function passes arbitrary kwargs on (the env it makes checks them). A class whose ``**kwargs``
    are the fields of an EnvConfig says so with a ``config_kwargs`` attribute (their names)."""
    chain = [c.__init__ for c in target.__mro__ if "__init__" in vars(c)] if isinstance(target, type) else [target]
    config_kwargs = getattr(target, "config_kwargs", None)
    names: list[str] = []
    for function in chain:
        parameters = inspect.signature(function).parameters
        names += [n for n, p in parameters.items() if n != "self" and n not in names
                  and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
            return names
        if config_kwargs is not None:
            return names + [n for n in config_kwargs if n not in names]
    return None


#: What ``gymnasium.make`` takes itself: a single-agent id passes them on to it (a multi-agent id has none).
GYMNASIUM_KWARGS = ("disable_env_checker", "max_episode_steps")


def _named(function: Any) -> list[str]:
    """The parameters of ``function`` a keyword can name (not ``*args``, ``**kwargs``)."""
    return [n for n, p in inspect.signature(function).parameters.items()
            if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]


def wrapper_kwargs(factory: Any, base_id: str) -> list[str] | None:
    """What a factory that wraps the env of ``base_id`` (passing its ``**kwargs`` on) accepts: its own
    keywords, then that id's. Why: ``make("SearchQA-Numeric-v0", foo=1)`` was an error naming
    SearchQA-Candidates-v0, whose list left out question_dim, transcript_dim and candidate_dim."""
    base = id_kwargs(spec(base_id))
    if base is None:
        return None
    own = _named(factory)
    return own + [n for n in base if n not in own]


def id_kwargs(s: EnvSpec, base_id: str | None = None) -> list[str] | None:
    """The keywords ``make(s.id, ...)`` accepts (None: not known); ``base_id``: the one the caller gives."""
    target = s.load()
    accepted = accepted_kwargs(target)
    if accepted is None and not isinstance(target, type) and "base_id" in s.kwargs:
        return wrapper_kwargs(target, s.kwargs["base_id"] if base_id is None else base_id)
    return accepted


def refuse_unknown(owner: str, kwargs: Any, accepted: list[str] | None, unlisted: Sequence[str] = ()) -> None:
    """A TypeError naming ``owner``, the keywords it does not take and those it does (less ``unlisted``:
    keywords the env takes only to refuse them with its own message, such as a team's ``max_steps``)."""
    unknown = sorted(map(str, set(kwargs) - set(accepted))) if accepted is not None else []
    if unknown:
        raise TypeError(f"{owner} got unknown keyword argument(s) {', '.join(map(repr, unknown))}; "
                        f"accepted: {', '.join(n for n in accepted if n not in unlisted)}")


def refused_kwargs(s: EnvSpec, base_id: str | None = None) -> tuple[str, ...]:
    """The config keywords the env of ``s`` (or of the id it wraps) refuses (``refused_kwargs`` on its class),
    and those a wrapping factory takes but does not offer (``unlisted_kwargs`` on it). Why: a Numeric id's
    list offered action_mode, which it refuses unless 'candidates', and tool_format, which it never reads."""
    target = s.load()
    unlisted = tuple(getattr(target, "unlisted_kwargs", ()))
    if not isinstance(target, type) and "base_id" in s.kwargs:
        target = spec(s.kwargs["base_id"] if base_id is None else base_id).load()
    return unlisted + tuple(getattr(target, "refused_kwargs", ()))


def check_kwargs(s: EnvSpec, kwargs: dict[str, Any]) -> None:
    """A misspelled keyword is a clear error that lists the accepted ones (not a bare TypeError)."""
    base_id = kwargs.get("base_id")
    refuse_unknown(s.id, kwargs, id_kwargs(s, base_id), refused_kwargs(s, base_id))


def check_registration(s: EnvSpec) -> None:
    """What ``make(s.id)`` would refuse before it builds a world, as one line naming the id: an entry
    point that does not load, then as :func:`check_settings`. Why at registration: a misspelled
    keyword, a missing module or an unregistered family was found only by the first ``make``."""
    try:
        s.load()
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"env id {s.id!r}: its entry point {s.entry_point} does not load ({exc})") from None
    check_settings(s, s.kwargs, f"env id {s.id!r}")


def check_settings(s: EnvSpec, kwargs: dict[str, Any], owner: str) -> None:
    """What the env of ``s`` refuses of ``kwargs`` before it builds a world, in an error that opens with
    ``owner``: a keyword it does not take, a task family that is not registered, a setting its
    EnvConfig refuses (a class that takes EnvConfig's fields, or a wrapped id's ``base_id`` that does)."""
    base_id = kwargs.get("base_id")
    try:
        refuse_unknown(owner, kwargs, id_kwargs(s, base_id), refused_kwargs(s, base_id))
    except UnknownNameError as exc:  # a base_id that is not registered
        raise ValueError(f"{owner}: {exc}") from None
    check_families(kwargs.get("families"), owner)
    base = spec(base_id or s.kwargs["base_id"]) if "base_id" in s.kwargs or base_id else None  # a wrapped id
    env = s if base is None else base
    if getattr(env.load(), "config_kwargs", None) is None:
        return
    from searchgym.envs.config import CONFIG_KWARGS, EnvConfig
    from searchgym.envs.setup import episode_config
    from searchgym.world.world import DIFFICULTIES

    settings = {k: v for k, v in {**env.kwargs, **s.kwargs, **kwargs}.items() if k in CONFIG_KWARGS}
    try:
        episode_config(EnvConfig(**settings))  # as env_setup checks them
    except ValueError as exc:
        raise ValueError(f"{owner}: {exc}") from None
    if settings.get("difficulty") not in (None, *DIFFICULTIES):
        raise ValueError(f"{owner}: difficulty must be None or one of {', '.join(DIFFICULTIES)}, "
                         f"got {settings['difficulty']!r}")


def check_families(families: Any, owner: str) -> None:
    """A ValueError opening with ``owner`` for a family name that is not registered (one name or a list)."""
    from searchgym.world.families import FAMILY_REGISTRY  # here: `import searchgym` builds no world modules

    names = [families] if isinstance(families, str) else families if isinstance(families, list | tuple) else []
    unknown = [name for name in names if name not in FAMILY_REGISTRY]
    if unknown:
        raise ValueError(f"{owner}: unknown task family {unknown[0]!r}; registered: {', '.join(FAMILY_REGISTRY)} "
                         "(register a family before what uses it)")


def plain_settings(value: Any) -> Any:
    """``value`` with NumPy scalars as Python ints, floats, bools and strings, inside dicts, lists and
    tuples too. Why: Gymnasium keeps the keywords in ``env.spec``, and ``spec.to_json()`` failed on
    ``world_seed=np.int64(3)`` ("Object of type int64 is not JSON serializable")."""
    if isinstance(value, np.generic):
        return value.item()
    if type(value) is dict:
        return {plain_settings(key): plain_settings(item) for key, item in value.items()}
    if type(value) in (list, tuple):
        return type(value)(plain_settings(item) for item in value)
    return value


def make(id: str, **kwargs: Any):
    """A Gymnasium env (single-agent ids) or a PettingZoo ParallelEnv (multi-agent ids)."""
    s = spec(id)
    kwargs = plain_settings(kwargs)
    passed_on = GYMNASIUM_KWARGS if s.kind == "single" else ()  # a multi-agent id named its class, not itself
    check_kwargs(s, {k: v for k, v in kwargs.items() if k not in passed_on})
    if s.kind == "single":
        return gymnasium.make(f"searchgym/{s.id}", **kwargs)
    return s.load()(**{**s.kwargs, **kwargs})


def make_parallel(id: str, **kwargs: Any):
    s = spec(id)
    if s.kind != "parallel":
        raise ValueError(f"{id!r} is a single-agent env; use searchgym.make")
    return make(id, **kwargs)


def make_aec(id: str, **kwargs: Any):
    """The AEC view of a multi-agent env (through ``pettingzoo.utils.parallel_to_aec``)."""
    from pettingzoo.utils import parallel_to_aec

    return parallel_to_aec(make_parallel(id, **kwargs))


_SEARCH = "searchgym.envs.search:SearchEnv"
_GROUP = "searchgym.envs.group:GroupSearchEnv"
_TEAM = "searchgym.envs.team:TeamSearchEnv"

_register_own("SearchQA-v0", _SEARCH, description="single agent, text tool calls (Hermes <tool_call> JSON)",
              action_mode="text", tool_format="hermes")
_register_own("SearchQA-Tags-v0", _SEARCH, description="single agent, text tool calls (Search-R1 tags)",
              action_mode="text", tool_format="tags")
_register_own("SearchQA-Candidates-v0", _SEARCH, description="single agent, choose among admissible candidate actions",
              action_mode="candidates")
_register_own("SearchQA-Candidates-Easy-v0", _SEARCH, description="candidates, easy tasks only (1-2 hops, short lists)",
              action_mode="candidates", difficulty="easy")
_register_own("GroupSearch-v0", _GROUP, kind="parallel", description="K agents attempt the same task (a GRPO group), text",
              action_mode="text")
_register_own("GroupSearch-Candidates-v0", _GROUP, kind="parallel", description="a GRPO group, candidate actions",
              action_mode="candidates")
_register_own("TeamSearch-v0", _TEAM, kind="parallel", description="lead, searcher, analyst share a blackboard, text",
              action_mode="text", roles="roles")
_register_own("TeamSearch-Candidates-v0", _TEAM, kind="parallel", description="the roles team, candidate actions",
              action_mode="candidates", roles="roles")
_register_own("TeamSearch-Generalists-v0", _TEAM, kind="parallel", description="K generalists share a blackboard, text",
              action_mode="text", roles="generalists")
_register_own("TeamSearch-Generalists-Candidates-v0", _TEAM, kind="parallel",
              description="K generalists, candidate actions", action_mode="candidates", roles="generalists")

_NUMERIC = "searchgym.wrappers.numeric:make_numeric"
_NUMERIC_PARALLEL = "searchgym.wrappers.parallel:make_numeric_parallel"

_register_own("SearchQA-Numeric-v0", _NUMERIC, description="candidates as a hashed-feature Box + action_masks() (SB3)",
              base_id="SearchQA-Candidates-v0")
_register_own("SearchQA-Numeric-Easy-v0", _NUMERIC, description="the easy candidate env as a Box + action_masks() (SB3)",
              base_id="SearchQA-Candidates-Easy-v0")
_register_own("GroupSearch-Numeric-v0", _NUMERIC_PARALLEL, kind="parallel",
              description="GRPO group, Box observations, fixed agents with masks", base_id="GroupSearch-Candidates-v0")
_register_own("TeamSearch-Numeric-v0", _NUMERIC_PARALLEL, kind="parallel",
              description="roles team, Box observations, fixed agents with masks", base_id="TeamSearch-Candidates-v0")
