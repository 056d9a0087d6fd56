"""EnvConfig: the settings every searchgym env takes, in one value.

Why: the single-, group- and team envs took the same fourteen keywords and passed them on one by
one. Now each env takes ``config=EnvConfig(...)`` and/or the same keywords as before
(``SearchEnv(max_steps=8)``); keywords override the config's fields, and an unknown keyword is
a ``TypeError`` that lists the accepted ones. Through the registry the id's own keywords are
keywords too: ``make("GroupSearch-v0", config=c)`` is text mode whatever ``c.action_mode`` says.

Every size is bounded (:data:`BOUNDS`): a legal but huge ``max_candidates`` made each reset build
a million-entry observation space, and ``2**63`` overflowed inside numpy. A value out of bounds
is a ``ValueError`` that states them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from searchgym.scoring import RewardConfig
from searchgym.shown import safe_repr
from searchgym.world import SIZES, World, resolve_size

#: "ansi" returns the episode as text; "human" prints it as it is played (``envs.terminal_view``).
RENDER_MODES = (None, "ansi", "human")
#: Inclusive (low, high) of each int setting. 1024 candidates cost a reset a few ms (admissible
#: sets are far smaller); the largest world scale is the largest preset's ("xl").
#: The largest seed a world, a run or a policy takes: what NumPy, torch and Gymnasium all accept. Above
#: it a seed ended in "Overflow when unpacking long long", naming nothing. An env's episode seed may be
#: larger (:func:`check_episode_seed`).
MAX_SEED = 2**63 - 1
BOUNDS: dict[str, tuple[int, int]] = {
    "world_seed": (0, MAX_SEED),
    "max_steps": (1, 1000),
    "max_candidates": (2, 1024),
    "max_obs_chars": (1, 1_000_000),
    "max_candidate_chars": (1, 100_000),
}
WORLD_SCALE_BOUNDS = (4, max(SIZES.values()))
#: More task-family names than any world registers.
MAX_FAMILIES = 64


def _is_int_in(value: object, low: int, high: int) -> bool:
    """An int in ``low..high`` (numpy ints too, bools not)."""
    return not isinstance(value, bool) and isinstance(value, int | np.integer) and low <= value <= high


def _shown(value: object) -> str:
    """``value`` as an error message shows it: short, and only the type of anything unusual."""
    return safe_repr(value, 60) if isinstance(value, int | np.integer | float | str) else type(value).__name__


def check_int(name: str, value: object, low: int, high: int) -> int:
    """``value`` if it is an int in ``low..high`` (numpy ints too, bools not), else a ValueError stating the bounds."""
    if not _is_int_in(value, low, high):
        raise ValueError(f"{name} must be an int in {low}..{high}, got {_shown(value)}")
    return int(value)


def check_episode_seed(seed: object) -> int:
    """An env's ``reset(seed=...)``: a non-negative int of any size, as Gymnasium takes it (NumPy
    integers too; a bool is no seed: True was played as 1). Why no upper bound: the harness derives
    episode seeds from a run's seed by arithmetic (seed x 100,003 + episode), which passes
    ``MAX_SEED`` for the largest run seeds, and NumPy's SeedSequence takes any size."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(  # noqa: TRY004 (a ValueError, as every other bad setting of the envs)
            f"seed must be a non-negative int (NumPy integers too), got {_shown(seed)}")
    return int(seed)


def _families_problem(families: object) -> str:
    """What is wrong with a ``families`` value, as "got ..." ends (empty: nothing)."""
    if families is None or isinstance(families, str):
        return ""
    if not isinstance(families, Sequence):
        return type(families).__name__
    if len(families) > MAX_FAMILIES:
        return f"{len(families)} entries"
    odd = next((f for f in families if not isinstance(f, str)), "")  # was "got 1 entries" for [1]
    return f"the entry {_shown(odd)}, which is no name" if odd != "" else ""


def check_world_size(size: object, name: str = "world_size") -> str | int:
    """``size`` if the envs can load it (a preset name, or an int scale in ``WORLD_SCALE_BOUNDS``),
    else a ValueError naming ``name`` and what is accepted."""
    low, high = WORLD_SCALE_BOUNDS
    if isinstance(size, str) and size in SIZES:
        return size
    if _is_int_in(size, low, high):
        return int(size)
    raise ValueError(f"{name} must be one of {', '.join(SIZES)} or an int scale in {low}..{high}, got {_shown(size)}")


