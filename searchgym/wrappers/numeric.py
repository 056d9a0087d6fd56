"""NumericObservation: a candidate-mode SearchEnv as a flat ``Box`` with ``action_masks()``.

Stable-Baselines3 rejects nested ``Dict``/``Text`` observation spaces and ``FlattenObservation``
gives thousands of character codes. This wrapper replaces the observation with the hashed
features of :class:`~searchgym.wrappers.features.FeatureLayout` (layout in that module) and
keeps the action space (``Discrete(max_candidates)``). ``action_masks()`` is what sb3-contrib's
``MaskablePPO`` calls; ``info["action_mask"]`` carries the same mask for CleanRL-style loops.

    env = NumericObservation(searchgym.make("SearchQA-Candidates-Easy-v0"))
    # or: searchgym.make("SearchQA-Numeric-Easy-v0")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env)

The text observation of each step stays in ``info["text"]`` (and the candidates in
``info["candidates"]``, as the env reports them) for logging and debugging.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from searchgym.wrappers.features import FeatureLayout


class NumericObservation(gym.ObservationWrapper):
    """Hashed-feature ``Box`` observations and ``action_masks()`` over a candidate-mode env."""

    def __init__(self, env: gym.Env, question_dim: int = 32, transcript_dim: int = 64,
                 candidate_dim: int = 16) -> None:
        super().__init__(env)
        space = env.observation_space
        if not (isinstance(space, spaces.Dict) and "candidates" in space.spaces and "action_mask" in space.spaces):
            raise ValueError("NumericObservation needs a candidate-mode env (action_mode='candidates', e.g. "
                             f"SearchQA-Candidates-v0); this env's observation space is {type(space).__name__}")
        config = env.unwrapped.config
        self.layout = FeatureLayout(config.max_candidates, config.max_steps, question_dim, transcript_dim,
                                    candidate_dim)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self.layout.size,), dtype=np.float32)
        self._mask = np.zeros(config.max_candidates, dtype=bool)

    def observation(self, observation: dict) -> np.ndarray:
        self._mask = np.asarray(observation["action_mask"], dtype=bool)
        return self.layout.encode(observation)

    def reset(self, **kwargs: Any):
        obs, info = self.env.reset(**kwargs)
        info = {**info, "text": obs["text"]}
        return self.observation(obs), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        info = {**info, "text": obs["text"]}
        return self.observation(obs), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Admissible candidates of the current step (bool, ``max_candidates``): sb3-contrib's hook."""
        return self._mask.copy()


def make_numeric(base_id: str = "SearchQA-Candidates-v0", question_dim: int = 32, transcript_dim: int = 64,
                 candidate_dim: int = 16, **kwargs: Any) -> NumericObservation:
    """The entry point of the ``SearchQA-Numeric*`` ids: a candidate-mode env, wrapped."""
    from searchgym.registry import make

    return NumericObservation(make(base_id, **kwargs), question_dim, transcript_dim, candidate_dim)
