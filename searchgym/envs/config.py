"""EnvConfig: the settings every searchgym env takes, in one value.

Why: the single-, group- and team envs took the same fourteen keywords and passed them on one by
one. Now each env takes ``config=EnvConfig(...)`` and/or the same keywords as before
(``SearchEnv(max_steps=8)``); keywords override the config's fields, and an unknown keyword is
a ``TypeError`` that lists the accepted ones. Through the registry the id's own keywords are
keywords too: ``make("GroupSearch-v0", config=c)`` is text mode whatever ``c.action_mode`` says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from searchgym.scoring import RewardConfig
from searchgym.world import World

RENDER_MODES = (None, "ansi")


@dataclass(frozen=True)
class EnvConfig:
    """What an env is built from: the episode settings, the world and the task filter.

    ``world`` (a built :class:`~searchgym.world.World`) replaces ``world_seed``/``world_size``
    when given. ``reward`` is a :class:`~searchgym.scoring.RewardConfig` or a dict of its fields.
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
    backend: str = "bm25s"
    reward: RewardConfig | Mapping[str, Any] | None = None
    world: World | None = field(default=None, repr=False)
    render_mode: str | None = None
    observation_data: bool = False

    def __post_init__(self) -> None:
        if self.render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or 'ansi', got {self.render_mode!r}")
        if not isinstance(self.observation_data, bool):
            raise ValueError(f"observation_data must be True or False, got {self.observation_data!r}")
        if self.reward is not None and not isinstance(self.reward, RewardConfig | Mapping):
            raise ValueError(f"reward must be a RewardConfig, a dict of its fields or None, "
                             f"got {type(self.reward).__name__}")

    def reward_config(self) -> RewardConfig:
        """``reward`` as a RewardConfig (a dict is checked by RewardConfig itself)."""
        if isinstance(self.reward, Mapping):
            return RewardConfig(**self.reward)
        return self.reward or RewardConfig()


#: The keyword arguments an env accepts on top of its own (the fields of EnvConfig).
CONFIG_KWARGS = tuple(f.name for f in fields(EnvConfig))


def resolve_config(owner: str, config: EnvConfig | None, kwargs: Mapping[str, Any],
                   own: Sequence[str] = ()) -> EnvConfig:
    """``config`` (or the defaults) with ``kwargs`` applied; ``owner`` and ``own`` (the env's
    other keywords) name the env in the error for an unknown keyword."""
    if config is not None and not isinstance(config, EnvConfig):
        raise TypeError(f"{owner}: config must be an EnvConfig or None, got {type(config).__name__}")
    unknown = sorted(set(kwargs) - set(CONFIG_KWARGS))
    if unknown:
        accepted = ", ".join([*own, "config", *CONFIG_KWARGS])
        raise TypeError(f"{owner} got unknown keyword argument(s) {', '.join(map(repr, unknown))}; "
                        f"accepted: {accepted}")
    base = config if config is not None else EnvConfig()
    return replace(base, **kwargs) if kwargs else base
