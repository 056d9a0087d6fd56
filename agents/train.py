"""Training: group-relative policy optimisation with any advantage estimator (CW-GRPO by default).

One iteration (:meth:`Trainer.iterate`):

1. draw ``tasks_per_iteration`` train tasks with the run's generator;
2. roll out a group of ``group_size`` attempts per task (``rollout.py``);
3. :meth:`Trainer.update`, which reads top to bottom: advantages with the estimator (``cw_round``
   = CW-GRPO round contribution, ``cw_value``, ``grpo``, ``dr_grpo``, ``gae``, ...), then the
   calibration flags; then ``update_epochs`` epochs of the policy loss (``LossConfig.policy_loss``:
   PPO clip by default, the entropy bonus, the KL penalty to the starting weights when ``loss.kl_coef``
   > 0, the configured aggregation), one optimiser step per minibatch (``minibatch_size``; None: the
   whole batch); the value head for ``value_epochs`` when the method fits one; the logged numbers;
4. every ``eval_every`` iterations, dev success on a fixed subset; the row, then a checkpoint
   (``trainer_base``: weights, optimiser, calibration, generators), so a resumed run goes on exactly.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import gymnasium as gym
import numpy as np
import torch

import searchgym
from searchgym.fileio import iter_jsonl
from searchgym.registry import spec as env_spec

from .advantages import AdvantageConfig, AdvantageResult, compute_advantages
from .calibration import CalibrationConfig, Calibrator
from .encoders import resolve_device
from .imitation import SFTConfig
from .losses import LossConfig, fit_value, policy_loss
from .population import POPULATION_MODES, Population
from .reference import ReferencePolicy, evaluate_with_kl
from .rl_tasks import check_rl_task_options, rl_train_tasks
from .policy_actor import DECODINGS, DEV_DECODING_SEED
from .sft_base import load_base_into
from .rollout import RolloutStats, collect_parallel, collect_vector, evaluate_single
from .config_checks import check_run_numbers, check_update_settings
from .dynamic_sampling import check_dynamic_sampling, collect_iteration
from .trainer_base import METRICS, TrainerBase, TrainState
from .update_batch import UpdateBatch

#: Step-0 dev scores by (env, dev tasks, initial weights); see ``Trainer._start_point``.
_START_POINTS: dict[tuple, dict[str, float]] = {}
INITS = ("scratch", "sft")  # where a run's policy starts: its seeded initial weights, or the supervised base


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
    minibatch_size: int | None = None  # steps per optimiser step (None: the whole batch); shared update only
    max_grad_norm: float = 1.0
    advantage: AdvantageConfig = field(default_factory=AdvantageConfig)
    loss: LossConfig = field(default_factory=LossConfig)
    calibration: CalibrationConfig = field(default_factory=CalibrationConfig)
    rl_tasks: int | None = None  # RL on this many train tasks (one seeded draw per seed); None: all of them
    rl_fresh_tasks: bool = False  # init=sft: RL only on the train tasks the base was not shown (before rl_tasks)
    eval_every: int = 5
    eval_tasks: int | None = None  # dev tasks of the curve (None: all the env's or the suite's dev tasks)
    value_head: bool = False  # fit the policy's value head (estimators that read values need it)
    method: dict[str, Any] = field(default_factory=dict)  # options of a Trainer subclass (MAPPO, COMA, ...)
    seed: int = 0
    device: str = "auto"
    rollout_workers: int = 0  # >= 1: rollouts on that many Ray actors (rollout_workers.py); 0: in process
    decoding: str = "sample"  # how the dev curve and the deployed policy act: see DECODINGS
    rollout_temperature: float = 1.0  # rollouts sample, and updates score, softmax(logits / T); dev and test at 1
    dynamic_sampling: int = 0  # up to this many more task draws per iteration, keeping groups with signal (DAPO)
    group_by: str = "auto"  # team envs: "role" (each agent across a task's G episodes) or "team" (all pooled)
    init: str = "scratch"  # "sft": the policy starts from the supervised base (see searchgym.harness.sft)
    init_checkpoint: str | None = None  # the base's file, set by the harness when init="sft"
    train_task_ids: list[str] | None = None  # the suite's capped train split, set by the harness (None: the env's)
    sft: SFTConfig = field(default_factory=SFTConfig)  # how that base is built (sft_tasks, sft_demonstrator, ...)

    def __post_init__(self) -> None:
        from .advantages import ADVANTAGE_ESTIMATORS

        if self.decoding not in DECODINGS:
            raise ValueError(f"unknown decoding {self.decoding!r}; accepted: {', '.join(DECODINGS)}")
        if type(self.rollout_temperature) not in (int, float) or not 0 < self.rollout_temperature < math.inf:
            raise ValueError(f"rollout_temperature must be a number > 0 (1: sample from the policy itself); "
                             f"got {self.rollout_temperature!r}")
        if self.estimator not in ADVANTAGE_ESTIMATORS:
            raise ValueError(f"unknown estimator {self.estimator!r}; accepted: {sorted(ADVANTAGE_ESTIMATORS)}")
        if ADVANTAGE_ESTIMATORS[self.estimator].needs_values and not self.value_head:
            raise ValueError(f"estimator {self.estimator!r} reads values: set value_head=True (a method that uses it "
                             "must fit a value head or a critic)")
        if self.minibatch_size is not None and self.minibatch_size < 1:
            raise ValueError(f"minibatch_size must be >= 1 steps, or None for the whole batch; got {self.minibatch_size}")
        if self.init not in INITS:
            raise ValueError(f"unknown init {self.init!r}; accepted: {', '.join(INITS)}")
        check_rl_task_options(self)
        check_run_numbers(self)
        check_update_settings(self, POPULATION_MODES)
        for section, kind in (("advantage", AdvantageConfig), ("loss", LossConfig), ("calibration", CalibrationConfig),
                              ("sft", SFTConfig)):
            value = getattr(self, section)
            if isinstance(value, dict):  # a checkpoint's or config.json's asdict() form
                setattr(self, section, kind(**value))
        if self.group_by not in ("auto", "role", "team"):
            raise ValueError(f"unknown group_by {self.group_by!r}; accepted: auto, role, team")
        if self.group_by != "auto" and env_spec(self.env_id).kind != "parallel":
            raise ValueError(f"group_by={self.group_by!r} groups the agents of a team; {self.env_id} has one agent "
                             "(use group_by='auto')")


class Trainer(TrainerBase):
    """Owns the env, the population, the optimiser and the generators of one run."""

    #: centralised critics (MAPPO, COMA) set this: rollouts then store env.state() and the others' actions
    record_state: bool = False

    #: the dataclass of ``config.method`` for subclasses that have options of their own
    method_config_type: type | None = None

    def __init__(self, config: TrainConfig, out_dir: str | Path | None = None,
                 log: Callable[[dict], None] | None = None, dev_tasks: list[str] | None = None,
                 strict_resume: bool = False) -> None:
        if self.method_config_type is None and config.method:
            raise ValueError(f"{type(self).__name__} takes no method options; got {sorted(config.method)}")
        if config.minibatch_size is not None and type(self).update is not Trainer.update:
            raise ValueError(f"{type(self).__name__} writes its own update on full batches; minibatch_size is "
                             "read by the shared Trainer's update only (leave it None)")
        self.config = config
        check_dynamic_sampling(self, Trainer.update)
        self.init_output(out_dir, log, strict_resume)
        self.device, self.kind = resolve_device(config.device), env_spec(config.env_id).kind
        self.env = self._make_env()
        # Parallel envs: one copy (sharing the world and tools) per episode of an iteration, so that every
        # episode of the iteration is played together and each policy batch holds all their live agents.
        episodes = config.tasks_per_iteration * self._episodes_per_task() if self.kind == "parallel" else 1
        self.envs = [self.env] + [self._make_env() for _ in range(episodes - 1)]
        self.n_agents = 1 if self.kind == "single" else len(self.env.possible_agents)
        self.population = Population.build(config.population_mode, self.n_agents, encoder=config.policy,
                                           device=self.device, seed=config.seed, **config.policy_kwargs)
        if config.init == "sft":  # a resumed run's checkpoint then replaces these weights
            load_base_into(self.population, config.init_checkpoint, config.policy)
        self.optimizer = torch.optim.Adam(self.population.parameters(), lr=config.lr)
        self.calibrator = Calibrator(config.calibration)
        self.rng = np.random.default_rng(config.seed)
        self.generator = torch.Generator().manual_seed(config.seed)
        self.state = TrainState()
        self.reference: ReferencePolicy | None = None  # pi_ref of the KL term (kl_coef > 0), set at the first update
        self.train_tasks = rl_train_tasks(self._task_picker(), config)
        dev = [t.id for t in self._task_picker().tasks("dev")]
        self.dev_tasks = (list(dev_tasks) if dev_tasks else dev)[: config.eval_tasks]
        self.resume()

    @property
    def progress_label(self) -> str:
        return self.config.estimator

    # ------------------------------------------------------------------------- env access
    def _make_env(self):
        if self.kind == "single":
            factory = lambda: searchgym.make(self.config.env_id, **self.config.env_kwargs).unwrapped  # noqa: E731
            return gym.vector.SyncVectorEnv([factory for _ in range(self.config.group_size)])
        return searchgym.make(self.config.env_id, **self.config.env_kwargs)

    def _episodes_per_task(self) -> int:
        """One episode per task for envs whose agents are the group (GroupSearchEnv), else ``group_size``."""
        return 1 if self.env.metadata.get("group_by") == "episode" else self.config.group_size

    def _first_env(self):
        return self.env.envs[0] if self.kind == "single" else self.env

    def _task_picker(self):
        return self._first_env().tasks

    def _agent_index(self, agent_id: str) -> int:
        if self.kind == "single":
            return 0
        return list(self.env.possible_agents).index(agent_id)

    # ----------------------------------------------------------------------------- rollouts
    def collect(self, task_ids: list[str], seed: int, greedy: bool = False) -> tuple[list, RolloutStats]:
        if self.config.rollout_workers and not greedy:  # Ray actors, per-task generators (rollout_workers.py)
            from .rollout_workers import collect_with_workers

            return collect_with_workers(self, task_ids, seed)
        generator = None if greedy else self.generator
        if self.kind == "single":
            return collect_vector(self.env, self.population, task_ids, generator, seed, greedy)
        return collect_parallel(self.envs, self.population, task_ids, self._episodes_per_task(), generator, seed, greedy,
                                group_by=self.config.group_by, record_state=self.record_state)

    # ------------------------------------------------------------------------------- update
    def update(self, groups: list) -> dict[str, float]:
        """advantages -> calibration -> policy loss (per epoch, per minibatch) -> optimiser step
        -> value head -> the logged numbers."""
        cfg = self.config
        annotated = self.annotate(groups)
        result, stats = self.calibrated_advantages(groups)
        batch = UpdateBatch.build(result, [self._agent_index(t.agent_id) for t in result.trajectories for _ in t.steps],
                                  np.concatenate([t.values for g in groups for t in g]), self.device)
        for _ in range(cfg.update_epochs):
            for rows in self.minibatches(len(batch)):
                loss, loss_stats = self.surrogate_loss(batch if rows is None else batch.select(rows))
                self.actor_step(loss)
                stats.update(loss_stats)
        if cfg.value_head:
            stats.update(self.fit_value_heads(batch))
        return {**stats, **annotated}

    def annotate(self, groups: list) -> dict[str, float]:
        """Write onto the steps what the estimator reads beyond the rollout (a hook: InfoGainTrainer
        writes the gold mass); returns numbers to log. Here: nothing."""
        return {}

    def calibrated_advantages(self, groups: list) -> tuple[AdvantageResult, dict[str, float]]:
        """The estimator's advantages and value targets, then the calibration flags; their stats."""
        cfg = self.config
        if cfg.value_head and cfg.calibration.normalize_returns:
            groups = self._denormalised(groups)
        result = compute_advantages(cfg.estimator, groups, cfg.advantage)
        result, calib_stats = self.calibrator.apply(result)
        return result, {**result.stats, **calib_stats}

    def minibatches(self, n: int) -> list[list[int] | None]:
        """The row sets of one epoch: ``[None]`` (the whole batch) unless ``minibatch_size`` < n steps,
        then consecutive slices of a permutation drawn from the run's generator."""
        size = self.config.minibatch_size
        if size is None or size >= n:
            return [None]
        order = torch.randperm(n, generator=self.generator).tolist()
        return [order[j:j + size] for j in range(0, n, size)]

    def surrogate_loss(self, batch: UpdateBatch) -> tuple[torch.Tensor, dict[str, float]]:
        """The configured policy loss (with the entropy bonus, and the KL penalty when ``loss.kl_coef`` > 0)
        of the current policy on ``batch``."""
        new_logp, entropy, _, kl = self._evaluate_kl(batch.obs, batch.actions, batch.agent_of)
        return policy_loss(new_logp, batch.old_log_probs, batch.advantages, entropy, batch.seq_ids, self.config.loss,
                           kl=kl)

    def _evaluate_kl(self, obs, actions, agent_of):
        """``_evaluate``'s log-probs, entropies and values, and each row's KL(pi || pi_ref); the KL
        is None (and nothing else is computed) when ``loss.kl_coef`` is 0."""
        if self.config.loss.kl_coef == 0:
            return (*self._evaluate(obs, actions, agent_of), None)
        if self.reference is None:
            if self.state.iteration > 0:
                raise ValueError("loss.kl_coef > 0 needs the reference policy of the run's start, and this run's "
                                 "checkpoint has none (it was trained with kl_coef=0): start a new run, or keep kl_coef=0")
            self.reference = ReferencePolicy(self.population)  # the weights training starts from
        return evaluate_with_kl(self.population, self.reference, obs, actions, self._rows_by_member(agent_of),
                                self.device)

    def actor_step(self, loss: torch.Tensor) -> None:
        """One optimiser step of the population on ``loss``, gradients clipped to ``max_grad_norm``."""
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.population.parameters(), self.config.max_grad_norm)
        self.optimizer.step()

    def fit_value_heads(self, batch: UpdateBatch) -> dict[str, float]:
        """Each member's value head on the steps of the agents it plays (``fit_value``'s epochs)."""
        stats: dict[str, float] = {}
        for k, rows in self._rows_by_member(batch.agent_of):
            part = batch.select(rows)
            stats.update(fit_value(self.population.policy_for(k), self.optimizer, part.obs, part.returns,
                                   part.old_values, part.seq_ids, self.config.loss))
        return stats

    def _rows_by_member(self, agent_of: list[int]) -> list[tuple[int, list[int]]]:
        """(agent index, its rows) per member policy: one entry for a shared population."""
        if self.population.mode == "shared":
            return [(0, list(range(len(agent_of))))]
        by_agent = [(k, [i for i, a in enumerate(agent_of) if a == k]) for k in range(self.n_agents)]
        return [(k, rows) for k, rows in by_agent if rows]

    def _denormalised(self, groups: list) -> list:
        """The groups with each step's stored value mapped back to return scale: with return
        normalisation the value head predicts normalised returns, and GAE needs real ones."""
        return [[replace(traj, steps=[replace(step, value=float(value)) for step, value in
                                      zip(traj.steps, self.calibrator.denormalize_values(traj.values))])
                 for traj in group] for group in groups]

    def _evaluate(self, obs, actions, agent_of):
        """log-probs, entropies and values of ``actions``, each row through its agent's policy."""
        if self.population.mode == "shared":
            return self.population.policy_for(0).evaluate(obs, actions)
        n = len(obs)
        logp = torch.zeros(n, device=self.device)
        ent = torch.zeros(n, device=self.device)
        val = torch.zeros(n, device=self.device)
        for k, rows in self._rows_by_member(agent_of):
            idx = torch.tensor(rows, device=self.device)
            lp, en, v = self.population.policy_for(k).evaluate([obs[i] for i in rows], actions[idx])
            logp, ent, val = logp.index_put((idx,), lp), ent.index_put((idx,), en), val.index_put((idx,), v.float())
        return logp, ent, val

    # --------------------------------------------------------------------------- evaluation
    @torch.no_grad()
    def evaluate_dev(self) -> dict[str, float]:
        """Success on the fixed dev subset (one attempt per task, agent 0's view for groups), decoded
        as ``config.decoding`` says (sampling from a generator seeded alike at every evaluation),
        played one task per env at a time with one policy batch per step."""
        greedy = self.config.decoding == "greedy"
        generator = None if greedy else torch.Generator().manual_seed(DEV_DECODING_SEED)
        if self.kind == "single":
            finals = evaluate_single(self.env.envs, self.population, self.dev_tasks, 10_000, generator)
            return {"dev_success": float(np.mean([float(f["success"]) for f in finals])),
                    "dev_f1": float(np.mean([float(f["score"]["f1"]) for f in finals]))}
        _, stats = collect_parallel(self.envs, self.population, self.dev_tasks, 1, generator, 10_000, greedy=greedy,
                                    group_by="episode")
        return {"dev_success": stats.success_rate}

    # ------------------------------------------------------------------------------ the loop
    def log_start_point(self) -> None:
        """The curve's step-0 row, unless this run's curve already holds it."""
        if self.state.iteration == 0 and not self._has_start_point():
            self._log({"iteration": 0, "step": 0, **self._start_point()})

    def _has_start_point(self) -> bool:
        """Does this run's curve already hold its step-0 dev point (a run resumed before its first
        checkpoint)? Then it is not evaluated again."""
        if self.log_fn is not None or self.out_dir is None or not (self.out_dir / METRICS).exists():
            return False
        return any(row.get("step") == 0 and "dev_success" in row for row in iter_jsonl(self.out_dir / METRICS))

    def _start_point(self) -> dict[str, float]:
        """Dev scores of the untrained population, evaluated once per process for runs from the same weights, env
        and dev tasks (estimators compared on one seed): dev evaluation is deterministic."""
        digest = hashlib.sha256()
        for name, tensor in self.population.state_dict().items():
            digest.update(name.encode())
            digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
        key = (self.config.env_id, json.dumps(self.config.env_kwargs, sort_keys=True, default=str),
               tuple(self.dev_tasks), self.config.decoding, digest.hexdigest())
        if key not in _START_POINTS:
            _START_POINTS[key] = self.evaluate_dev()
        return dict(_START_POINTS[key])

    def train_iteration(self) -> dict[str, Any]:
        return self.iterate()

    def iterate(self) -> dict[str, Any]:
        """One iteration: rollouts, update, (dev evaluation), then the row and the checkpoint."""
        cfg = self.config
        start = time.perf_counter()
        task_ids = [self.train_tasks[i] for i in self.rng.integers(len(self.train_tasks), size=cfg.tasks_per_iteration)]
        seed = cfg.seed * 1_000_003 + self.state.iteration * 10_007
        with self.population.sampling_temperature(cfg.rollout_temperature):  # the dev curve below acts at 1
            groups, rollout, drawn = collect_iteration(self, task_ids, seed)
            stats = {**(self.update(groups) if groups else {}), **drawn}
        self.state.iteration += 1
        self.state.env_steps += rollout.env_steps
        elapsed = time.perf_counter() - start
        self.state.wall_seconds += elapsed
        row = {"iteration": self.state.iteration, "step": self.state.env_steps,
               "env_steps_this_iteration": rollout.env_steps, "train_success": rollout.success_rate,
               "steps_per_s": rollout.env_steps / max(elapsed, 1e-9), **stats}
        if self.state.iteration % cfg.eval_every == 0 or self.state.env_steps >= cfg.budget:
            row.update(self.evaluate_dev())
        self.finish_iteration(row)
        return row

    # --------------------------------------------------------------------------- checkpoints
    def state_dict(self) -> dict[str, Any]:
        return {
            "config": self.config_record(),
            "population": self.population.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "calibrator": self.calibrator.state_dict() if hasattr(self.calibrator, "state_dict") else None,
            "rng": self.rng.bit_generator.state,
            "generator": self.generator.get_state(),
            "state": asdict(self.state),
            **({"reference": self.reference.state_dict()} if self.reference is not None else {}),
        }

    def load_state_dict(self, blob: dict[str, Any]) -> None:
        self.population.load_state_dict(blob["population"])
        self.optimizer.load_state_dict(blob["optimizer"])
        if blob.get("calibrator") is not None and hasattr(self.calibrator, "load_state_dict"):
            self.calibrator.load_state_dict(blob["calibrator"])
        self.rng.bit_generator.state = blob["rng"]
        self.generator.set_state(blob["generator"].cpu())  # a CPU tensor; map_location=cuda put it on the GPU
        self.state = TrainState(**blob["state"])
        if "reference" in blob:
            self.reference = ReferencePolicy(self.population)
            self.reference.load_state_dict(blob["reference"])
