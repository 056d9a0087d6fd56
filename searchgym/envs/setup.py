"""What every env builds from its EnvConfig, in one place: the validated episode config, the
shared world, its shared tools and the task picker (single- and multi-agent envs alike)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from searchgym.envs.config import EnvConfig
from searchgym.envs.session import EpisodeConfig
from searchgym.envs.tasks import TaskPicker
from searchgym.tools.base import Tool
from searchgym.tools.toolkit import shared_tools
from searchgym.world import World, shared_world


@dataclass(frozen=True)
class EnvSetup:
    config: EpisodeConfig
    world: World
    tools: Mapping[str, Tool]
    tasks: TaskPicker


def episode_config(c: EnvConfig) -> EpisodeConfig:
    """The episode settings of an env's config, checked (also what ``register`` checks of a new id)."""
    return EpisodeConfig(action_mode=c.action_mode, tool_format=c.tool_format, max_steps=c.max_steps,
                         max_candidates=c.max_candidates, max_obs_chars=c.max_obs_chars,
                         max_candidate_chars=c.max_candidate_chars, reward=c.reward_config())


def env_setup(env_config: EnvConfig) -> EnvSetup:
    """Validate the episode settings and fetch the shared world and tools (built once per process)."""
    c = env_config
    config = episode_config(c)
    world = c.world if c.world is not None else shared_world(c.world_seed, c.world_size)
    if config.action_mode != "text" and not world.entities:  # before: only current_time and a clarification
        raise ValueError("candidate and numeric envs build their actions from the names and facts of a generated world; "
                         "this world has none (a corpus and tasks from world_from_files): play it in text mode "
                         "(SearchQA-v0, GroupSearch-v0, TeamSearch-v0, or action_mode='text')")
    return EnvSetup(config, world, shared_tools(world, c.backend), TaskPicker(world, c.split, c.families, c.difficulty))
