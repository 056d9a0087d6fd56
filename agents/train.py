"""Training: group-relative policy optimisation with any advantage estimator (CW-GRPO by default).

One iteration, every detail visible here:

1. draw ``tasks_per_iteration`` train tasks with the run's generator;
2. roll out a group of ``group_size`` attempts per task (``rollout.py``);
3. compute advantages with the estimator (``cw_round`` = CW-GRPO round contribution, ``cw_value``,
   ``grpo``, ``dr_grpo``, ``gae``) and apply the calibration flags;
4. ``update_epochs`` full-batch PPO-clip passes (eps_low / eps_high, dual clip, entropy bonus,
   the configured loss aggregation), then the value head for ``value_epochs`` when the estimator
   uses values (``gae``, ``cw_value``);
5. every ``eval_every`` iterations, greedy success on a fixed dev subset; a checkpoint that
   restores everything (weights, optimiser, calibration state, both generators) so that a resumed
   run makes exactly the next update the uninterrupted run would have made.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import gymnasium as gym
import numpy as np
import torch
from tqdm import tqdm

import searchgym
from searchgym.fileio import append_jsonl, atomic_torch_save
from searchgym.registry import spec as env_spec

from .advantages import AdvantageConfig, compute_advantages
from .calibration import CalibrationConfig, Calibrator
from .encoders import resolve_device
from .losses import LossConfig, fit_value, policy_loss
from .population import Population
from .rollout import RolloutStats, collect_parallel, collect_vector

VALUE_ESTIMATORS = ("gae", "cw_value")


@dataclass
class TrainConfig:
    """Everything that defines a training run (saved in the checkpoint and in config.json)."""

    env_id: str = "SearchQA-Candidates-Easy-v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    estimator: str = "cw_round"
    policy: str = "hash"
    policy_kwargs: dict[str, Any] = field(default_factory=dict)
    population_mode: str = "shared"
    group_size: int = 8
    tasks_per_iteration: int = 8
    budget: int = 20_000  # env steps (every agent's step counts)
    lr: float = 3e-3
    update_epochs: int = 2
    max_grad_norm: float = 1.0
    advantage: AdvantageConfig = field(default_factory=AdvantageConfig)
    loss: LossConfig = field(default_factory=LossConfig)
    calibration: CalibrationConfig = field(default_factory=CalibrationConfig)
    eval_every: int = 5
    eval_tasks: int = 48
    seed: int = 0
    device: str = "auto"
    rollout_workers: int = 0  # >= 1: rollouts on that many Ray actors (rollout_workers.py); 0: in process


@dataclass
class TrainState:
    iteration: int = 0
    env_steps: int = 0
    wall_seconds: float = 0.0


class Trainer:
    """Owns the env, the population, the optimiser and the generators of one run."""

    #: centralised critics (MAPPO, COMA) set this: rollouts then store env.state() and the others' actions
    record_state: bool = False

    def __init__(self, config: TrainConfig, out_dir: str | Path | None = None,
                 log: Callable[[dict], None] | None = None, dev_tasks: list[str] | None = None) -> None:
        self.config = config
        self.out_dir = Path(out_dir) if out_dir is not None else None
        self.log_fn = log
        self.device = resolve_device(config.device)
        self.kind = env_spec(config.env_id).kind
        self.env = self._make_env()
        self.n_agents = 1 if self.kind == "single" else len(self.env.possible_agents)
        self.population = Population.build(config.population_mode, self.n_agents, encoder=config.policy,
                                           device=self.device, seed=config.seed, **config.policy_kwargs)
        self.optimizer = torch.optim.Adam(self.population.parameters(), lr=config.lr)
        self.calibrator = Calibrator(config.calibration)
        self.rng = np.random.default_rng(config.seed)
        self.generator = torch.Generator().manual_seed(config.seed)
        self.state = TrainState()
        self.train_tasks = [t.id for t in self._task_picker().tasks("train")]
        dev = [t.id for t in self._task_picker().tasks("dev")]
        self.dev_tasks = list(dev_tasks)[: config.eval_tasks] if dev_tasks else dev[: config.eval_tasks]
        if self.out_dir is not None and (self.out_dir / "checkpoint.pt").exists():
            self.load(self.out_dir / "checkpoint.pt")

    # ------------------------------------------------------------------------- env access
    def _make_env(self):
        if self.kind == "single":
            factory = lambda: searchgym.make(self.config.env_id, **self.config.env_kwargs).unwrapped  # noqa: E731
            return gym.vector.SyncVectorEnv([factory for _ in range(self.config.group_size)])
        return searchgym.make(self.config.env_id, **self.config.env_kwargs)

    def _first_env(self):
        return self.env.envs[0] if self.kind == "single" else self.env

    def _task_picker(self):
        return self._first_env().tasks

    # ----------------------------------------------------------------------------- rollouts
    def collect(self, task_ids: list[str], seed: int, greedy: bool = False) -> tuple[list, RolloutStats]:
        if self.config.rollout_workers and not greedy:  # Ray actors, per-task generators (rollout_workers.py)
            from .rollout_workers import collect_with_workers

            return collect_with_workers(self, task_ids, seed)
        generator = None if greedy else self.generator
        if self.kind == "single":
            return collect_vector(self.env, self.population, task_ids, generator, seed, greedy)
        episodes = 1 if self.env.metadata.get("group_by") == "episode" else self.config.group_size
        return collect_parallel(self.env, self.population, task_ids, episodes, generator, seed, greedy,
                                record_state=self.record_state)

    # ------------------------------------------------------------------------------- update
    def update(self, groups: list) -> dict[str, float]:
        cfg = self.config
        result = compute_advantages(cfg.estimator, groups, cfg.advantage)
        result, calib_stats = self.calibrator.apply(result)
        trajectories = result.trajectories
        obs = [s.obs for t in trajectories for s in t.steps]
        agent_of = [self._agent_index(t.agent_id) for t in trajectories for _ in t.steps]
        actions = torch.tensor(np.concatenate([t.actions for t in trajectories]), device=self.device)
        old_logp = torch.tensor(np.concatenate([t.log_probs for t in trajectories]), device=self.device).float()
        adv = torch.tensor(result.flat_advantages(), device=self.device).float()
        seq = torch.tensor(result.seq_ids(), device=self.device)
        stats: dict[str, float] = {**result.stats, **calib_stats}
        for _ in range(cfg.update_epochs):
            new_logp, entropy, _ = self._evaluate(obs, actions, agent_of)
            loss, loss_stats = policy_loss(new_logp, old_logp, adv, entropy, seq, cfg.loss)
            self.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.population.parameters(), cfg.max_grad_norm)
            self.optimizer.step()
            stats.update(loss_stats)
        if cfg.estimator in VALUE_ESTIMATORS:
            returns = torch.tensor(result.flat_returns(), device=self.device).float()
            old_values = torch.tensor(np.concatenate([t.values for t in trajectories]), device=self.device).float()
            for k in range(self.n_agents if self.population.mode != "shared" else 1):
                rows = [i for i, a in enumerate(agent_of) if self.population.mode == "shared" or a == k]
                if rows:
                    idx = torch.tensor(rows, device=self.device)
                    stats.update(fit_value(self.population.policy_for(k), self.optimizer, [obs[i] for i in rows],
                                           returns[idx], old_values[idx], seq[idx], cfg.loss))
        return stats

    def _agent_index(self, agent_id: str) -> int:
        if self.kind == "single":
            return 0
        return list(self.env.possible_agents).index(agent_id)

    def _evaluate(self, obs, actions, agent_of):
        """log-probs, entropies and values of ``actions``, each row through its agent's policy."""
        if self.population.mode == "shared":
            return self.population.policy_for(0).evaluate(obs, actions)
        n = len(obs)
        logp = torch.zeros(n, device=self.device)
        ent = torch.zeros(n, device=self.device)
        val = torch.zeros(n, device=self.device)
        for k in range(self.n_agents):
            rows = [i for i, a in enumerate(agent_of) if a == k]
            if rows:
                idx = torch.tensor(rows, device=self.device)
                lp, en, v = self.population.policy_for(k).evaluate([obs[i] for i in rows], actions[idx])
                logp, ent, val = logp.index_put((idx,), lp), ent.index_put((idx,), en), val.index_put((idx,), v.float())
        return logp, ent, val

    # --------------------------------------------------------------------------- evaluation
    @torch.no_grad()
    def evaluate_dev(self) -> dict[str, float]:
        """Greedy success on the fixed dev subset (one attempt per task, agent 0's view for groups)."""
        if self.kind == "single":
            env = self.env.envs[0]
            successes, f1 = [], []
            for i, task_id in enumerate(self.dev_tasks):
                obs, _ = env.reset(seed=10_000 + i, options={"task_id": task_id})
                done = False
                while not done:
                    a, _, _ = self.population.policy_for(0).act([obs], None, greedy=True)
                    obs, _, terminated, truncated, info = env.step(int(a[0]))
                    done = terminated or truncated
                successes.append(float(info["success"]))
                f1.append(float(info["score"]["f1"]))
            return {"dev_success": float(np.mean(successes)), "dev_f1": float(np.mean(f1))}
        _, stats = collect_parallel(self.env, self.population, self.dev_tasks, 1, None, 10_000, greedy=True,
                                    group_by="episode")
        return {"dev_success": stats.success_rate}

    # ------------------------------------------------------------------------------ the loop
    def train(self, progress: bool = True) -> TrainState:
        """Iterate until the budget is spent (resuming where a checkpoint left off)."""
        cfg = self.config
        bar = tqdm(total=cfg.budget, initial=min(self.state.env_steps, cfg.budget), desc=f"{cfg.estimator}",
                   disable=not progress, unit="step", leave=False)
        if self.state.iteration == 0:
            self._log({"iteration": 0, "step": 0, **self.evaluate_dev()})
        while self.state.env_steps < cfg.budget:
            row = self.iterate()
            bar.update(min(row["env_steps_this_iteration"], cfg.budget - bar.n))
            bar.set_postfix(dev=row.get("dev_success", float("nan")), train=round(row["train_success"], 2))
        bar.close()
        return self.state

    def iterate(self) -> dict[str, Any]:
        """One iteration: rollouts, advantages, update, (dev evaluation), checkpoint, log row."""
        cfg = self.config
        start = time.perf_counter()
        task_ids = [self.train_tasks[i] for i in self.rng.integers(len(self.train_tasks), size=cfg.tasks_per_iteration)]
        seed = cfg.seed * 1_000_003 + self.state.iteration * 10_007
        groups, rollout = self.collect(task_ids, seed)
        stats = self.update(groups)
        self.state.iteration += 1
        self.state.env_steps += rollout.env_steps
        elapsed = time.perf_counter() - start
        self.state.wall_seconds += elapsed
        row = {"iteration": self.state.iteration, "step": self.state.env_steps,
               "env_steps_this_iteration": rollout.env_steps, "train_success": rollout.success_rate,
               "steps_per_s": rollout.env_steps / max(elapsed, 1e-9), **stats}
        if self.state.iteration % cfg.eval_every == 0 or self.state.env_steps >= cfg.budget:
            row.update(self.evaluate_dev())
        self.save()
        self._log(row)
        return row

    def _log(self, row: dict) -> None:
        row = {k: (float(v) if isinstance(v, (np.floating, np.integer)) else v) for k, v in row.items()}
        if self.log_fn is not None:
            self.log_fn(row)
        elif self.out_dir is not None:
            append_jsonl(self.out_dir / "metrics.jsonl", row)

    # --------------------------------------------------------------------------- checkpoints
    def state_dict(self) -> dict[str, Any]:
        return {
            "config": asdict(self.config),
            "population": self.population.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "calibrator": self.calibrator.state_dict() if hasattr(self.calibrator, "state_dict") else None,
            "rng": self.rng.bit_generator.state,
            "generator": self.generator.get_state(),
            "state": asdict(self.state),
        }

    def save(self) -> None:
        """Write ``checkpoint.pt`` atomically (temp file + rename): a crash never leaves half a file."""
        if self.out_dir is None:
            return
        atomic_torch_save(self.out_dir / "checkpoint.pt", self.state_dict())

    def load(self, path: str | Path) -> None:
        blob = torch.load(path, map_location=self.device, weights_only=False)
        self.population.load_state_dict(blob["population"])
        self.optimizer.load_state_dict(blob["optimizer"])
        if blob.get("calibrator") is not None and hasattr(self.calibrator, "load_state_dict"):
            self.calibrator.load_state_dict(blob["calibrator"])
        self.rng.bit_generator.state = blob["rng"]
        self.generator.set_state(blob["generator"])
        self.state = TrainState(**blob["state"])