def _check_world_agrees(world: World, world_seed: int, world_size: str | int) -> None:
    """A ValueError when ``world_seed`` or ``world_size`` names another world than ``world``. Why: with
    ``world=`` the env plays that world, and a different seed or size beside it was silently ignored.
    A default value is taken as unset (the defaults cannot tell an explicit 0 or "small" from none)."""
    conflicts = []
    if world_seed not in (_DEFAULT_WORLD_SEED, world.seed):
        conflicts.append(f"world_seed={world_seed} (the world's seed is {world.seed})")
    if world_size != _DEFAULT_WORLD_SIZE and resolve_size(world_size)[0] != world.size:
        conflicts.append(f"world_size={world_size!r} (the world's size is {world.size!r})")
    if conflicts:
        verb = "conflict" if len(conflicts) > 1 else "conflicts"
        raise ValueError(f"{' and '.join(conflicts)} {verb} with world=, the world played; beside world= "
                         "leave world_seed and world_size unset or give the world's own seed and size")


def _check_tool_format_applies(action_mode: str, tool_format: str) -> None:
    """A ValueError for a tool format in candidate mode, where actions are indices and no format is read.
    Why: ``tool_format="tags"`` with ``action_mode="candidates"`` was taken and changed nothing."""
    if action_mode == "candidates" and tool_format != _DEFAULT_TOOL_FORMAT:
        raise ValueError(f"tool_format applies to text actions only (action_mode='text', where it is "
                         f"'hermes' or 'tags'); with action_mode='candidates' leave it unset, "
                         f"got tool_format={_shown(tool_format)}")


class RenderModeError(ValueError, TypeError):
    """A render mode the envs do not have: a ValueError, and a TypeError too, which is what
    Stable-Baselines3's ``make_vec_env`` catches to make the env again without the
    ``render_mode="rgb_array"`` it asks for by default. Before, a ValueError only:
    ``make_vec_env("searchgym/SearchQA-Numeric-v0")``, SB3's usual way to vectorise, failed."""


class RenderModes(list):
    """``metadata["render_modes"]`` that refuses a render mode that is not a string.

    ``gymnasium.make`` compares ``render_mode`` with the class's render modes before the env
    sees it, then calls ``render_mode.endswith``: ``render_mode=5`` was an ``AttributeError``
    from inside Gymnasium. Gymnasium's ``in`` test lands here first, so the error is ours."""

    def __contains__(self, mode: object) -> bool:
        if mode is not None and not isinstance(mode, str):
            *first, last = ["None", *map(repr, self)]
            raise RenderModeError(f"render_mode must be {', '.join(first)} or {last}, got {type(mode).__name__} {mode!r}"[:200])
        return super().__contains__(mode)


