"""SearchEnv: one agent answers one question per episode with search tools (Gymnasium).

**Action modes**

- ``action_mode="text"``: the action is a string, a tool call in ``tool_format="hermes"``
  (``<tool_call>{"name": "web_search", "arguments": {"query": "..."}}</tool_call>``) or ``"tags"``
  (``<search>...</search>``), and ``<answer>...</answer>`` to finish. The observation is a string:
  the prompt (question, tool schemas, accepted forms) after ``reset``, then each tool's result.
  An unparseable action is an observation saying what is accepted, a format cost, and the
  episode goes on.
- ``action_mode="candidates"``: the action is an index into ``obs["candidates"]`` (up to
  ``max_candidates`` admissible actions built from what the agent has seen, shuffled by the
  env's generator). The observation is ``{"text", "candidates", "action_mask"}``; the mask is also
  in ``info["action_mask"]``.

**Reward**: the answer score on the answering step (token F1 for names, numeric match within 1%
or 0.5 for numbers, set F1 for lists), minus ``step_cost`` per step, ``invalid_cost`` per invalid
action and ``format_cost`` per unparseable one; ``info["reward_components"]`` shows each part.

**Episode end**: ``terminated`` when the agent answers; ``truncated`` at ``max_steps``.

**Info**: task id and family, tool calls, gold evidence found so far, the process judge's signals
for this round (``new_gold``, ``consistent``, ``contribution``), the answer and its score.

**Options** of ``reset``: ``{"task_id": id}`` or ``{"split": "train" | "dev" | "test"}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from searchgym.candidates import CandidateGenerator
from searchgym.envs.setup import env_setup
from searchgym.envs.session import NO_REWARD, NO_SIGNALS, SearchSession, signals_info
from searchgym.envs.spaces import (
    candidate_action_space,
    candidate_observation_space,
    text_action_space,
    text_observation_space,
)
from searchgym.scoring import RewardConfig
from searchgym.world import World


class SearchEnv(gym.Env):
    """Single-agent search environment; see the module docstring for spaces and rewards."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        action_mode: str = "text",
        tool_format: str = "hermes",
        world_seed: int = 0,
        world_size: str | int = "small",
        split: str = "train",
        families: Sequence[str] | None = None,
        difficulty: str | None = None,
        max_steps: int = 12,
        max_candidates: int = 48,
        max_obs_chars: int = 6000,
        backend: str = "bm25s",
        reward: RewardConfig | dict | None = None,
        world: World | None = None,
        render_mode: str | None = None,
    ) -> None:
        setup = env_setup(action_mode, tool_format, world_seed, world_size, split, families, difficulty, max_steps,
                          max_candidates, max_obs_chars, backend, reward, world, render_mode)
        self.config, self.world, self.tools, self.tasks = setup.config, setup.world, setup.tools, setup.tasks
        self.render_mode = render_mode
        if action_mode == "candidates":
            self.observation_space = candidate_observation_space(max_obs_chars, max_candidates,
                                                                 self.config.max_candidate_chars)
            self.action_space = candidate_action_space(max_candidates)
        else:
            self.observation_space = text_observation_space(max_obs_chars)
            self.action_space = text_action_space(self.config.max_action_chars)
        self.session: SearchSession | None = None
        self.generator = CandidateGenerator(self.world, max_candidates)  # its memos outlive episodes

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        task = self.tasks.pick(self.np_random, options)
        self.session = SearchSession(self.world, self.tools, task, self.config, self.np_random,
                                     generator=self.generator)
        prompt = self.session.prompt() if self.config.action_mode == "text" else ""  # candidates: unused
        return self._observation(prompt), self._info(None)

    def step(self, action):
        if self.session is None:
            raise RuntimeError("call reset() before step()")
        outcome = self.session.act(action)
        return (self._observation(outcome.text), float(outcome.reward["total"]), outcome.terminated,
                outcome.truncated, self._info(outcome))

    def _observation(self, text: str):
        if self.config.action_mode == "text":
            return text
        self.session.refresh_candidates()
        return self.session.candidate_observation()

    def _info(self, outcome) -> dict[str, Any]:
        info = self.session.info()
        info["reward_components"] = dict(outcome.reward) if outcome else dict(NO_REWARD)
        info["signals"] = signals_info(outcome.signals) if outcome else dict(NO_SIGNALS)
        info["invalid"] = bool(outcome.invalid) if outcome else False
        info["format_error"] = bool(outcome.format_error) if outcome else False
        if self.config.action_mode == "candidates":
            info["action_mask"] = self.session.action_mask
            info["candidates"] = list(self.session.candidates)
        return info

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.session is None:
            return None
        return self.session.render()

    @property
    def task(self):
        return self.session.task if self.session else None


def legal_actions(info: dict) -> np.ndarray:
    """Indices of admissible candidates from an info dict (candidate mode)."""
    return np.flatnonzero(info["action_mask"])
