"""Dr.GRPO (Liu et al. 2025, "Understanding R1-Zero-Like Training") as a harness method.

Dr.GRPO removes GRPO's two normalisations that bias optimisation:

- no std division: the registry's ``"dr_grpo"`` estimator, A_i = R_i - mean(R) over the group
  (zero-variance groups still counted: ``groups/zero_variance_fraction``);
- no per-sequence length normalisation: aggregation ``"seq-mean-token-sum-norm"``,
  mean_i (sum_t l_{i,t} / L) with a constant L = the env's step limit per agent (``max_steps``;
  ``max_rounds`` for a team), so a long failing trajectory is not penalised less per step.

Everything else is the shared Trainer's (as for ``cw_grpo`` and ``grpo``); no KL term.
"""

from __future__ import annotations

from typing import Any

from searchgym.agents.losses import LossConfig
from searchgym.agents.train import PolicyActor, run_harness

DR_GRPO_AGGREGATION = "seq-mean-token-sum-norm"


def env_step_limit(ctx) -> int:
    """The most decisions one agent makes in an episode of the suite's env (its ``max_steps``)."""
    env = ctx.make_env("train")
    base = getattr(env, "unwrapped", env)
    config = getattr(base, "config", None)
    if config is None or not getattr(config, "max_steps", None):
        raise ValueError(f"cannot read the step limit of {type(base).__name__} (expected env.config.max_steps); "
                         "pass options={'loss': LossConfig(aggregation=..., norm_length=L)} instead")
    return int(config.max_steps)


def dr_grpo_loss(norm_length: int, **overrides: Any) -> LossConfig:
    """The shared LossConfig with Dr.GRPO's constant-length aggregation."""
    return LossConfig(**{"aggregation": DR_GRPO_AGGREGATION, "norm_length": int(norm_length), **overrides})


def harness_method(ctx) -> PolicyActor:
    """``dr_grpo`` for ``searchgym compare`` / ``searchgym train``."""
    return run_harness(ctx, "dr_grpo", loss=dr_grpo_loss(env_step_limit(ctx)))
