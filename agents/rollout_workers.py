"""Rollout workers on Ray: env stepping and candidate-policy inference spread over N actors.

Why: a trainer's wall time is mostly rollouts (env steps, BM25 searches, the policy's forward
pass); the update is a small share. ``TrainConfig.rollout_workers = N`` (>= 1) moves rollouts
to N Ray actors, each holding its own envs (built once, reused every iteration); the learner
keeps the update. ``0`` (the default) is the in-process path of :mod:`.rollout`, unchanged.

**Same seed, same trajectories, whatever the timing.** The in-process path samples every task
of an iteration from one generator in turn, so task t's draws depend on how long tasks 0..t-1
ran: that cannot be split across workers. With workers, task t of an iteration samples from its
own generator, :func:`task_generator` (iteration seed, t), and its env seeds are those the
in-process path gives task t. :func:`collect_per_task` is the in-process reference of that
scheme: at any N the workers return exactly its groups (same observations, actions, log-probs,
rewards), gathered in task order, never in the order the workers finish. Tasks are dealt
round-robin (task t to worker t mod N).

**Weights.** Every iteration the learner puts its CPU state dict in Ray's object store once;
each worker loads it before rolling out, so rollouts always use the newest weights.

**Cluster.** An initialised Ray is used as it is; else ``RAY_ADDRESS`` (if set) is joined;
else a local cluster of N CPUs starts (and is shut down with the pool). A cluster with fewer
than N CPUs is an error, not a wait. Workers run on CPU with one torch thread each. The actors
are killed when the trainer is garbage collected or :func:`close_workers` is called.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .rollout import RolloutStats, collect_parallel, collect_vector
from .trajectory import Trajectory

RAY_MISSING = "rollout_workers >= 1 needs Ray: pip install 'searchgym[ray]' (or pip install 'ray>=2.9')"


def task_generator(seed: int, task_index: int) -> torch.Generator:
    """The sampling generator of task ``task_index`` in an iteration whose seed is ``seed``."""
    state = np.random.SeedSequence([int(seed) & 0xFFFFFFFFFFFF, int(task_index)]).generate_state(2, np.uint32)
    return torch.Generator().manual_seed(int(state[0]) << 32 | int(state[1]))


@dataclass(frozen=True)
class RolloutPlan:
    """How one iteration's tasks are rolled out (the same for workers and the in-process reference)."""

    kind: str  # "single" (vector env of group copies) or "parallel" (a PettingZoo env)
    seed: int
    episodes: int = 1  # parallel envs: episodes per task
    record_state: bool = False
    group_by: str = "auto"  # parallel envs: collect_parallel's grouping (TrainConfig.group_by)
    temperature: float = 1.0  # the policy samples at this temperature (TrainConfig.rollout_temperature)


def collect_task(env: Any, population: Any, plan: RolloutPlan, task_index: int,
                 task_id: str) -> tuple[list[list[Trajectory]], RolloutStats]:
    """Task ``task_index``'s groups with its own generator and the env seeds the local path gives it."""
    generator = task_generator(plan.seed, task_index)
    with population.sampling_temperature(plan.temperature):
        if plan.kind == "single":
            groups, stats = collect_vector(env, population, [task_id], generator, plan.seed + task_index * env.num_envs)
            label: int | str = task_index
        else:
            groups, stats = collect_parallel(env, population, [task_id], plan.episodes, generator,
                                             plan.seed + task_index * plan.episodes, group_by=plan.group_by,
                                             record_state=plan.record_state)
            label = f"{task_index}"
    for group in groups:
        for trajectory in group:
            trajectory.group_id = label
    return groups, stats


def merge(results: Sequence[tuple[int, list[list[Trajectory]], RolloutStats]]) -> tuple[list, RolloutStats]:
    """Groups in task order and summed counts, whatever order ``results`` came in."""
    groups: list[list[Trajectory]] = []
    total = RolloutStats()
    for _, task_groups, stats in sorted(results, key=lambda r: r[0]):
        groups.extend(task_groups)
        total.env_steps += stats.env_steps
        total.episodes += stats.episodes
        total.successes += stats.successes
    return groups, total


def collect_per_task(env: Any, population: Any, task_ids: Sequence[str], plan: RolloutPlan) -> tuple[list, RolloutStats]:
    """The in-process reference of the workers' scheme: one generator per task, tasks in turn."""
    return merge([(t, *collect_task(env, population, plan, t, task_id)) for t, task_id in enumerate(task_ids)])


def make_envs(config: Any, kind: str) -> Any:
    """The envs a Trainer would build for ``config`` (a vector env of group copies, or one parallel env)."""
    import gymnasium as gym

    import searchgym

    if kind == "single":
        factory = lambda: searchgym.make(config.env_id, **config.env_kwargs).unwrapped  # noqa: E731
        return gym.vector.SyncVectorEnv([factory for _ in range(config.group_size)])
    return searchgym.make(config.env_id, **config.env_kwargs)


