"""NumericObservation: a candidate-mode SearchEnv as a flat ``Box`` with ``action_masks()``.

Stable-Baselines3 rejects nested ``Dict``/``Text`` observation spaces and ``FlattenObservation``
gives thousands of character codes. This wrapper replaces the observation with the hashed
features of :class:`~searchgym.wrappers.features.FeatureLayout` (layout in that module); the
action space stays ``Discrete(max_candidates)``, an index into the wrapper's canonical slot
order (admissible candidates fill slots ``0..k-1``; the wrapper maps a slot to the env's index). ``action_masks()`` is what sb3-contrib's
``MaskablePPO`` calls; ``info["action_mask"]`` carries the same mask for CleanRL-style loops.

    env = NumericObservation(searchgym.make("SearchQA-Candidates-Easy-v0"))
    # or: searchgym.make("SearchQA-Numeric-Easy-v0")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env)

The text observation of each step stays in ``info["text"]``; ``info["candidates"]`` lists the
candidates in slot order and ``info["env_action_mask"]`` is the env's own (unordered) mask.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from searchgym.wrappers.features import Encoded, FeatureLayout


#: Taken, as the candidate env takes them, but left out of the keywords an error offers: action_mode
#: can only be "candidates" here and tool_format changes nothing in candidate mode.
UNLISTED_KWARGS = ("action_mode", "tool_format")


class NumericObservation(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Hashed-feature ``Box`` observations and ``action_masks()`` over a candidate-mode env. It records its
    constructor's arguments, so that Gymnasium can make it again from its spec (``check_env`` and
    ``gymnasium.make(env.spec)`` refused one made by hand)."""

    def __init__(self, env: gym.Env, question_dim: int = 32, transcript_dim: int = 64,
                 candidate_dim: int = 16) -> None:
        if not isinstance(env, gym.Env):  # before: Gymnasium's "Expected env to be a `gymnasium.Env`"
            raise TypeError(f"NumericObservation wraps a single-agent Gymnasium env in candidate mode (e.g. "
                            f"SearchQA-Candidates-v0), got {type(env).__name__}; a group or team env takes "
                            "NumericParallel (GroupSearch-Numeric-v0, TeamSearch-Numeric-v0)")
        gym.utils.RecordConstructorArgs.__init__(self, question_dim=question_dim, transcript_dim=transcript_dim,
                                                 candidate_dim=candidate_dim)
        super().__init__(env)
        space = env.observation_space
        if not (isinstance(space, spaces.Dict) and "candidates" in space.spaces and "action_mask" in space.spaces):
            raise ValueError("NumericObservation needs a candidate-mode env (action_mode='candidates', e.g. "
                             f"SearchQA-Candidates-v0); this env's observation space is {type(space).__name__}")
        config = env.unwrapped.config
        self.layout = FeatureLayout(config.max_candidates, config.max_steps, question_dim, transcript_dim,
                                    candidate_dim)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self.layout.size,), dtype=np.float32)
        self._encoded: Encoded | None = None
        self._env_mask = np.zeros(config.max_candidates, dtype=np.int8)

    def _convert(self, obs: dict, info: dict) -> tuple[np.ndarray, dict]:
        self._encoded = self.layout.encode(obs)
        self._env_mask = np.asarray(obs["action_mask"])
        slots = self._encoded.order
        info = {**info, "text": obs["text"], "env_action_mask": info.get("action_mask"),
                "action_mask": self._encoded.mask(self.layout.max_candidates).astype(np.int8)}
        if "candidates" in info:
            info["candidates"] = [info["candidates"][i] for i in slots]
        return self._encoded.vector, info

    def reset(self, **kwargs: Any):
        obs, info = self.env.reset(**kwargs)
        return self._convert(obs, info)

    def step(self, action):
        if self._encoded is None:
            raise RuntimeError("call reset() before step()")
        obs, reward, terminated, truncated, info = self.env.step(self._encoded.env_action(action, self._env_mask))
        vector, info = self._convert(obs, info)
        return vector, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Admissible candidates of the current step (bool, ``max_candidates``): sb3-contrib's hook."""
        if self._encoded is None:
            return np.zeros(self.layout.max_candidates, dtype=bool)
        return self._encoded.mask(self.layout.max_candidates)


def make_numeric(base_id: str = "SearchQA-Candidates-v0", question_dim: int = 32, transcript_dim: int = 64,
                 candidate_dim: int = 16, **kwargs: Any) -> NumericObservation:
    """The entry point of the ``SearchQA-Numeric*`` ids: a candidate-mode env, wrapped."""
    from searchgym.registry import GYMNASIUM_KWARGS, make, refuse_unknown, spec, wrapper_kwargs

    if spec(base_id).kind != "single":  # was Gymnasium's "Expected env to be a `gymnasium.Env`"
        raise ValueError(f"base_id {base_id!r} is a multi-agent env; a SearchQA-Numeric id wraps a single-agent "
                         "candidate-mode id (e.g. SearchQA-Candidates-v0); for a group or team use "
                         "GroupSearch-Numeric-v0 or TeamSearch-Numeric-v0")
    # gymnasium.make reaches here without searchgym.make's check: the error named the base id alone and
    # left this factory's keywords out of what is accepted
    own = {k: v for k, v in kwargs.items() if k not in GYMNASIUM_KWARGS}  # those go on to gymnasium.make
    refuse_unknown(f"make_numeric (over {base_id})", own, wrapper_kwargs(make_numeric, base_id),
                   UNLISTED_KWARGS)
    return NumericObservation(make(base_id, **kwargs), question_dim, transcript_dim, candidate_dim)


make_numeric.unlisted_kwargs = UNLISTED_KWARGS  # left out of the accepted keywords that errors list
