"""Rollouts: G attempts at the same task form a group, recorded step by step.

Two collectors and a greedy evaluator share one idea (a group is every attempt at one task) and one record
(:class:`~searchgym.agents.trajectory.Step`: observation, mask, action, log-prob, value, reward,
done and the process judge's signals):

- :func:`collect_vector` — ``SearchEnv`` copies in a Gymnasium ``SyncVectorEnv``, all reset on the
  same task with different seeds: one group of G single-agent trajectories per task;
- :func:`collect_parallel` — a PettingZoo ``ParallelEnv``: for ``GroupSearchEnv`` one episode is a
  group of K trajectories; for ``TeamSearchEnv`` G episodes of a task give, for each role, a group
  of G trajectories (so each agent's advantages are computed over its own rounds), or with
  ``group_by="team"`` one group of every agent's trajectories;
- :func:`evaluate_single` — dev episodes of ``SearchEnv`` copies (greedy or sampled), batched.

The policy's forward pass is batched over every live agent that shares a member policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import torch
from gymnasium.vector.utils import iterate

from .grouping import TEAM_GROUP, resolve_grouping
from .population import Population
from .trajectory import Step, Trajectory

SIGNAL_KEYS = ("contribution", "new_gold", "consistent")


@dataclass
class RolloutStats:
    """Counts of one collection, for logging and for the step budget."""

    env_steps: int = 0
    episodes: int = 0
    successes: int = 0

    @property
    def success_rate(self) -> float:
        return self.successes / self.episodes if self.episodes else 0.0


def _signals(info: dict, index: int | None = None) -> dict[str, float]:
    """The judge's signals of one step from an info dict (vector infos are indexed by env)."""
    signals = info.get("signals", {})
    out = {}
    for key in SIGNAL_KEYS:
        if key in signals:
            value = signals[key][index] if index is not None else signals[key]
            out[key] = float(value)
    return out


