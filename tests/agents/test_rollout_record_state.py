"""Rollouts for centralised critics: each step records the env's state and, per other live agent of
the same env and round, the text of the candidate it chose (never an agent of another env)."""

from __future__ import annotations

import numpy as np
import torch

from searchgym.agents.population import Population
from searchgym.agents.rollout import collect_parallel
from searchgym.envs.team import TeamSearchEnv


def test_other_actions_are_the_same_envs_other_agents_choices_of_that_round():
    envs = [TeamSearchEnv(roles="generalists", action_mode="candidates", world_size="tiny", max_rounds=4)
            for _ in range(3)]
    population = Population.build("shared", 3, encoder="hash", seed=0, dim=16, hidden=16)
    tasks = [t.id for t in envs[0].tasks.tasks("train")[:2]]
    groups, _ = collect_parallel(envs, population, tasks, 3, torch.Generator().manual_seed(1), 5, record_state=True)
    checked = 0
    episodes: dict[tuple, dict[str, list]] = {}  # (task, episode) -> agent -> steps
    for group in groups:  # group_by "agent": one group per agent and task, its G trajectories in episode order
        for e, trajectory in enumerate(group):
            episodes.setdefault((trajectory.group_id, e), {})[trajectory.agent_id] = trajectory.steps
    for agents in episodes.values():
        for agent, steps in agents.items():
            for k, step in enumerate(steps):
                want = {b: str(other[k].obs["candidates"][other[k].action])
                        for b, other in agents.items() if b != agent and len(other) > k}
                assert step.other_actions == want
                assert isinstance(step.state, np.ndarray) and step.state.dtype == np.float32
                checked += 1
    assert checked > 20
