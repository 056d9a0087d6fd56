"""What every env builds from its keyword arguments, in one place: the validated episode config,
the shared world, its shared tools and the task picker (single- and multi-agent envs alike)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from searchgym.envs.session import EpisodeConfig
from searchgym.envs.tasks import TaskPicker
from searchgym.scoring import RewardConfig
from searchgym.tools.base import Tool
from searchgym.tools.toolkit import shared_tools
from searchgym.world import World, shared_world


@dataclass(frozen=True)
class EnvSetup:
    config: EpisodeConfig
    world: World
    tools: Mapping[str, Tool]
    tasks: TaskPicker


def env_setup(
    action_mode: str, tool_format: str, world_seed: int, world_size: str | int, split: str,
    families: Sequence[str] | None, difficulty: str | None, max_steps: int, max_candidates: int,
    max_obs_chars: int, backend: str, reward: RewardConfig | dict | None, world: World | None,
    render_mode: str | None,
) -> EnvSetup:
    """Validate the common env kwargs and fetch the shared world and tools (built once per process)."""
    if render_mode not in (None, "ansi"):
        raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
    reward = RewardConfig(**reward) if isinstance(reward, dict) else (reward or RewardConfig())
    config = EpisodeConfig(action_mode=action_mode, tool_format=tool_format, max_steps=max_steps,
                           max_candidates=max_candidates, max_obs_chars=max_obs_chars, reward=reward)
    world = world if world is not None else shared_world(world_seed, world_size)
    return EnvSetup(config, world, shared_tools(world, backend), TaskPicker(world, split, families, difficulty))