def act_batch(
    population: Population,
    observations: Sequence[dict],
    agent_indices: Sequence[int],
    generator: torch.Generator | None,
    greedy: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One forward pass per distinct member policy over the agents it serves."""
    n = len(observations)
    actions, log_probs, values = np.zeros(n, np.int64), np.zeros(n), np.zeros(n)
    by_member: dict[int, list[int]] = {}
    for row, agent in enumerate(agent_indices):
        by_member.setdefault(id(population.policy_for(agent)), []).append(row)
    for rows in by_member.values():
        policy = population.policy_for(agent_indices[rows[0]])
        a, lp, v = policy.act([observations[r] for r in rows], generator, greedy=greedy)
        actions[rows], log_probs[rows], values[rows] = a.cpu().numpy(), lp.cpu().numpy(), v.float().cpu().numpy()
    return actions, log_probs, values


def collect_vector(
    envs: gym.vector.VectorEnv,
    population: Population,
    task_ids: Sequence[str],
    generator: torch.Generator | None,
    seed: int,
    greedy: bool = False,
) -> tuple[list[list[Trajectory]], RolloutStats]:
    """One group of ``envs.num_envs`` trajectories per task (all envs share the policy of agent 0)."""
    n_envs = envs.num_envs
    groups, stats = [], RolloutStats()
    for t, task_id in enumerate(task_ids):
        obs, _ = envs.reset(seed=[seed + t * n_envs + i for i in range(n_envs)], options={"task_id": task_id})
        steps: list[list[Step]] = [[] for _ in range(n_envs)]
        live = np.ones(n_envs, dtype=bool)
        success = np.zeros(n_envs, dtype=bool)
        while live.any():
            per_env = list(iterate(envs.observation_space, obs))
            actions, log_probs, values = act_batch(population, per_env, [0] * n_envs, generator, greedy)
            next_obs, rewards, terminated, truncated, infos = envs.step(actions)
            for i in np.flatnonzero(live):
                done = bool(terminated[i] or truncated[i])
                steps[i].append(Step(per_env[i], int(actions[i]), float(log_probs[i]), float(values[i]),
                                     float(rewards[i]), done, np.asarray(per_env[i]["action_mask"]),
                                     _signals(infos, i)))
                if done:
                    live[i] = False
                    success[i] = bool(infos["success"][i])
            obs = next_obs
        group = [Trajectory(steps[i], agent_id="agent_0", group_id=t, task_id=task_id, success=bool(success[i]))
                 for i in range(n_envs)]
        groups.append(group)
        stats.episodes += n_envs
        stats.successes += int(success.sum())
    stats.env_steps = sum(len(t) for g in groups for t in g)  # steps of finished envs are not counted
    return groups, stats


def collect_parallel(
    env,
    population: Population,
    task_ids: Sequence[str],
    episodes_per_task: int,
    generator: torch.Generator | None,
    seed: int,
    greedy: bool = False,
    group_by: str = "auto",
    record_state: bool = False,
) -> tuple[list[list[Trajectory]], RolloutStats]:
    """Groups from a PettingZoo ParallelEnv, or from a list of copies of one, stepped together.

    ``group_by="episode"``: each episode's K trajectories are one group (``GroupSearchEnv``: K
    independent attempts). ``group_by="agent"`` (or ``"role"``, the same): for each agent, its
    trajectories over the ``episodes_per_task`` episodes of a task are one group (``TeamSearchEnv``:
    a shared reward, so a role is compared with itself). ``group_by="team"``: every agent's
    trajectories of the task's episodes pooled into one group (the naive whole-team comparison,
    which ranks a lead against a searcher). ``"auto"``: "episode" for a single episode per task,
    else ``env.metadata["group_by"]`` (default "agent"). "role" and "team" need an env whose
    agents share an episode (not one whose metadata says "episode").

    With a list of E envs, the episodes (task by task, episode seeds as with one env) are played E
    at a time and every live agent of every env goes through one policy batch per round (why:
    batches of G x agents cost far less per observation than one episode's agents). One env
    reproduces the one-episode-at-a-time draws exactly; E envs draw the same episodes in another
    order of sampling, deterministic for a fixed seed.

    ``record_state=True`` (for centralised critics) stores on every Step the env's ``state()``
    before the round and the candidate texts the other live agents chose in that round.
    """
    envs = list(env) if isinstance(env, (list, tuple)) else [env]
    if not envs:
        raise ValueError("collect_parallel needs at least one env")
    group_by = resolve_grouping(group_by, envs[0].metadata.get("group_by", "agent"), episodes_per_task)
    agents = list(envs[0].possible_agents)
    index_of = {a: k for k, a in enumerate(agents)}
    jobs = [(t, task_id, seed + t * episodes_per_task + e)
            for t, task_id in enumerate(task_ids) for e in range(episodes_per_task)]
    played = []
    for start in range(0, len(jobs), len(envs)):
        wave = jobs[start:start + len(envs)]
        played += _run_parallel_episodes(envs[:len(wave)], population, [(task, s) for _, task, s in wave], index_of,
                                         generator, greedy, record_state)
    groups: list[list[Trajectory]] = []
    stats = RolloutStats()
    pooled = [TEAM_GROUP] if group_by == "team" else agents  # the groups a task's trajectories go to
    per_agent: dict[str, list[Trajectory]] = {a: [] for a in pooled}
    for i, ((t, task_id, _), episode) in enumerate(zip(jobs, played)):
        trajectories = [Trajectory(steps, agent_id=a, group_id=f"{t}", task_id=task_id, success=ok)
                        for a, (steps, ok) in episode.items() if steps]
        stats.episodes += 1
        stats.successes += int(any(ok for _, ok in episode.values()))
        stats.env_steps += sum(len(tr) for tr in trajectories)
        if group_by == "episode":
            groups.append(trajectories)
        else:
            for tr in trajectories:
                per_agent[TEAM_GROUP if group_by == "team" else tr.agent_id].append(tr)
            if i + 1 == len(jobs) or jobs[i + 1][0] != t:  # the task's last episode: its groups are complete
                groups.extend(g for g in per_agent.values() if g)
                per_agent = {a: [] for a in pooled}
    return groups, stats


def _run_parallel_episodes(envs, population, episodes, index_of, generator, greedy, record_state=False):
    """[{agent: (steps, success)}] for one episode per env (``episodes``: (task id, seed) each),
    every live agent of every env acting in one batch per round."""
    observations = [env.reset(seed=s, options={"task_id": task_id})[0] for env, (task_id, s) in zip(envs, episodes)]
    steps = [{a: [] for a in index_of} for _ in envs]
    success = [dict.fromkeys(index_of, False) for _ in envs]
    while any(env.agents for env in envs):
        rows = [(e, a) for e, env in enumerate(envs) for a in env.agents]
        obs_list = [observations[e][a] for e, a in rows]
        actions, log_probs, values = act_batch(population, obs_list, [index_of[a] for _, a in rows], generator, greedy)
        actions_of: dict[int, dict[str, int]] = {}  # env -> {agent: action}, in the order of rows
        for i, (e, a) in enumerate(rows):
            actions_of.setdefault(e, {})[a] = int(actions[i])
        states, chosen = {}, {}
        if record_state:  # s_t and every live agent's chosen candidate text, before the envs move on
            states = {e: np.asarray(env.state(), dtype=np.float32) for e, env in enumerate(envs) if env.agents}
            for i, (e, a) in enumerate(rows):
                chosen.setdefault(e, {})[a] = str(obs_list[i]["candidates"][int(actions[i])])
        results = {}
        for e, env in enumerate(envs):
            if env.agents:
                results[e] = env.step(actions_of.get(e, {}))
                observations[e] = results[e][0]
        for i, (e, a) in enumerate(rows):
            _, rewards, terminations, truncations, infos = results[e]
            done = bool(terminations.get(a, False) or truncations.get(a, False))
            info = infos.get(a, {})
            others = {b: text for b, text in chosen[e].items() if b != a} if record_state else None
            steps[e][a].append(Step(obs_list[i], int(actions[i]), float(log_probs[i]), float(values[i]),
                                    float(rewards.get(a, 0.0)), done, np.asarray(obs_list[i]["action_mask"]),
                                    _signals(info), states.get(e), others))
            if done:
                success[e][a] = bool(info.get("success", False))
    return [{a: (steps[e][a], success[e][a]) for a in index_of} for e in range(len(envs))]


def evaluate_single(envs: Sequence[gym.Env], population: Population, task_ids: Sequence[str],
                    seed: int, generator: torch.Generator | None = None) -> list[dict]:
    """Episodes of agent 0's policy on ``task_ids`` (task i with seed ``seed + i``), played
    ``len(envs)`` at a time with one policy batch per step; one final info per task, in order.
    Greedy without a ``generator``; with one, actions are sampled from it."""
    policy = population.policy_for(0)
    finals: list[dict] = []
    for start in range(0, len(task_ids), len(envs)):
        wave = list(enumerate(task_ids[start:start + len(envs)], start=start))
        obs = {j: envs[j].reset(seed=seed + i, options={"task_id": task_id})[0] for j, (i, task_id) in enumerate(wave)}
        last: dict[int, dict] = {}
        while obs:
            live = list(obs)
            actions, _, _ = policy.act([obs[j] for j in live], generator, greedy=generator is None)
            for j, action in zip(live, actions.tolist()):
                observation, _, terminated, truncated, info = envs[j].step(int(action))
                if terminated or truncated:
                    last[j] = info
                    del obs[j]
                else:
                    obs[j] = observation
        finals += [last[j] for j in range(len(wave))]
    return finals
