"""searchgym.agents: the reference CW-GRPO agent (algorithmic core).

How the pieces fit (a rollout/train loop is built on exactly this):

    import numpy as np, torch
    from searchgym.agents import (Step, Trajectory, AdvantageConfig, compute_advantages,
        CalibrationConfig, Calibrator, LossConfig, policy_loss, fit_value, Population)

    pop = Population.build("shared", n_agents=4, encoder="hash", device="cpu", seed=0)
    gen = torch.Generator().manual_seed(0)          # CPU generator: same draws on any device
    # rollout: agent k sees obs (dict text/candidates/action_mask); act is batched over obs
    policy = pop.policy_for(k)
    a, logp, v = policy.act([obs], gen)             # tensors of shape [1], no grad
    obs_next, reward, terminated, truncated, info = env.step(int(a))   # done = terminated or truncated
    c, u, w = (info["signals"][key] for key in ("contribution", "new_gold", "consistent"))
    step = Step(obs, int(a), float(logp), float(v), reward, done, obs["action_mask"],
                signals={"contribution": c, "new_gold": u, "consistent": w})
    traj = Trajectory(steps, agent_id="agent_0", group_id=task_index, task_id=..., success=...)
    # update: groups = list of lists of trajectories that attempted the same task
    result = compute_advantages("cw_round", groups, AdvantageConfig())
    result, calib_stats = Calibrator(CalibrationConfig()).apply(result)   # keep the Calibrator
    trajs = result.trajectories                     # flattened in group order
    obs_b = [s.obs for t in trajs for s in t.steps]
    actions = torch.as_tensor(np.concatenate([t.actions for t in trajs]))
    old_logp = torch.as_tensor(np.concatenate([t.log_probs for t in trajs]), dtype=torch.float32)
    adv = torch.as_tensor(result.flat_advantages(), dtype=torch.float32)
    seq = torch.as_tensor(result.seq_ids())
    new_logp, entropy, values = policy.evaluate(obs_b, actions)
    loss, stats = policy_loss(new_logp, old_logp, adv, entropy, seq, LossConfig())
    # value head, with the stored Step.value's (arrays or tensors; tests/agents/test_agents_loop.py runs all this):
    old_values = np.array([s.value for t in trajs for s in t.steps])
    fit_value(policy, optimizer, obs_b, result.flat_returns(), old_values, seq, LossConfig())

With "separate" / "shared_trunk" populations, update each member on the steps of the agents it
plays (split `result.trajectories` by `agent_id`). With return normalisation on, map stored
values back with `Calibrator.denormalize_values` before computing GAE.

Observation contract: {"text": str, "candidates": tuple[str, ...] (length N, padded with ""),
"action_mask": int8 array (N,)}; at least one admissible action.

Modules: trajectory (Step, Trajectory), advantages (estimator registry: gae, grpo, dr_grpo,
cw_value, cw_round), calibration (flags applied by Calibrator), losses (policy-loss registry:
ppo_clip with dual clip, pg; clipped value loss), aggregation (the table of loss aggregations),
encoders / encoder_hash / encoder_minilm / encoder_hf,
policy (CandidatePolicy, make_policy), population (Population, best_member, MajorityVote, distill),
rollout (collect_vector for SearchEnv in a Gymnasium vector env, collect_parallel for the group
and the team), train (Trainer, TrainConfig: the loop above with checkpoints; harness_method is
``cw_grpo`` in ``searchgym compare``), and the LLM agents that write their own tool calls:
llm_policy, llm_rollout, llm_losses (tool output masked from the loss), llm_train (its harness method:
``searchgym.harness.llm_method``).
"""

from __future__ import annotations

from . import cw_round, process_estimators  # noqa: F401  (register cw_round; mt_ppo, gigpo, info_gain)
from .advantages import (
    ADVANTAGE_ESTIMATORS,
    AdvantageConfig,
    AdvantageResult,
    EstimatorOutput,
    compute_advantages,
    gae,
    grpo_group_advantages,
    register_estimator,
    reward_to_go,
    round_weights,
    value_contribution,
)
from .calibration import (
    CalibrationConfig,
    Calibrator,
    LearnableBaseline,
    RunningMeanStd,
    clip_advantages,
    count_zero_variance,
    standardize_advantages,
)
from .encoders import ENCODERS, TextEncoder, make_encoder, resolve_device
from .aggregation import AGGREGATIONS, aggregate, get_aggregation, register_aggregation
from .losses import POLICY_LOSSES, LossConfig, fit_value, get_policy_loss, policy_loss, register_policy_loss, value_loss
from .policy import CandidatePolicy, LexicalOverlap, batch_observations, make_policy, question_of
from .population import (
    POPULATION_MODES,
    MajorityVote,
    Population,
    best_member,
    distill,
    ensemble_probs,
    greedy_agreement,
)
from .trajectory import Step, Trajectory

__all__ = [
    "ADVANTAGE_ESTIMATORS",
    "AGGREGATIONS",
    "ENCODERS",
    "POLICY_LOSSES",
    "POPULATION_MODES",
    "AdvantageConfig",
    "AdvantageResult",
    "CalibrationConfig",
    "Calibrator",
    "CandidatePolicy",
    "EstimatorOutput",
    "LearnableBaseline",
    "LexicalOverlap",
    "LossConfig",
    "MajorityVote",
    "Population",
    "RunningMeanStd",
    "Step",
    "TextEncoder",
    "Trajectory",
    "aggregate",
    "batch_observations",
    "best_member",
    "clip_advantages",
    "compute_advantages",
    "count_zero_variance",
    "distill",
    "ensemble_probs",
    "fit_value",
    "gae",
    "get_aggregation",
    "get_policy_loss",
    "greedy_agreement",
    "grpo_group_advantages",
    "make_encoder",
    "make_policy",
    "policy_loss",
    "question_of",
    "register_aggregation",
    "register_estimator",
    "register_policy_loss",
    "resolve_device",
    "reward_to_go",
    "round_weights",
    "standardize_advantages",
    "value_contribution",
    "value_loss",
]
