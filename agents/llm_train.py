"""Token-level (CW-)GRPO for a text-generating LLM on the text-mode envs; resumable.

One iteration:

1. draw ``tasks_per_iteration`` train tasks with the run's generator;
2. roll out ``group_size`` episodes per task (``llm_rollout``: multi-turn, tools in the chat
   template, tool results as tool messages); a team env gives each role its own groups;
3. advantages per round with the method's estimator (its record in the one method table,
   :mod:`searchgym.method_table`: ``cw_grpo`` -> ``cw_round``, ``grpo``, ``dr_grpo``, ...), the
   process judge's per-turn signals supplying CW-GRPO's contributions; each generated token
   takes its turn's advantage;
4. the behaviour log-probs (and the frozen reference's, with ``kl_coef`` > 0) in a no-grad pass,
   then ``update_epochs`` passes of token-level PPO (``llm_losses``) in mini-batches of
   ``mini_batch_size`` sequences (micro-batches of ``micro_batch_size`` per forward pass);
5. every ``eval_every`` iterations, greedy success on a fixed dev subset; the row, then
   (every ``save_every`` iterations) a checkpoint (weights, optimisers, the generator, counters)
   written atomically (``trainer_base``), so a resumed run makes the same next update as an
   uninterrupted one.

``searchgym train --policy llm`` and ``searchgym compare`` reach it through
:mod:`searchgym.harness.llm_method`.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

import searchgym
from searchgym.fileio import atomic_write_json
from searchgym.method_table import METHOD_SPECS, llm_spec
from searchgym.registry import spec as env_spec

from .advantages import AdvantageConfig, compute_advantages
from .config_checks import check_llm_settings
from .encoders import resolve_device
from .llm_losses import (
    LLMLossConfig,
    TokenBatch,
    first_scored_position,
    make_token_batch,
    mean_entropy,
    stack_per_sequence,
    token_log_probs,
    token_policy_loss,
)
from .llm_policy import (
    GENERATION_BACKENDS,
    LLMPolicy,
    SamplingConfig,
    enable_checkpointing,
    load_model,
)
from .llm_rollout import LLMEpisode, RolloutConfig, collect_llm_parallel, collect_llm_single
from .llm_run_checks import check_generation_backend, check_grouping
from .train_split import check_train_task_ids, config_record, train_split_ids
from .trainer_base import TrainerBase, TrainState

TEAM_MODES = ("shared", "separate")


@dataclass
class LLMTrainConfig:
    """Everything that defines an LLM training run (saved in config.json and the checkpoint)."""

    model: str = "random:tiny"  # a local path or hub id, or "random:tiny" / "random:qwen2-0.5b"
    env_id: str = "SearchQA-v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    method: str = "cw_grpo"  # a record of searchgym.method_table.METHOD_SPECS that the LLM trainer supports
    group_by: str | None = None  # parallel envs: "auto" or "role" (None: the method's default)
    team_mode: str = "shared"  # parallel envs: one model with role prompts, or one model per role
    group_size: int = 4  # episodes per task
    tasks_per_iteration: int = 2
    budget: int = 1_000  # env steps: every assistant turn of every agent counts
    lr: float = 1e-6
    update_epochs: int = 1
    mini_batch_size: int | None = None  # sequences per optimiser step (None: the whole batch)
    micro_batch_size: int = 4  # sequences per forward pass
    max_grad_norm: float = 1.0
    temperature: float = 1.0
    top_p: float = 1.0
    rollout: RolloutConfig = field(default_factory=RolloutConfig)
    loss: LLMLossConfig | None = None  # None: the method's aggregation, norm_length = max_episode_tokens
    advantage: AdvantageConfig = field(default_factory=AdvantageConfig)
    eval_every: int = 5
    eval_tasks: int = 16
    save_every: int = 1
    seed: int = 0
    device: str = "auto"
    dtype: str = "auto"
    gradient_checkpointing: bool = False
    log_entropy: bool = True
    generation_backend: str = "transformers"  # "kv": a cache across turns; "vllm" (experimental, GPU)
    shared_prefix: bool = False  # the log-prob passes run the rows' common prompt once, no grad (CPU speed)
    vllm_gpu_memory: float = 0.35  # the share of GPU memory vLLM may take (the trainer needs the rest)
    train_task_ids: list[str] | None = None  # the suite's capped train split, set by the harness (None: the env's)

    def __post_init__(self) -> None:
        spec = llm_spec(self.method)
        if self.group_by is None:
            self.group_by = str(spec.defaults.get("group_by", "auto"))
        if self.group_by not in ("auto", "role"):
            raise ValueError(f"group_by must be 'auto' or 'role' for the LLM trainer, got {self.group_by!r}")
        if self.generation_backend not in GENERATION_BACKENDS:
            raise ValueError(f"generation_backend must be one of {GENERATION_BACKENDS}, got {self.generation_backend!r}")
        if self.team_mode not in TEAM_MODES:
            raise ValueError(f"team_mode must be one of {TEAM_MODES}, got {self.team_mode!r}")
        if self.loss is None:
            self.loss = LLMLossConfig(aggregation=spec.aggregation)
        if self.loss.norm_length is None:
            self.loss.norm_length = self.rollout.max_episode_tokens
        check_llm_settings(self)
        check_train_task_ids(self.train_task_ids)

    @property
    def estimator(self) -> str:
        return METHOD_SPECS[self.method].estimator

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LLMTrainConfig:
        """The inverse of ``dataclasses.asdict`` (nested configs rebuilt; unknown keys are an error)."""
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"unknown LLMTrainConfig field(s) {unknown}; accepted: {sorted(cls.__dataclass_fields__)}")
        nested = {"rollout": RolloutConfig, "loss": LLMLossConfig, "advantage": AdvantageConfig}
        for key, value in data.items():  # before: a bare TypeError ("unexpected keyword argument") for a nested key
            if key in nested and isinstance(value, dict):
                wrong = sorted(set(value) - set(nested[key].__dataclass_fields__))
                if wrong:
                    raise ValueError(f"unknown LLMTrainConfig.{key} field(s) {wrong}; accepted: "
                                     f"{sorted(nested[key].__dataclass_fields__)}")
        return cls(**{k: nested[k](**v) if k in nested and isinstance(v, dict) else v for k, v in data.items()})


@dataclass
class LLMTrainState(TrainState):
    generated_tokens: int = 0


class LLMTrainer(TrainerBase):
    """Owns the envs, the model(s), the optimisers and the generator of one run."""

    def __init__(self, config: LLMTrainConfig, out_dir: str | Path | None = None,
                 log: Callable[[dict], None] | None = None, dev_tasks: list[str] | None = None,
                 strict_resume: bool = False) -> None:
        self.config = config
        self.init_output(out_dir, log, strict_resume)
        self.device = resolve_device(config.device)
        self.kind = env_spec(config.env_id).kind
        self.envs = [self._make_env() for _ in range(config.tasks_per_iteration * config.group_size)]
        first = self.envs[0]
        if first.config.action_mode != "text":
            raise ValueError(f"the LLM policy writes its actions: {config.env_id} is in "
                             f"{first.config.action_mode!r} mode; use a text env (SearchQA-v0, TeamSearch-v0, ...)")
        check_grouping(config, self.kind, first.metadata.get("group_by"))  # train --policy llm: before its folder
        check_generation_backend(config)
        self.agents = ["agent_0"] if self.kind == "single" else list(first.possible_agents)
        sampling = SamplingConfig(config.temperature, config.top_p)
        n_models = len(self.agents) if config.team_mode == "separate" and self.kind != "single" else 1
        self.members: list[LLMPolicy] = []
        for i in range(n_models):
            model, tokenizer = load_model(config.model, self.device, config.dtype, seed=config.seed + i)
            if config.gradient_checkpointing:
                enable_checkpointing(model)  # train mode (dropout is off): checkpointing is active
            self.members.append(LLMPolicy(model, tokenizer, sampling,
                                          backend="kv" if config.generation_backend == "kv" else "transformers"))
        self.policies = {a: self.members[i if n_models > 1 else 0] for i, a in enumerate(self.agents)}
        self.optimizers = [torch.optim.AdamW(m.model.parameters(), lr=config.lr, weight_decay=0.0)
                           for m in self.members]
        self.references = [self._frozen(m.model) for m in self.members] if config.loss.kl_coef > 0 else None
        if config.generation_backend == "vllm":
            self._attach_vllm()
        self.rng = np.random.default_rng(config.seed)
        self.state = LLMTrainState()
        self.train_tasks = train_split_ids(config, first.tasks)  # a suite's capped split, else the env's
        dev = list(dev_tasks) if dev_tasks is not None else [t.id for t in first.tasks.tasks("dev")]
        self.dev_tasks = dev[: config.eval_tasks]  # a suite's run passes its own dev split
        self.resume()

    @property
    def progress_label(self) -> str:
        return f"llm {self.config.method}"

    def _attach_vllm(self) -> None:  # pragma: no cover - needs vLLM and a GPU
        """Generation by vLLM on the same weights (pushed after every update)."""
        from vllm import LLM  # the model and vLLM were checked in __init__ (llm_run_checks)

        for member in self.members:
            member.vllm_engine = LLM(model=self.config.model, seed=self.config.seed, enable_prefix_caching=True,
                                     gpu_memory_utilization=self.config.vllm_gpu_memory, dtype=self.config.dtype,
                                     trust_remote_code=False)  # never a model folder's own code (agents/pretrained.py)
            member.backend = "vllm"

    def _make_env(self):
        env = searchgym.make(self.config.env_id, **self.config.env_kwargs)
        return env.unwrapped if self.kind == "single" else env

    @staticmethod
    def _frozen(model: torch.nn.Module) -> torch.nn.Module:
        reference = copy.deepcopy(model).eval()
        for p in reference.parameters():
            p.requires_grad_(False)
        return reference

    # ---------------------------------------------------------------------------- rollouts
    def collect(self, task_ids: list[str], episodes_per_task: int, greedy: bool = False):
        n = len(task_ids) * episodes_per_task
        while len(self.envs) < n:
            self.envs.append(self._make_env())
        if self.kind == "single":
            return collect_llm_single(self.envs, self.members[0], task_ids, episodes_per_task, self.rng,
                                      self.config.rollout, greedy)
        return collect_llm_parallel(self.envs, self.policies, task_ids, episodes_per_task, self.rng,
                                    self.config.rollout, greedy, group_by=self.config.group_by)

    # ------------------------------------------------------------------------------ update
    def update(self, groups: list[list[LLMEpisode]]) -> dict[str, float]:
        cfg = self.config
        result = compute_advantages(cfg.estimator, [[ep.trajectory() for ep in g] for g in groups], cfg.advantage)
        episodes = [ep for g in groups for ep in g]  # the order of result.trajectories
        stats: dict[str, float] = dict(result.stats)
        for k, member in enumerate(self.members):
            rows = [i for i, ep in enumerate(episodes)
                    if self.policies[ep.agent_id] is member and ep.conversation.generated_tokens > 0]
            if rows:
                member_stats = self._update_member(k, [episodes[i] for i in rows], [result.advantages[i] for i in rows])
                stats.update({f"{key}{'' if len(self.members) == 1 else f'/{self.agents[k]}'}": v
                              for key, v in member_stats.items()})
                if member.backend == "vllm":
                    member.sync_vllm()
                member.reset_cache()
        return stats

    def _micro_batches(self, member, episodes, advantages, rows: list[int]) -> list[TokenBatch]:
        """Padded batches of ``micro_batch_size`` sequences; ``seq_ids`` are the episodes' indices."""
        step, pad = self.config.micro_batch_size, member.tokenizer.pad_token_id
        chunks = [rows[j:j + step] for j in range(0, len(rows), step)]
        return [make_token_batch([episodes[i].conversation.token_ids for i in c],
                                 [episodes[i].conversation.loss_mask for i in c],
                                 [episodes[i].token_advantages(advantages[i]) for i in c], c, pad,
                                 [episodes[i].conversation.allowed for i in c]).to(self.device)
                for c in chunks]

    def _update_member(self, k: int, episodes: list[LLMEpisode], advantages: list[np.ndarray]) -> dict[str, float]:
        cfg, member, optimizer = self.config, self.members[k], self.optimizers[k]
        model = member.model
        everyone, tau = list(range(len(episodes))), cfg.temperature
        start = time.perf_counter()
        old: dict[int, torch.Tensor] = {}
        ref: dict[int, torch.Tensor] = {}
        with torch.no_grad():  # behaviour (= current, before any step) and reference log-probs
            for mb in self._micro_batches(member, episodes, advantages, everyone):
                lengths = mb.attention_mask.sum(1).tolist()
                first = first_scored_position(mb.loss_mask)
                logp, _ = token_log_probs(model, mb.input_ids, mb.attention_mask, first, temperature=tau,
                                          shared_prefix=cfg.shared_prefix, allowed=mb.allowed)
                ref_logp = token_log_probs(self.references[k], mb.input_ids, mb.attention_mask, first,
                                           temperature=tau, shared_prefix=cfg.shared_prefix, allowed=mb.allowed)[0] \
                    if self.references is not None else None
                for i, r in enumerate(mb.seq_ids.tolist()):
                    old[r] = logp[i, : lengths[i] - 1]
                    if ref_logp is not None:
                        ref[r] = ref_logp[i, : lengths[i] - 1]
        size = cfg.mini_batch_size or len(episodes)
        sums: dict[str, float] = {}
        n_micro = 0
        for _ in range(cfg.update_epochs):
            order = [int(i) for i in self.rng.permutation(len(episodes))] if size < len(episodes) else everyone
            for j in range(0, len(order), size):
                micro = self._micro_batches(member, episodes, advantages, order[j:j + size])
                for mb in micro:
                    mb.old_log_probs = stack_per_sequence(old, mb)
                    mb.ref_log_probs = stack_per_sequence(ref, mb) if ref else None
                total_tokens = sum(mb.scored_tokens for mb in micro)
                total_seqs = sum(mb.scored_sequences for mb in micro)
                optimizer.zero_grad(set_to_none=True)
                for mb in micro:
                    logp, entropy = token_log_probs(model, mb.input_ids, mb.attention_mask,
                                                    first_scored_position(mb.loss_mask),
                                                    with_entropy=cfg.loss.entropy_coef > 0, temperature=tau,
                                                    shared_prefix=cfg.shared_prefix, allowed=mb.allowed)
                    loss, mb_stats = token_policy_loss(logp, mb, cfg.loss, total_tokens, total_seqs, entropy)
                    loss.backward()
                    for key, v in mb_stats.items():
                        sums[key] = sums.get(key, 0.0) + v
                    n_micro += 1
                grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
                optimizer.step()
                sums["grad_norm"] = sums.get("grad_norm", 0.0) + float(grad_norm) * len(micro)
        out = {key: v / max(n_micro, 1) for key, v in sums.items()}
        out["tokens/scored"] = float(sum(ep.conversation.generated_tokens for ep in episodes))
        if cfg.loss.entropy_coef == 0:  # the loss saw no entropy: measure it apart (or leave it out)
            out.pop("loss/entropy", None)
            if cfg.log_entropy:
                out["loss/entropy"] = mean_entropy(model, self._micro_batches(member, episodes, advantages, everyone),
                                                   tau)
        out["update_seconds"] = time.perf_counter() - start  # old log-probs, PPO passes, entropy logging
        return out

    # ---------------------------------------------------------------------------- evaluation
    def evaluate_dev(self) -> dict[str, float]:
        """Greedy success and mean return on the fixed dev subset (one episode per task)."""
        if not self.dev_tasks:
            return {}
        successes, returns = [], []
        chunk = len(self.envs)
        for j in range(0, len(self.dev_tasks), chunk):
            groups, stats = self.collect(self.dev_tasks[j:j + chunk], 1, greedy=True)
            successes.append(stats.successes)
            returns += [ep.final_return for g in groups for ep in g]
        return {"dev_success": sum(successes) / len(self.dev_tasks), "dev_return": float(np.mean(returns))}

    # ------------------------------------------------------------------------------ the loop
    def iterate(self) -> dict[str, Any]:
        """One collect + update; returns the metrics row."""
        cfg = self.config
        start = time.perf_counter()
        picks = self.rng.integers(len(self.train_tasks), size=cfg.tasks_per_iteration)
        task_ids = [self.train_tasks[int(i)] for i in picks]
        groups, rollout = self.collect(task_ids, cfg.group_size)
        rollout_seconds = time.perf_counter() - start
        generated = sum(ep.conversation.generated_tokens for g in groups for ep in g)
        stats = self.update(groups)
        elapsed = time.perf_counter() - start
        self.state.iteration += 1
        self.state.env_steps += rollout.env_steps
        self.state.generated_tokens += generated
        self.state.wall_seconds += elapsed
        returns = [ep.final_return for g in groups for ep in g]
        return {"iteration": self.state.iteration, "step": self.state.env_steps, "train_success": rollout.success_rate,
                "train_return": float(np.mean(returns)), "generated_tokens": generated,
                "generate_tokens_per_s": generated / max(rollout_seconds, 1e-9), "rollout_seconds": rollout_seconds,
                "steps_per_s": rollout.env_steps / max(elapsed, 1e-9),
                "budget_truncated": float(np.mean([ep.budget_truncated for g in groups for ep in g])), **stats}

    def log_start_point(self) -> None:
        if self.state.iteration == 0 and self.config.eval_tasks > 0:
            self._log({"iteration": 0, "step": 0, **self.evaluate_dev()})

    def train_iteration(self) -> dict[str, Any]:
        """:meth:`iterate`, the dev evaluation when due, then the row and (every ``save_every``) the checkpoint."""
        cfg = self.config
        row = self.iterate()
        last = self.state.env_steps >= cfg.budget
        if cfg.eval_tasks > 0 and (self.state.iteration % cfg.eval_every == 0 or last):
            row.update(self.evaluate_dev())
        self.finish_iteration(row, checkpoint=self.state.iteration % cfg.save_every == 0 or last)
        return row

    # --------------------------------------------------------------------------- checkpoints
    def state_dict(self) -> dict[str, Any]:
        return {"config": config_record(self.config), "models": [m.model.state_dict() for m in self.members],
                "optimizers": [o.state_dict() for o in self.optimizers],
                "references": [r.state_dict() for r in self.references] if self.references else None,
                "rng": self.rng.bit_generator.state, "state": asdict(self.state)}

    def save(self) -> None:
        """``checkpoint.pt`` (temp file + rename: a crash never leaves half a file) and config.json."""
        super().save()
        if self.out_dir is not None:
            atomic_write_json(self.out_dir / "config.json", config_record(self.config))

    def load_state_dict(self, blob: dict[str, Any]) -> None:
        if len(blob["models"]) != len(self.members):
            raise ValueError(f"the checkpoint holds {len(blob['models'])} models, this run has {len(self.members)}")
        for member, weights, optimizer, opt_state in zip(self.members, blob["models"], self.optimizers,
                                                         blob["optimizers"]):
            member.model.load_state_dict(weights)
            optimizer.load_state_dict(opt_state)
        if self.references is not None and blob.get("references"):
            for reference, weights in zip(self.references, blob["references"]):
                reference.load_state_dict(weights)
        self.rng.bit_generator.state = blob["rng"]
        self.state = LLMTrainState(**blob["state"])
        for member in self.members:
            member.reset_cache()
            if member.backend == "vllm":
                member.sync_vllm()

