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

from typing import Any

import gymnasium as gym
import numpy as np

from searchgym.candidates import CandidateGenerator
from searchgym.envs.config import CONFIG_KWARGS, EnvConfig, resolve_config
from searchgym.envs.info import ZEROED_RESET, episode_info
from searchgym.envs.observation_data import ObservationLog
from searchgym.envs.replay import EpisodeRecord, load_env
from searchgym.envs.session import SearchSession
from searchgym.envs.setup import env_setup
from searchgym.envs.spaces import episode_spaces


class SearchEnv(gym.Env):
    """Single-agent search environment; see the module docstring for spaces and rewards."""

    metadata = {"render_modes": ["ansi"]}
    #: Keywords taken through ``**kwargs`` (the registry lists them in its errors).
    config_kwargs = CONFIG_KWARGS

    def __init__(self, config: EnvConfig | None = None, **kwargs: Any) -> None:
        self.env_config = resolve_config("SearchEnv", config, kwargs)
        setup = env_setup(self.env_config)
        self.config, self.world, self.tools, self.tasks = setup.config, setup.world, setup.tools, setup.tasks
        self.render_mode = self.env_config.render_mode
        self.observation_space, self.action_space = episode_spaces(self.config)
        self.session: SearchSession | None = None
        self.log: ObservationLog | None = None
        self.record: EpisodeRecord | None = None  # what pickling replays (see envs.replay)
        self.generator = CandidateGenerator(self.world, self.config.max_candidates)  # its memos outlive episodes

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.record = EpisodeRecord.start(self.np_random, options, self._np_random_seed)
        task = self.tasks.pick(self.np_random, options)
        self.session = SearchSession(self.world, self.tools, task, self.config, self.np_random,
                                     generator=self.generator)
        self.log = ObservationLog(self.session)
        prompt = self.session.prompt() if self.config.action_mode == "text" else ""  # candidates: unused
        return self._observation(prompt), self._info(None)

    def step(self, action):
        if self.session is None:
            raise RuntimeError("call reset() before step()")
        outcome = self.session.act(action)
        self.log.record(outcome)
        self.record.actions.append(action)
        return (self._observation(outcome.text), float(outcome.reward["total"]), outcome.terminated,
                outcome.truncated, self._info(outcome))

    def _observation(self, text: str):
        if self.config.action_mode == "text":
            return text
        self.session.refresh_candidates()
        return self.session.candidate_observation()

    def _info(self, outcome) -> dict[str, Any]:
        data = self.log.data() if self.env_config.observation_data else None
        return episode_info(self.session, outcome, self.config.action_mode == "candidates", ZEROED_RESET,
                            observation_data=data)

    def observation_data(self) -> dict[str, Any]:
        """The structured data behind the current observation (see :mod:`searchgym.envs.observation_data`)."""
        if self.log is None:
            raise RuntimeError("call reset() before observation_data()")
        return self.log.data()

    def __reduce__(self):
        return load_env, (type(self), {"config": self.env_config}, self.record)

    def _set_generator(self, generator: np.random.Generator, seed: int | None) -> None:
        self._np_random, self._np_random_seed = generator, seed

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