# ----------------------------------------------------------------------------- harness glue
class PolicyActor:
    """Greedy deployment of a trained population for the harness's evaluation (both env kinds)."""

    def __init__(self, population: Population, agents: list[str] | None = None) -> None:
        self.population = population
        self.index = {a: k for k, a in enumerate(agents or [])}

    @torch.no_grad()
    def act(self, env, observation, info):
        if isinstance(observation, dict) and "action_mask" not in observation:  # parallel: {agent: obs}
            agents = list(observation)
            from .rollout import act_batch

            actions, _, _ = act_batch(self.population, [observation[a] for a in agents],
                                      [self.index.get(a, 0) for a in agents], None, greedy=True)
            return {a: int(actions[i]) for i, a in enumerate(agents)}
        actions, _, _ = self.population.policy_for(0).act([observation], None, greedy=True)
        return int(actions[0])


def config_from_context(ctx, estimator: str, **overrides: Any) -> TrainConfig:
    """A TrainConfig for a harness run: the suite's env and kwargs, the run's seed, budget, device."""
    suite = ctx.suite
    env_kwargs = {**suite.kwargs, "world_seed": suite.world_seed, "world_size": suite.world_size,
                  "families": list(suite.families) if suite.families is not None else None,
                  "difficulty": suite.difficulty}
    options = dict(ctx.options)
    fields = {k: options.pop(k) for k in list(options) if k in TrainConfig.__dataclass_fields__}
    return TrainConfig(env_id=suite.env_id, env_kwargs=env_kwargs, estimator=estimator, policy=ctx.policy,
                       budget=ctx.budget, seed=ctx.seed, device=ctx.device, **{**overrides, **fields})


def run_harness(ctx, estimator: str, **overrides: Any) -> PolicyActor:
    """Train with ``estimator`` under the harness's RunContext (resuming from its checkpoint dir)."""
    torch.set_num_threads(max(1, int(getattr(ctx, "threads", 1))))
    dev = [t.id for t in ctx.tasks("dev")]  # the suite's own dev tasks, so curves match the harness's evaluation
    trainer = Trainer(config_from_context(ctx, estimator, **overrides), out_dir=ctx.checkpoint_dir, log=ctx.log,
                      dev_tasks=dev)
    trainer.train(progress=ctx.progress)
    agents = list(trainer.env.possible_agents) if trainer.kind == "parallel" else None
    return PolicyActor(trainer.population, agents)


def harness_method(ctx) -> PolicyActor:
    """``cw_grpo`` for ``searchgym compare``: CW-GRPO with the round-contribution estimator."""
    return run_harness(ctx, "cw_round")
