"""GroupSearchEnv, the GRPO group as a PettingZoo env: its page is the class docstring
(``help(GroupSearchEnv)``). At a glance:

| | |
|---|---|
| Import | ``searchgym.make("GroupSearch-v0")`` (text) / ``"GroupSearch-Candidates-v0"`` |
| Actions | Text (a tool call or an answer) / Discrete (a candidate index) |
| Parallel API | Yes (``searchgym.make_aec`` gives the AEC view) |
| Manual Control | ``searchgym play GroupSearch-v0`` (you play one agent) |
| Agents | ``agents = ['agent_0', 'agent_1', 'agent_2', 'agent_3']`` (``group_size``, default 4) |
| Agents | 4 |
| Action Shape | text: ``Text(20000)``; candidates: ``Discrete(48)`` |
| Action Values | a string / ``0 ... max_candidates - 1`` (masked by ``action_mask``) |
| Observation Shape | text: ``Dict(text)``; candidates: ``Dict(text, candidates, action_mask)`` |
| Observation Values | text up to ``max_obs_chars``; ``action_mask`` in {0, 1} |
| State Shape | ``(78,)`` for 4 agents (``state()``: shared progress plus per-agent fields) |
| State Values | [0, 1] |
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from searchgym.envs.config import EnvConfig, check_int, resolve_config
from searchgym.envs.info import ZEROED_RESET, episode_info
from searchgym.envs.multi import AGENT_FIELDS, MultiSearchEnv
from searchgym.envs.session import SearchSession, StepOutcome
from searchgym.world import FAMILIES

#: The largest GRPO group one env runs.
MAX_GROUP_SIZE = 256

__all__ = ["GroupSearchEnv"]


class GroupSearchEnv(MultiSearchEnv):
    """GroupSearchEnv: K agents attempt the same task independently (the GRPO group as an env).

    Ids: ``GroupSearch-v0`` (text), ``GroupSearch-Candidates-v0``; ``GroupSearch-Numeric-v0`` wraps
    the candidate one (:class:`searchgym.wrappers.NumericParallel`). A PettingZoo ``ParallelEnv``;
    ``searchgym.make_aec`` gives its AEC view.

    **Description**

    Agents ``agent_0`` ... ``agent_{K-1}`` (``group_size``, default 4) each get one
    :class:`~searchgym.envs.session.SearchSession` on the same task. Each sees only its own
    transcript and gets its own reward, exactly as in ``SearchEnv`` (same action modes, tool
    formats, reward components and info keys); trainers treat the K attempts as one GRPO group
    (``metadata["group_by"] == "episode"``). The world and its tools are built once
    (``shared_world`` / ``shared_tools``) and shared by every session; ``env.sessions`` maps agent
    -> live session (what the baselines act on).

    **Action Space**

    Per agent, as ``SearchEnv``'s: ``Text(20000)`` in text mode, ``Discrete(max_candidates)`` in
    candidate mode. Each agent has its own space object (seeded separately by PettingZoo).

    **Observation Space**

    Per agent, always a dict (PettingZoo's ``api_test`` needs one, and one key reads the text in
    both modes): ``Dict(text=Text(max_obs_chars))`` in text mode (what ``SearchEnv`` returns as a
    bare string), ``{"text", "candidates", "action_mask"}`` in candidate mode, as ``SearchEnv``'s.
    The lines of the text are in docs/OBSERVATIONS.md; ``env.observation_data(agent)`` gives them
    as data.

    **Rewards**

    Each agent's own, as in ``SearchEnv`` (answer score minus step, invalid and format costs).

    **Starting State**

    ``reset`` draws one task (with the env's seeded generator, or ``options={"task_id"|"split"}``;
    other options are ignored with a warning) and gives each agent its own generator derived from
    the reset seed (a non-negative int of any size, as Gymnasium takes it, NumPy integers too; a bool,
    a float or a negative int is a ValueError saying so), so candidate shuffles differ per agent and
    are reproducible.

    **Episode End**

    An agent that has answered (``terminated``) or run out of ``max_steps`` (``truncated``) leaves
    ``env.agents`` after its last step and stays done (an action still passed for it is ignored;
    one for an unknown agent is an error). The episode ends when every agent is done.

    **State**

    ``state()`` (``state_space``: ``Box(0, 1, (7 + len(FAMILIES) + 16 K,), float32)``) is the
    global state for centralised critics; ``state_fields()`` names every entry. Header: step
    fraction, fraction of agents done, answered and successful, mean answer score, best
    gold-evidence fraction, the task's gold-hop count / 8, task family one-hot. Then, per agent (in
    ``possible_agents`` order), the 16 entries of :data:`AGENT_FIELDS`.

    **Arguments**

    ``GroupSearchEnv(group_size=4, config=EnvConfig(...), **kwargs)``; the keywords are the fields
    of :class:`searchgym.envs.config.EnvConfig`, as for ``SearchEnv``.

    **Version History**

    - v0: the first version. Later without a new id (observations unchanged): ``config=EnvConfig``,
      ``observation_data(agent)``, spaces owned by each env, pickling by replay, the shared base
      :class:`~searchgym.envs.multi.MultiSearchEnv` in its own module.
      At reset ``reward_components`` and ``signals`` hold zeros, as ``SearchEnv``'s (at first they were empty dicts).

    **Example**

    >>> import searchgym
    >>> env = searchgym.make("GroupSearch-Candidates-v0", world_size="tiny")
    >>> observations, infos = env.reset(seed=0)
    >>> env.agents, env.state().shape
    (['agent_0', 'agent_1', 'agent_2', 'agent_3'], (78,))
    >>> actions = {a: int(infos[a]["action_mask"].argmax()) for a in env.agents}
    >>> observations, rewards, terminations, truncations, infos = env.step(actions)
    >>> sorted(rewards) == sorted(env.possible_agents)
    True
    """

    # How it plays (searchgym.envs.play_rules): the K attempts' answers are voted on, one episode's
    # attempts are one GRPO group, and there is no blackboard.
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "render_fps": 4, "name": "searchgym_group_v0",
                                          "is_parallelizable": True, "answer_rule": "majority",
                                          "group_by": "episode", "team_actions": False}

    def __init__(self, group_size: int = 4, config: EnvConfig | None = None, **kwargs: Any) -> None:
        env_config = resolve_config("GroupSearchEnv", config, kwargs, own=("group_size",))
        self.group_size = check_int("group_size", group_size, 1, MAX_GROUP_SIZE)
        super().__init__([f"agent_{i}" for i in range(group_size)], env_config,
                         {"group_size": group_size, "config": env_config})

    def state_fields(self) -> list[str]:
        head = ["step", "done", "answered", "success", "mean_score", "best_gold_found", "gold_hops",
                *(f"family_{f}" for f in FAMILIES)]
        return head + [f"{agent}.{f}" for agent in self.possible_agents for f in AGENT_FIELDS]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        rngs = self._start(seed, options)
        self._open({agent: SearchSession(self.world, self.tools, self.task, self.config, rng, generator=self.generator)
                    for agent, rng in zip(self.possible_agents, rngs, strict=True)})
        text_mode = not self._candidate_mode()  # candidate observations do not show the prompt
        observations = {a: self._observation(a, self.sessions[a].prompt() if text_mode else "") for a in self.agents}
        return observations, {a: self._info(a, None) for a in self.agents}

    def step(self, actions: Mapping[str, Any]):
        self._check_actions(actions)
        self.steps += 1
        obs, rewards, terminations, truncations, infos = {}, {}, {}, {}, {}
        for agent in self.agents:
            outcome = self.sessions[agent].apply(actions[agent])
            self.logs[agent].record(outcome)
            self.last_outcomes[agent] = outcome
            obs[agent] = self._observation(agent, outcome.text)
            rewards[agent] = float(outcome.reward["total"])
            terminations[agent], truncations[agent] = bool(outcome.terminated), bool(outcome.truncated)
            infos[agent] = self._info(agent, outcome)
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        self._recorded(actions)
        return obs, rewards, terminations, truncations, infos

    def _observation(self, agent: str, text: str):
        if not self._candidate_mode():
            return {"text": text}
        session = self.sessions[agent]
        session.refresh_candidates()
        return session.candidate_observation()

    def _info(self, agent: str, outcome: StepOutcome | None) -> dict[str, Any]:
        return episode_info(self.sessions[agent], outcome, self._candidate_mode(), ZEROED_RESET,
                            observation_data=self._info_data(agent))

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
