"""GroupSearchEnv: K agents attempt the same task independently (the GRPO group as an env).

A PettingZoo ``ParallelEnv`` with agents ``agent_0`` ... ``agent_{K-1}`` (``group_size``, default
4). ``reset`` draws one task (with the env's seeded generator, or ``options={"task_id"|"split"}``)
and opens one :class:`~searchgym.envs.session.SearchSession` per agent on it, each with its own
generator derived from the reset seed (candidate shuffles differ per agent and are
reproducible). Each agent sees only its own transcript and gets its own reward, exactly as in
``SearchEnv`` (same action modes, tool formats, action spaces, reward components and info
keys). An agent that has answered or run out of steps leaves ``env.agents`` after its last step
and stays done (an action still passed for it is ignored; one for an unknown agent is an error).

Multi-agent observations are always dicts: ``{"text"}`` in text mode (what ``SearchEnv`` returns
as a bare string), ``{"text", "candidates", "action_mask"}`` in candidate mode. PettingZoo's
``api_test`` needs a dict (or a numpy array) at the top level, and one key reads the text in
both modes.

The world and its tools are built once (``shared_world`` / ``shared_tools``) and shared by every
session. ``env.sessions`` maps agent -> live session (what the baselines act on).

``state()`` (``state_space``: ``Box(0, 1, (7 + len(FAMILIES) + 16 K,), float32)``) is the global
state for centralised critics; ``state_fields()`` names every entry. Header: step fraction,
fraction of agents done, answered and successful, mean answer score, best gold-evidence
fraction, the task's gold-hop count / 8, task family one-hot. Then, per agent (in
``possible_agents`` order), the 16 entries of :data:`AGENT_FIELDS`.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from searchgym.candidates import CandidateGenerator
from searchgym.envs.setup import env_setup
from searchgym.envs.session import SearchSession, StepOutcome, signals_info
from searchgym.envs.spaces import (
    candidate_action_space,
    candidate_observation_space,
    text_action_space,
    text_observation_space,
)
from searchgym.scoring import RewardConfig
from searchgym.world import FAMILIES, World

RESET_OPTIONS = ("task_id", "split")
MAX_GOLD = 8
LAST_KINDS = ("none", "tool", "answer", "post", "wait")
#: Per-agent entries of ``state()``; counts are divided by the step limit, evidence by the gold size.
AGENT_FIELDS = ("done", "answered", "success", "score", "gold_found", "steps", "tool_calls",
                "invalid_actions", "format_errors", "last_new_gold", "last_consistent",
                *(f"last_{k}" for k in LAST_KINDS))


def _fresh(space_builder, *args):
    """A new space object (the builders in ``spaces`` are cached process-wide; PettingZoo seeds
    each agent's space, so every env and agent needs its own object)."""
    return space_builder.__wrapped__(*args)


class MultiSearchEnv(ParallelEnv):
    """What the group and the team share: config, world, tools, tasks, sessions, spaces, seeding."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "searchgym_multi",
                                          "is_parallelizable": True}

    def __init__(
        self,
        agent_names: Sequence[str],
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
        self.generator = CandidateGenerator(self.world, max_candidates)
        self.render_mode = render_mode
        self.possible_agents = list(agent_names)
        self.agents: list[str] = []
        self.sessions: dict[str, SearchSession] = {}
        self.last_outcomes: dict[str, StepOutcome] = {}
        self.task = None
        self.steps = 0
        self._np_random: np.random.Generator | None = None
        self.state_space = spaces.Box(0.0, 1.0, shape=(len(self.state_fields()),), dtype=np.float32)

    # ------------------------------------------------------------------------------ spaces
    def _check_agent(self, agent: str) -> None:
        if agent not in self.possible_agents:
            raise KeyError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")

    @functools.lru_cache(maxsize=None)  # noqa: B019, UP033 - PettingZoo: the same object per agent
    def observation_space(self, agent: str) -> spaces.Space:
        self._check_agent(agent)
        c = self.config
        if c.action_mode == "candidates":
            return _fresh(candidate_observation_space, c.max_obs_chars, c.max_candidates, c.max_candidate_chars)
        return spaces.Dict({"text": _fresh(text_observation_space, c.max_obs_chars)})

    @functools.lru_cache(maxsize=None)  # noqa: B019, UP033
    def action_space(self, agent: str) -> spaces.Space:
        self._check_agent(agent)
        if self.config.action_mode == "candidates":
            return _fresh(candidate_action_space, self.config.max_candidates)
        return _fresh(text_action_space, self.config.max_action_chars)

    # ----------------------------------------------------------------------------- seeding
    @property
    def np_random(self) -> np.random.Generator:
        if self._np_random is None:
            self._np_random, _ = seeding.np_random(None)
        return self._np_random

    def _start(self, seed: int | None, options: Mapping[str, Any] | None) -> list[np.random.Generator]:
        """Seed, pick the task, and give each agent its own generator derived from the env's."""
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        options = dict(options or {})
        ignored = sorted(set(options) - set(RESET_OPTIONS))
        if ignored:  # PettingZoo's api_test passes {"options": 1}; say so rather than fail
            warnings.warn(f"reset options {ignored} are ignored; accepted: {', '.join(RESET_OPTIONS)}",
                          stacklevel=3)
        self.task = self.tasks.pick(self.np_random, {k: options[k] for k in RESET_OPTIONS if k in options})
        seeds = self.np_random.integers(0, 2**63 - 1, size=len(self.possible_agents))
        self.agents = list(self.possible_agents)
        self.steps = 0
        self.last_outcomes = {}
        return [np.random.default_rng(int(s)) for s in seeds]

    def _check_actions(self, actions: Mapping[str, Any]) -> None:
        if not self.sessions:
            raise RuntimeError("call reset() before step()")
        if not isinstance(actions, Mapping):
            raise TypeError(f"step() takes a dict agent -> action, got {type(actions).__name__}")
        if not self.agents:
            raise RuntimeError("every agent has finished this episode; call reset()")
        missing = [a for a in self.agents if a not in actions]
        unknown = [a for a in actions if a not in self.possible_agents]
        if missing or unknown:  # actions of agents that finished earlier are ignored, as PettingZoo's wrappers do
            raise ValueError(f"step() needs one action for each live agent {self.agents}; "
                             f"missing: {missing or 'none'}, unknown agents: {unknown or 'none'}")

    # --------------------------------------------------------------------------- helpers
    def _candidate_mode(self) -> bool:
        return self.config.action_mode == "candidates"

    @staticmethod
    def _signals(outcome: StepOutcome | None) -> dict[str, Any]:
        if outcome is None:
            return {}
        return signals_info(outcome.signals)

    def _agent_block(self, session: SearchSession, outcome: StepOutcome | None, limit: int) -> list[float]:
        gold = max(len(session.task.evidence), 1)
        kind = "none" if outcome is None or outcome.action is None else outcome.action.kind
        return [
            float(session.done), float(session.answer is not None),
            float(bool(session.score and session.score.success)), session.score.score if session.score else 0.0,
            len(session.gold_seen) / gold, session.steps / limit, session.tool_calls / limit,
            session.invalid_actions / limit, session.format_errors / limit,
            float(bool(outcome and outcome.signals.new_gold)), float(bool(outcome and outcome.signals.consistent)),
            *(float(kind == k) for k in LAST_KINDS),
        ]

    def _task_block(self) -> list[float]:
        family = self.task.family if self.task is not None else None
        hops = len(self.task.evidence) if self.task is not None else 0
        return [min(hops / MAX_GOLD, 1.0), *(float(family == f) for f in FAMILIES)]

    def state_fields(self) -> list[str]:
        raise NotImplementedError

    def render(self) -> str | None:
        if self.render_mode != "ansi" or not self.sessions:
            return None
        return "\n\n".join(f"== {agent}\n{s.render()}" for agent, s in self.sessions.items())

    def close(self) -> None:
        """Nothing to release: the world and tools are shared."""


class GroupSearchEnv(MultiSearchEnv):
    """K independent attempts at one task; see the module docstring."""

    # group_by: trainers treat one episode's K attempts as one GRPO group (see agents.rollout)
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "searchgym_group_v0",
                                          "is_parallelizable": True, "group_by": "episode"}

    def __init__(self, group_size: int = 4, **kwargs: Any) -> None:
        if isinstance(group_size, bool) or not isinstance(group_size, int) or not 1 <= group_size <= 256:
            raise ValueError(f"group_size must be an int in 1..256, got {group_size!r}")
        self.group_size = group_size
        super().__init__([f"agent_{i}" for i in range(group_size)], **kwargs)

    def state_fields(self) -> list[str]:
        head = ["step", "done", "answered", "success", "mean_score", "best_gold_found", "gold_hops",
                *(f"family_{f}" for f in FAMILIES)]
        return head + [f"{agent}.{f}" for agent in self.possible_agents for f in AGENT_FIELDS]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        rngs = self._start(seed, options)
        self.sessions = {agent: SearchSession(self.world, self.tools, self.task, self.config, rng,
                                              generator=self.generator)
                         for agent, rng in zip(self.possible_agents, rngs, strict=True)}
        text_mode = not self._candidate_mode()  # candidate observations do not show the prompt
        observations = {a: self._observation(a, self.sessions[a].prompt() if text_mode else "") for a in self.agents}
        return observations, {a: self._info(a, None) for a in self.agents}

    def step(self, actions: Mapping[str, Any]):
        self._check_actions(actions)
        self.steps += 1
        obs, rewards, terminations, truncations, infos = {}, {}, {}, {}, {}
        for agent in self.agents:
            outcome = self.sessions[agent].act(actions[agent])
            self.last_outcomes[agent] = outcome
            obs[agent] = self._observation(agent, outcome.text)
            rewards[agent] = float(outcome.reward["total"])
            terminations[agent], truncations[agent] = bool(outcome.terminated), bool(outcome.truncated)
            infos[agent] = self._info(agent, outcome)
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        return obs, rewards, terminations, truncations, infos

    def _observation(self, agent: str, text: str):
        if not self._candidate_mode():
            return {"text": text}
        session = self.sessions[agent]
        session.refresh_candidates()
        return session.candidate_observation()

    def _info(self, agent: str, outcome: StepOutcome | None) -> dict[str, Any]:
        session = self.sessions[agent]
        info = session.info()
        info["reward_components"] = dict(outcome.reward) if outcome else {}
        info["signals"] = self._signals(outcome)
        info["invalid"] = bool(outcome.invalid) if outcome else False
        info["format_error"] = bool(outcome.format_error) if outcome else False
        if self._candidate_mode():
            info["action_mask"] = session.action_mask
            info["candidates"] = list(session.candidates)
        return info

    def state(self) -> np.ndarray:
        if not self.sessions:
            return np.zeros(self.state_space.shape, dtype=np.float32)
        limit = self.config.max_steps
        sessions = [self.sessions[a] for a in self.possible_agents]
        k = len(sessions)
        gold = max(len(self.task.evidence), 1)
        head = [
            self.steps / limit, sum(s.done for s in sessions) / k, sum(s.answer is not None for s in sessions) / k,
            sum(bool(s.score and s.score.success) for s in sessions) / k,
            sum(s.score.score if s.score else 0.0 for s in sessions) / k,
            max(len(s.gold_seen) for s in sessions) / gold, *self._task_block(),
        ]
        body = [x for a, s in zip(self.possible_agents, sessions, strict=True)
                for x in self._agent_block(s, self.last_outcomes.get(a), limit)]
        return np.clip(np.asarray(head + body, dtype=np.float32), 0.0, 1.0)
