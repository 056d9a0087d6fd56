"""The random team: every member picks uniformly among its admissible actions.

In candidate mode a member draws an index uniformly over its action mask; in text mode it
draws one of the same candidates (posts and ``wait`` included) and writes it in the env's tool
format, so both modes share one notion of "a random admissible action". One seeded generator
for the team (never global state). On a ``GroupSearchEnv`` each member is a single-agent
random agent on its own session, drawing from the same generator.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from searchgym.envs.team import TeamSearchEnv

from .random_agent import SeededRandom


@dataclass
class TeamRandom(SeededRandom):
    """Uniform over each member's admissible actions."""

    name: str = "team_random"

    def choose_action(self, env: Any, agent: str) -> Any:
        base = env.unwrapped
        session = base.sessions[agent]
        if session.config.action_mode == "candidates":
            # the mask is a prefix of len(candidates) ones, so this is the draw rng.choice(flatnonzero(mask))
            # makes, at a third of its cost (numpy's choice spends most of it on argument checks)
            return int(self.rng.integers(len(session.candidates)))
        return self.random_text_action(session, base.admissible_actions(agent)
                                       if isinstance(base, TeamSearchEnv) else None)

    def choose_actions(self, env: Any) -> dict[str, Any]:
        """Env actions for every live member."""
        return {agent: self.choose_action(env, agent) for agent in env.unwrapped.agents}


class TeamRandomActor:
    """The harness's parallel Actor: ``act(env, observations, infos) -> {agent: action}``."""

    def __init__(self, seed: int = 0) -> None:
        self.team = TeamRandom(seed=seed)

    def reset(self) -> None:
        self.team.reset()

    def act(self, env: Any, observations: Mapping[str, Any], infos: Mapping[str, Any]) -> dict[str, Any]:
        return self.team.choose_actions(env)  # the live agents (``observations`` also holds those that just finished)


def harness_actor(seed: int = 0) -> TeamRandomActor:
    """The parallel suites' random baseline (``TEAM_BASELINES`` in ``searchgym.baselines.harness_actors``)."""
    return TeamRandomActor(seed=seed)