@dataclass(frozen=True)
class EnvConfig:
    """What an env is built from: the episode settings, the world and the task filter.

    ``world`` (a built :class:`~searchgym.world.World`) is played when given: ``world_seed`` and
    ``world_size`` beside it are left at their defaults or give the world's own seed and size (another
    is a ValueError). ``tool_format`` is the text actions' and stays at its default in candidate mode.
    ``reward`` is a :class:`~searchgym.scoring.RewardConfig` or a dict of its fields.
    ``observation_data=True`` also puts :func:`~searchgym.envs.observation_data.observation_data`
    in every info dict (``info["observation_data"]``); it is off by default so infos stay as they were.
    """

    action_mode: str = "text"
    tool_format: str = "hermes"
    world_seed: int = 0
    world_size: str | int = "small"
    split: str = "train"
    families: Sequence[str] | None = None
    difficulty: str | None = None
    max_steps: int = 12
    max_candidates: int = 48
    max_obs_chars: int = 6000
    max_candidate_chars: int = 300  # each candidate's text (candidate mode) is cut to this many characters
    backend: str = "bm25s"
    reward: RewardConfig | Mapping[str, Any] | None = None
    world: World | None = field(default=None, repr=False)
    render_mode: str | None = None
    observation_data: bool = False

    def __post_init__(self) -> None:
        if self.render_mode not in RENDER_MODES:
            raise RenderModeError(f"render_mode must be None, 'ansi' or 'human', got {self.render_mode!r}"[:200])
        for name, (low, high) in BOUNDS.items():  # NumPy ints are kept as ints (what configs and JSON hold)
            object.__setattr__(self, name, check_int(name, getattr(self, name), low, high))
        # a name too: "huge" was refused later, by the world, as "or an int >= 4" (the bound is 4..9000)
        object.__setattr__(self, "world_size", check_world_size(self.world_size))
        shown = _families_problem(self.families)
        if shown:
            raise ValueError(f"families must be None, a family name or a list of at most {MAX_FAMILIES} names, "
                             f"got {shown}")
        # the config's own copies of a list and a dict it is given: a caller that changed them later changed
        # the env's reported families, and a pickled or copied env rebuilt with other tasks and costs
        if self.families is not None and not isinstance(self.families, str | tuple):
            object.__setattr__(self, "families", list(self.families))
        if isinstance(self.reward, Mapping):
            object.__setattr__(self, "reward", dict(self.reward))
        self._check_backend()
        if self.world is not None and not isinstance(self.world, World):
            raise ValueError(f"world must be a searchgym World or None, got {type(self.world).__name__}")
        if self.world is not None:
            _check_world_agrees(self.world, self.world_seed, self.world_size)
        _check_tool_format_applies(self.action_mode, self.tool_format)
        if not isinstance(self.observation_data, bool):
            raise ValueError(f"observation_data must be True or False, got {self.observation_data!r}")
        if self.reward is not None and not isinstance(self.reward, RewardConfig | Mapping):
            raise ValueError(f"reward must be a RewardConfig, a dict of its fields or None, "
                             f"got {type(self.reward).__name__}")
        if isinstance(self.reward, Mapping):
            accepted = [f.name for f in fields(RewardConfig)]
            unknown = sorted(str(k) for k in self.reward if k not in accepted)
            if unknown:
                raise ValueError(f"reward has unknown field(s) {unknown[:10]}; accepted: {', '.join(accepted)}")
            self.reward_config()  # its values are checked by RewardConfig now, not at the first reset

    def _check_backend(self) -> None:
        """A name or a Retriever. Why here: ``backend=["bm25s"]`` failed as "unhashable type: 'list'" in
        the shared-tools cache, and None or 5 named no backend."""
        from searchgym.tools.retrievers import RETRIEVER_NAMES, Retriever

        if not isinstance(self.backend, str | Retriever):
            raise ValueError(f"backend must be a retriever name ({', '.join(RETRIEVER_NAMES)}) or a Retriever, "  # noqa: TRY004
                             f"got {type(self.backend).__name__}")  # (ValueError: as every EnvConfig check)

    def reward_config(self) -> RewardConfig:
        """``reward`` as a RewardConfig (a dict is checked by RewardConfig itself)."""
        if isinstance(self.reward, Mapping):
            return RewardConfig(**self.reward)
        return self.reward or RewardConfig()


#: The keyword arguments an env accepts on top of its own (the fields of EnvConfig).
CONFIG_KWARGS = tuple(f.name for f in fields(EnvConfig))
_DEFAULT_WORLD_SEED = EnvConfig.world_seed
_DEFAULT_WORLD_SIZE = EnvConfig.world_size
_DEFAULT_TOOL_FORMAT = EnvConfig.tool_format


def resolve_config(owner: str, config: EnvConfig | None, kwargs: Mapping[str, Any],
                   own: Sequence[str] = (), refused: Sequence[str] = ()) -> EnvConfig:
    """``config`` (or the defaults) with ``kwargs`` applied; ``owner`` and ``own`` (the env's
    other keywords) name the env in the error for an unknown keyword, whose list of accepted
    ones leaves out the config fields the env ``refused`` (a team's ``max_steps``)."""
    if isinstance(config, Mapping):  # an EnvConfig as JSON: env.spec.to_json() writes it so (Minari, saved specs)
        config = _config_from_mapping(owner, config)
    if config is not None and not isinstance(config, EnvConfig):
        raise TypeError(f"{owner}: config must be an EnvConfig, a dict of its fields, or None, "
                        f"got {type(config).__name__}")
    unknown = sorted(set(kwargs) - set(CONFIG_KWARGS))
    if unknown:
        accepted = ", ".join([*own, "config", *(name for name in CONFIG_KWARGS if name not in refused)])
        raise TypeError(f"{owner} got unknown keyword argument(s) {', '.join(map(repr, unknown))}; "
                        f"accepted: {accepted}")
    base = config if config is not None else EnvConfig()
    return replace(base, **kwargs) if kwargs else base


def _config_from_mapping(owner: str, fields_given: Mapping[str, Any]) -> EnvConfig:
    """An EnvConfig from a dict of its fields (unknown keys refused, as keywords are). Why: Gymnasium's
    ``EnvSpec.to_json`` writes a ``config=EnvConfig(...)`` keyword as a dict, so
    ``EnvSpec.from_json(...).make()`` could not rebuild the env."""
    unknown = sorted(map(str, set(fields_given) - set(CONFIG_KWARGS)))
    if unknown:
        raise TypeError(f"{owner}: config has unknown field(s) {', '.join(map(repr, unknown))}; "
                        f"EnvConfig's fields: {', '.join(CONFIG_KWARGS)}")
    return replace(EnvConfig(), **fields_given)