class RolloutWorker:
    """The body of one Ray actor: its own envs and a CPU copy of the population."""

    def __init__(self, config: Any, kind: str, n_agents: int) -> None:
        from .population import Population

        torch.set_num_threads(1)
        self.env = make_envs(config, kind)
        self.population = Population.build(config.population_mode, n_agents, encoder=config.policy, device="cpu",
                                           seed=config.seed, **config.policy_kwargs)

    def collect(self, weights: dict[str, Any], jobs: Sequence[tuple[int, str]],
                plan: RolloutPlan) -> list[tuple[int, list[list[Trajectory]], RolloutStats]]:
        self.population.load_state_dict(weights)
        with torch.no_grad():
            return [(t, *collect_task(self.env, self.population, plan, t, task_id)) for t, task_id in jobs]

    def cpu_seconds(self) -> float:
        """This actor's CPU time so far (benchmarks: CPU per env step, which contention does not inflate)."""
        import time

        return time.process_time()


def _import_ray():
    try:
        import ray
    except ImportError:
        raise ValueError(RAY_MISSING) from None
    return ray


class RolloutWorkerPool:
    """N :class:`RolloutWorker` actors; :meth:`collect` deals an iteration's tasks to them."""

    def __init__(self, config: Any, kind: str, n_agents: int, workers: int) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"rollout_workers must be a positive int for a worker pool, got {workers!r}")
        ray = self.ray = _import_ray()
        self.started_ray = not ray.is_initialized()
        if self.started_ray:
            if os.environ.get("RAY_ADDRESS"):
                ray.init(log_to_driver=False)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        cpus = ray.cluster_resources().get("CPU", 0)
        if cpus < workers:  # an actor that can never be placed would wait forever
            self.close()
            raise ValueError(f"rollout_workers={workers} needs {workers} CPUs (one per actor); the Ray cluster has "
                             f"{cpus:g}: use fewer workers or a bigger cluster")
        actor = ray.remote(num_cpus=1)(RolloutWorker)
        self.actors = [actor.remote(config, kind, n_agents) for _ in range(workers)]

    def collect(self, population: Any, task_ids: Sequence[str], plan: RolloutPlan) -> tuple[list, RolloutStats]:
        weights = self.ray.put({k: v.detach().cpu() for k, v in population.state_dict().items()})
        jobs = [(t, task_id) for t, task_id in enumerate(task_ids)]
        n = len(self.actors)
        calls = [a.collect.remote(weights, jobs[i::n], plan) for i, a in enumerate(self.actors) if jobs[i::n]]
        return merge([r for results in self.ray.get(calls) for r in results])

    def cpu_seconds(self) -> float:
        """The actors' CPU time so far, summed."""
        return float(sum(self.ray.get([a.cpu_seconds.remote() for a in self.actors])))

    def close(self) -> None:
        """Kill the actors; shut Ray down too when this pool started it."""
        for actor in getattr(self, "actors", []):
            try:
                self.ray.kill(actor)
            except Exception:  # noqa: BLE001 - Ray already shut down: the actors are gone
                pass
        self.actors = []
        if self.started_ray and self.ray.is_initialized():
            self.ray.shutdown()
        self.started_ray = False


def _plan(trainer: Any, seed: int) -> RolloutPlan:
    temperature = trainer.config.rollout_temperature
    if trainer.kind == "single":
        return RolloutPlan("single", seed, temperature=temperature)
    episodes = 1 if trainer.env.metadata.get("group_by") == "episode" else trainer.config.group_size
    return RolloutPlan("parallel", seed, episodes, trainer.record_state, trainer.config.group_by, temperature)


def collect_with_workers(trainer: Any, task_ids: Sequence[str], seed: int) -> tuple[list, RolloutStats]:
    """``Trainer.collect`` for ``rollout_workers >= 1``: the trainer's pool, started on first use."""
    pool = getattr(trainer, "_rollout_pool", None)
    if pool is None:
        pool = RolloutWorkerPool(trainer.config, trainer.kind, trainer.n_agents, trainer.config.rollout_workers)
        trainer._rollout_pool = pool
        weakref.finalize(trainer, pool.close)
    return pool.collect(trainer.population, task_ids, _plan(trainer, seed))


def collect_in_process(trainer: Any, task_ids: Sequence[str], seed: int) -> tuple[list, RolloutStats]:
    """What :func:`collect_with_workers` returns, computed in this process (the reference)."""
    with torch.no_grad():
        return collect_per_task(trainer.env, trainer.population, task_ids, _plan(trainer, seed))


def close_workers(trainer: Any) -> None:
    pool = getattr(trainer, "_rollout_pool", None)
    if pool is not None:
        pool.close()
        trainer._rollout_pool = None
