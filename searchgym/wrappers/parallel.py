"""NumericParallel: the group and team envs with fixed agent sets, Box observations and masks.

The group and team envs drop an agent from ``env.agents`` once it has answered, so the agent
set shrinks within an episode; SuperSuit-style vector wrappers need every agent present at
every step. Here ``agents`` stays ``possible_agents`` until the whole episode ends:

- a finished agent's observation is all zeros, its reward 0, ``terminations``/``truncations``
  are False for it until the last live agent is done (then every agent ends together: terminated
  if it answered, else truncated), and ``infos[agent]["active"]`` is False;
- its action is ignored; its mask admits only slot 0, so a masked policy always has a legal
  action (``action_mask(agent)``, also ``infos[agent]["action_mask"]``);
- observations are :class:`~searchgym.wrappers.features.FeatureLayout` vectors, the same
  layout as the single-agent :class:`~searchgym.wrappers.numeric.NumericObservation`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from searchgym.envs.session import NO_REWARD, NO_SIGNALS
from searchgym.envs.spaces import AgentSpaceDicts
from searchgym.wrappers.features import Encoded, FeatureLayout
from searchgym.wrappers.numeric import UNLISTED_KWARGS


class AgentActionError(KeyError, ValueError):
    """Actions for unknown agents or none for a live one: a KeyError as before, and the ValueError
    the unwrapped group and team envs raise for the same mistake."""

    def __str__(self) -> str:  # a KeyError's str is the repr of its argument: the message was printed in quotes
        return str(self.args[0]) if self.args else ""


class NumericParallel(AgentSpaceDicts, ParallelEnv):
    """Fixed agents, Box observations and per-agent masks over a candidate-mode multi-agent env."""

    def __init__(self, env: ParallelEnv, question_dim: int = 32, transcript_dim: int = 64,
                 candidate_dim: int = 16) -> None:
        if not hasattr(env, "possible_agents"):  # before: "needs a candidate-mode env" for a candidate-mode one
            got = "a single-agent Gymnasium env" if isinstance(env, gymnasium.Env) else type(env).__name__
            raise ValueError(f"NumericParallel wraps a multi-agent searchgym env (e.g. GroupSearch-Candidates-v0), got "
                             f"{got}; a single-agent env takes NumericObservation (SearchQA-Numeric-v0)")
        config = getattr(env, "config", None)
        if config is None or config.action_mode != "candidates":  # before: no word of action_mode
            got = "" if config is None else f"; this env's action_mode is {config.action_mode!r}"
            raise ValueError("NumericParallel needs a candidate-mode searchgym env (action_mode='candidates', "
                             f"e.g. GroupSearch-Candidates-v0, TeamSearch-Candidates-v0){got}")
        self.env = env
        self.layout = FeatureLayout(config.max_candidates, config.max_steps, question_dim, transcript_dim,
                                    candidate_dim)
        self.possible_agents = list(env.possible_agents)
        self.agents: list[str] = []
        self.metadata = {**env.metadata, "name": f"numeric_{env.metadata.get('name', 'searchgym')}"}
        self.render_mode = getattr(env, "render_mode", None)
        self._masks: dict[str, np.ndarray] = {}
        self._encoded: dict[str, Encoded] = {}
        self._env_masks: dict[str, np.ndarray] = {}
        self._finished: dict[str, bool] = {}
        self._answered: dict[str, bool] = {}
        self._last_info: dict[str, dict[str, Any]] = {}  # each agent's info of its last live step
        self._spaces: dict[str, tuple[spaces.Box, spaces.Discrete]] = {}

    def __copy__(self) -> NumericParallel:
        """A copy with an inner env of its own, as ``copy.copy`` of the unwrapped multi-agent envs gives
        (their copies replay the episode). Why: a shallow copy shared the inner env, so resetting the copy
        switched the original's episode under its own bookkeeping."""
        return copy.deepcopy(self)

    @property
    def unwrapped(self) -> ParallelEnv:
        """The searchgym env inside, as a PettingZoo ``BaseParallelWrapper`` and Gymnasium's
        ``NumericObservation`` give it. Why: this wrapper was its own ``unwrapped``, so the hint of the
        env's own errors, ``env.unwrapped.tasks.tasks(split)``, was an AttributeError on these ids."""
        return self.env.unwrapped

    def slot_of(self, agent: str, env_index: int) -> int:
        """The slot that plays the wrapped env's candidate ``env_index`` for ``agent`` this step. Why: a
        policy that reads the env inside (``env.unwrapped``, as the team oracle does) gets the env's own
        index, and the slots order the candidates otherwise (an index passed as a slot played another)."""
        self._check(agent)
        encoded = self._encoded.get(agent)
        if encoded is None or env_index not in encoded.order:
            raise ValueError(f"candidate {env_index!r} of {agent!r} has no slot this step (admissible: "
                             f"{sorted(encoded.order) if encoded is not None else 'none'})")
        return encoded.order.index(env_index)

    def observation_space(self, agent: str) -> spaces.Box:
        return self._agent_spaces(agent)[0]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._agent_spaces(agent)[1]

    def _agent_spaces(self, agent: str) -> tuple[spaces.Box, spaces.Discrete]:
        """Built once per wrapper and agent (PettingZoo wants the same object per agent). Kept on
        the instance: an ``lru_cache`` on the method would hold every wrapper alive for good."""
        found = self._spaces.get(agent)
        if found is None:
            self._check(agent)
            found = self._spaces[agent] = (spaces.Box(0.0, 1.0, shape=(self.layout.size,), dtype=np.float32),
                                           spaces.Discrete(self.layout.max_candidates))
        return found

    def _check(self, agent: str) -> None:
        if agent not in self.possible_agents:
            raise KeyError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")

    def _idle_mask(self) -> np.ndarray:
        mask = np.zeros(self.layout.max_candidates, dtype=np.int8)
        mask[0] = 1
        return mask

    def reset(self, seed: int | None = None, options: dict | None = None):
        obs, infos = self.env.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        self._finished = {a: False for a in self.agents}
        self._answered = {a: False for a in self.agents}
        self._last_info = {}
        return self._convert(obs, infos)

    def step(self, actions: Mapping[str, Any]):
        if not isinstance(actions, Mapping):  # else a string's letters read as agent names
            raise TypeError(f"step() takes a dict agent -> action, got {type(actions).__name__}")
        unknown = sorted(set(actions) - set(self.possible_agents), key=repr)  # was sorted(): 5 and "x" failed on '<'
        if unknown:
            raise AgentActionError(f"actions for unknown agents {unknown}; agents: {', '.join(self.possible_agents)}")
        live = [a for a in self.env.agents if not self._finished[a]]
        missing = [a for a in live if a not in actions]
        if missing:
            raise AgentActionError(f"no action for live agent(s) {missing}; pass one action per agent in env.agents")
        env_actions = {a: self._encoded[a].env_action(actions[a], self._env_masks[a]) for a in live}
        obs, rewards, terms, truncs, infos = self.env.step(env_actions)
        for agent in live:
            if terms.get(agent) or truncs.get(agent):
                self._finished[agent] = True
                self._answered[agent] = bool(terms.get(agent))
        over = all(self._finished.values())
        observations, out_infos = self._convert(obs, infos)
        out_rewards = {a: float(rewards.get(a, 0.0)) for a in self.possible_agents}
        out_terms = {a: over and self._answered[a] for a in self.possible_agents}
        out_truncs = {a: over and not self._answered[a] for a in self.possible_agents}
        if over:
            self.agents = []
        return observations, out_rewards, out_terms, out_truncs, out_infos

    def _convert(self, obs: Mapping[str, Any], infos: Mapping[str, Any]):
        observations, out_infos = {}, {}
        for agent in self.possible_agents:
            active = not self._finished[agent]
            mask = self._idle_mask()
            if agent in obs:  # live this step (an agent that finished just now still gets its last view)
                encoded = self.layout.encode(obs[agent])
                observations[agent] = encoded.vector
                info = dict(infos.get(agent, {}))
                text = obs[agent].get("text", "")
                if active:
                    self._encoded[agent], self._env_masks[agent] = encoded, np.asarray(obs[agent]["action_mask"])
                    mask = encoded.mask(self.layout.max_candidates).astype(np.int8)
                if "candidates" in info:
                    info["candidates"] = [info["candidates"][i] for i in encoded.order]
                self._last_info[agent] = info
            else:
                observations[agent] = self.layout.zeros()
                info, text = self._finished_info(agent), ""
            self._masks[agent] = mask
            out_infos[agent] = {**info, "text": text, "active": active, "action_mask": mask}
        return observations, out_infos

    def _finished_info(self, agent: str) -> dict[str, Any]:
        """A finished agent's info: the keys of its last live step (before: only ``text``,
        ``active`` and ``action_mask``, so ``infos[a]["task_id"]`` was a KeyError), with no
        reward, no signal and no candidates this step."""
        info = dict(self._last_info.get(agent, {}))
        info.update(reward_components=dict(NO_REWARD), signals={**NO_SIGNALS, "reason": "finished"},
                    invalid=False, format_error=False)
        if "candidates" in info:
            info["candidates"] = []
        return info

    def action_mask(self, agent: str) -> np.ndarray:
        """The current mask of ``agent`` (bool); a finished agent's admits only slot 0."""
        self._check(agent)
        return self._masks.get(agent, self._idle_mask()).astype(bool)

    def observation_data(self, agent: str) -> dict[str, Any]:
        """The structured data behind ``agent``'s observation, as the wrapped env gives it (the data
        holds no candidates, so the slot order does not apply)."""
        self._check(agent)
        return self.env.observation_data(agent)

    def state(self) -> np.ndarray:
        return self.env.state()

    def state_fields(self) -> list[str]:
        """The name of each ``state()`` entry (the wrapped env's; before, only ``state()`` was passed on)."""
        return self.env.state_fields()

    @property
    def state_space(self) -> spaces.Space:
        return self.env.state_space

    def render(self):
        return self.env.render()

    def close(self) -> None:
        self.env.close()


def make_numeric_parallel(base_id: str = "GroupSearch-Candidates-v0", question_dim: int = 32,
                          transcript_dim: int = 64, candidate_dim: int = 16, **kwargs: Any) -> NumericParallel:
    """The entry point of the ``*-Numeric-v0`` multi-agent ids."""
    from searchgym.registry import make_parallel, refuse_unknown, spec, wrapper_kwargs

    if spec(base_id).kind != "parallel":  # was make_parallel's "use searchgym.make", which the caller had used
        raise ValueError(f"base_id {base_id!r} is a single-agent env; a multi-agent Numeric id wraps a candidate-mode "
                         "group or team id (e.g. GroupSearch-Candidates-v0); for one agent use SearchQA-Numeric-v0")
    refuse_unknown(f"make_numeric_parallel (over {base_id})", kwargs, wrapper_kwargs(make_numeric_parallel, base_id),
                   UNLISTED_KWARGS)
    return NumericParallel(make_parallel(base_id, **kwargs), question_dim, transcript_dim, candidate_dim)


make_numeric_parallel.unlisted_kwargs = UNLISTED_KWARGS  # left out of the accepted keywords that errors list
