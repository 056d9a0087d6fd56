"""GRPO (Shao et al. 2024, DeepSeekMath) as a harness method on the shared Trainer.

What makes it GRPO, and nothing else (rollouts, policy, PPO clip, entropy bonus, epochs and
optimiser are the shared Trainer's, exactly as for ``cw_grpo``):

- advantages: the registry's ``"grpo"`` estimator, A_i = (R_i - mean(R)) / (std(R) + eps) over
  the group, broadcast over the agent's steps; std is the unbiased one (ddof=1), eps = 1e-6
  (``AdvantageConfig.eps``). A group whose returns are all equal gets A = 0 and is counted:
  ``groups/zero_variance_fraction`` in every logged row.
- loss aggregation: ``"seq-mean-token-mean"``, the paper's 1/G sum_i 1/|o_i| sum_t.
- no KL penalty to a reference policy: the policies here are trained from scratch (there is no
  pretrained reference to stay close to), as in Dr.GRPO and DAPO.

Works on every env kind the Trainer supports: ``SearchEnv`` (a group = ``group_size`` copies of
the env on one task), ``GroupSearchEnv`` and ``TeamSearchEnv`` (a group = one agent's attempts).
"""

from __future__ import annotations

from typing import Any

from searchgym.agents.losses import LossConfig
from searchgym.agents.train import PolicyActor, run_harness

GRPO_AGGREGATION = "seq-mean-token-mean"


def grpo_loss(**overrides: Any) -> LossConfig:
    """The shared LossConfig with GRPO's per-sequence mean aggregation."""
    return LossConfig(**{"aggregation": GRPO_AGGREGATION, **overrides})


def harness_method(ctx) -> PolicyActor:
    """``grpo`` for ``searchgym compare`` / ``searchgym train``."""
    return run_harness(ctx, "grpo", loss=grpo_loss())
