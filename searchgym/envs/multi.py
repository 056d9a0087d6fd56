"""MultiSearchEnv: what the group and team envs share (config, world, tools, task, sessions,
spaces, seeding, the per-agent state blocks).

It is the base of :class:`~searchgym.envs.group.GroupSearchEnv` and
:class:`~searchgym.envs.team.TeamSearchEnv`, not an env of its own (``state_fields``, ``reset``
and ``step`` are theirs). Each instance owns its spaces: one (observation, action) pair per
agent, built on first use and returned as the same objects afterwards, as PettingZoo expects.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from searchgym.candidates import shared_generator
from searchgym.envs.config import CONFIG_KWARGS, EnvConfig, check_episode_seed
from searchgym.envs.observation_data import ObservationLog
from searchgym.envs.replay import EpisodeRecord, load_env, recorded
from searchgym.envs.session import SearchSession, StepOutcome
from searchgym.envs.setup import env_setup
from searchgym.envs.spaces import AgentSpaceDicts, episode_spaces
from searchgym.envs.tasks import RESET_OPTIONS, reset_options
from searchgym.envs.terminal_view import TerminalView
from searchgym.world import FAMILIES

MAX_GOLD = 8
LAST_KINDS = ("none", "tool", "answer", "post", "wait")
#: Per-agent entries of ``state()``; counts are divided by the step limit, evidence by the gold size.
AGENT_FIELDS = ("done", "answered", "success", "score", "gold_found", "steps", "tool_calls",
                "invalid_actions", "format_errors", "last_new_gold", "last_consistent",
                *(f"last_{k}" for k in LAST_KINDS))


class MultiSearchEnv(AgentSpaceDicts, ParallelEnv):
    """What the group and the team share: config, world, tools, tasks, sessions, spaces, seeding."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "render_fps": 4, "name": "searchgym_multi",
                                          "is_parallelizable": True}

    #: Keywords taken through ``**kwargs`` by the group and team envs (the registry lists them).
    config_kwargs = CONFIG_KWARGS

    def __init__(self, agent_names: Sequence[str], env_config: EnvConfig, recipe: Mapping[str, Any]) -> None:
        """``recipe``: the keyword arguments that build this env again (what it pickles as)."""
        self.env_config = env_config
        self.recipe = dict(recipe)
        self.record: EpisodeRecord | None = None
        setup = env_setup(env_config)
        self.config, self.world, self.tools, self.tasks = setup.config, setup.world, setup.tools, setup.tasks
        self.generator = shared_generator(self.world, self.config.max_candidates)  # shared by the world's envs
        self.render_mode = env_config.render_mode
        self.possible_agents = list(agent_names)
        self.agents: list[str] = []
        self.sessions: dict[str, SearchSession] = {}
        self.logs: dict[str, ObservationLog] = {}
        self.last_outcomes: dict[str, StepOutcome] = {}
        self.task = None
        self.steps = 0
        self._np_random: np.random.Generator | None = None
        self._spaces: dict[str, tuple[spaces.Space, spaces.Space]] = {}
        self.state_space = spaces.Box(0.0, 1.0, shape=(len(self.state_fields()),), dtype=np.float32)

    # ------------------------------------------------------------------------------ spaces
    def _check_agent(self, agent: str) -> None:
        if agent not in self.possible_agents:
            raise KeyError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")

    def _agent_spaces(self, agent: str) -> tuple[spaces.Space, spaces.Space]:
        """The agent's (observation, action) spaces: built once per env and agent, never shared
        (PettingZoo seeds each agent's space, so each needs its own generator)."""
        found = self._spaces.get(agent)
        if found is None:
            self._check_agent(agent)
            found = self._spaces[agent] = episode_spaces(self.config, text_in_dict=True)
        return found

    def observation_space(self, agent: str) -> spaces.Space:
        return self._agent_spaces(agent)[0]

    def action_space(self, agent: str) -> spaces.Space:
        return self._agent_spaces(agent)[1]

    # ----------------------------------------------------------------------------- seeding
    @property
    def np_random(self) -> np.random.Generator:
        if self._np_random is None:
            self._np_random, _ = seeding.np_random(None)
        return self._np_random

    def _start(self, seed: int | None, options: Mapping[str, Any] | None) -> list[np.random.Generator]:
        """Seed, pick the task, and give each agent its own generator derived from the env's."""
        options = reset_options(options)
        chosen = self.tasks.check({k: options[k] for k in RESET_OPTIONS if k in (options or {})})  # before any change
        if seed is not None:  # a NumPy integer is the int it is (gymnasium's check refused it), a bool is not;
            # no upper bound: a run's largest seeds give episode seeds past MAX_SEED (a team run of one failed)
            self._np_random, _ = seeding.np_random(check_episode_seed(seed))
        self.record = EpisodeRecord.start(self.np_random, options)
        options = options or {}
        ignored = sorted(set(options) - set(RESET_OPTIONS))
        if ignored:  # PettingZoo's api_test passes {"options": 1}; say so rather than fail
            warnings.warn(f"reset options {ignored} are ignored; accepted: {', '.join(RESET_OPTIONS)}",
                          stacklevel=3)
        self.task = self.tasks.pick(self.np_random, chosen)
        seeds = self.np_random.integers(0, 2**63 - 1, size=len(self.possible_agents))
        self.agents = list(self.possible_agents)
        self.steps = 0
        self.last_outcomes = {}
        return [np.random.default_rng(int(s)) for s in seeds]

    def _set_generator(self, generator: np.random.Generator, seed: int | None) -> None:
        self._np_random = generator

    def __reduce__(self):
        # the spaces built so far travel as state: a copy's were new, so a seeded action_space(agent).sample()
        # drew other actions than the original's; so does what "human" mode has printed (a copy printed
        # every agent's episode again at its next step)
        state = {"_spaces": self._spaces, **{k: v for k, v in self.__dict__.items() if k == "_views"}}
        return load_env, (type(self), self.recipe, self.record), state

    def _recorded(self, actions: Mapping[str, Any]) -> None:
        """Remember a step's actions for pickling (after the step succeeded)."""
        self.record.actions.append({agent: recorded(action) for agent, action in actions.items()})
        if self.render_mode == "human":
            self.render()

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

    def _open(self, sessions: Mapping[str, SearchSession]) -> None:
        """Start the episode's sessions, each with an empty observation log."""
        self.sessions = dict(sessions)
        self.logs = {agent: ObservationLog(session) for agent, session in self.sessions.items()}
        if self.render_mode == "human":
            self.render()

    def _notes(self) -> Sequence[Any]:
        """Blackboard notes shown in the observation data (a team's; none here)."""
        return ()

    def _info_data(self, agent: str) -> dict[str, Any] | None:
        """``info["observation_data"]`` when the env was built with ``observation_data=True``."""
        return self.logs[agent].data(self._notes()) if self.env_config.observation_data else None

    def observation_data(self, agent: str) -> dict[str, Any]:
        """The structured data behind ``agent``'s observation (see :mod:`searchgym.envs.observation_data`)."""
        self._check_agent(agent)
        if agent not in self.logs:
            raise RuntimeError("call reset() before observation_data()")
        return self.logs[agent].data(self._notes())

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
        """Every agent's episode as text ("ansi"); printed, returning None ("human": also after each
        reset and step)."""
        if self.render_mode is None or not self.sessions:
            return None
        board = self._board_text()
        if self.render_mode == "human":
            views = self.__dict__.setdefault("_views", {})
            for agent, session in self.sessions.items():
                views.setdefault(agent, TerminalView()).show(session.render(), label=agent)
            views.setdefault(None, TerminalView()).show(board, label="blackboard")
            return None
        text = "\n\n".join(f"== {agent}\n{s.render()}" for agent, s in self.sessions.items())
        return text if board is None else f"{text}\n\n{board}"

    def _board_text(self) -> str | None:
        """What ``render`` shows after the agents' episodes: a team's blackboard (a group has none)."""
        return None

    def close(self) -> None:
        """Nothing to release: the world and tools are shared."""
