"""Advantage estimators, all in one registry.

    result = compute_advantages("cw_round", groups, AdvantageConfig(round_gamma=1.0))
    result.advantages[i]   # np.ndarray (T_i,), per step of result.trajectories[i]
    result.returns[i]      # value targets for the same steps
    result.stats           # logged numbers ("adv/pos_mean", "groups/zero_variance", ...)

A *group* is the list of trajectories that attempted the same task (the GRPO group). In team
envs a group holds one trajectory per agent and episode, so per-trajectory quantities
(contributions, round weights, phi) are per agent over that agent's own rounds.

Choices made where sources are ambiguous (each is tested in tests/agents/test_advantages.py):
- R_i is the undiscounted sum of the trajectory's rewards (`Trajectory.final_return`).
- GRPO std is the unbiased sample std (ddof=1), eps = 1e-6 is added to it; a group whose
  returns are all equal (or that has a single member) is "zero variance": advantages 0, counted.
- Estimators without a critic ("grpo", "dr_grpo", "cw_round") still return value targets, the
  discounted reward-to-go (gamma), so a value head can be trained alongside for logging or reuse.
- "cw_round" (in :mod:`.cw_round`, with its comparison to the paper) logs
  ``estimator/differs_from_grpo_mean``: the fraction of trajectories whose
  advantages differ from their GRPO advantage (0 means CW-GRPO *is* GRPO on that batch).
- "cw_value": phi_i = (#pos/T) * mean(A_t | A_t > 0) which equals sum(max(A_t, 0)) / T; its
  group term is R_i - mean(R) without std division, as written in the seed article.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from searchgym.named_registry import NamedRegistry

from .config_checks import check_advantage_settings
from .trajectory import Trajectory


#: "evidence": the non-final rounds whose kind can reveal gold evidence; "all": every non-final round
CW_ROUNDS = ("evidence", "all")
CW_ZERO_SUM = ("uniform", "zero")


@dataclass
class AdvantageConfig:
    """Hyper-parameters of every estimator (each estimator reads only its own)."""

    gamma: float = 1.0  # discount; search episodes are short and reward is terminal
    gae_lambda: float = 0.95
    eps: float = 1e-6  # added to the group std in "grpo" / "cw_round"
    cw_clip_lo: float = 0.5  # "cw_value": phi clipped to [lo, hi] so no trajectory loses or
    cw_clip_hi: float = 2.0  # gains more than 2x of its group advantage
    cw_group_normalize: bool = False  # "cw_value": phi_i / mean_group(phi) before clipping
    round_gamma: float = 1.0  # "cw_round": softmax temperature; math.inf -> c_k / sum(c)
    cw_rounds: str = "evidence"  # "cw_round": which non-final rounds share the advantage (see cw_round)
    cw_zero_sum: str = "uniform"  # "cw_round", gamma = inf, all c = 0: "uniform" weights or "zero" (paper code)

    def __post_init__(self) -> None:
        if self.cw_rounds not in CW_ROUNDS:
            raise ValueError(f"unknown cw_rounds {self.cw_rounds!r}; accepted: {', '.join(CW_ROUNDS)}")
        if self.cw_zero_sum not in CW_ZERO_SUM:
            raise ValueError(f"unknown cw_zero_sum {self.cw_zero_sum!r}; accepted: {', '.join(CW_ZERO_SUM)}")
        check_advantage_settings(self)


@dataclass
class EstimatorOutput:
    """What one estimator returns for one group: per-trajectory arrays plus diagnostics."""

    advantages: list[np.ndarray]
    returns: list[np.ndarray]
    diagnostics: dict[str, list[float]] = field(default_factory=dict)  # per-trajectory numbers


@dataclass
class AdvantageResult:
    """Advantages and value targets for a batch of groups, flattened in group order."""

    trajectories: list[Trajectory]
    advantages: list[np.ndarray]
    returns: list[np.ndarray]
    group_index: list[int]  # group_index[i] = position in `groups` of trajectory i
    stats: dict[str, float]

    def flat_advantages(self) -> np.ndarray:
        return np.concatenate(self.advantages) if self.advantages else np.zeros(0)

    def flat_returns(self) -> np.ndarray:
        return np.concatenate(self.returns) if self.returns else np.zeros(0)

    def seq_ids(self) -> np.ndarray:
        """Trajectory index of every flattened step (what the loss aggregation needs)."""
        return np.concatenate([np.full(len(a), i, dtype=np.int64) for i, a in enumerate(self.advantages)])

    def lengths(self) -> list[int]:
        return [len(a) for a in self.advantages]


Estimator = Callable[[list[Trajectory], AdvantageConfig], EstimatorOutput]


@dataclass(frozen=True)
class EstimatorEntry:
    """One row of the estimator table: the function, and whether it reads the stored values (then a
    method that uses it must fit a value head or a critic)."""

    estimate: Estimator
    needs_values: bool = False


ADVANTAGE_ESTIMATORS: NamedRegistry[EstimatorEntry] = NamedRegistry("advantage estimator")


def register_estimator(name: str, needs_values: bool = False) -> Callable[[Estimator], Estimator]:
    """Decorator: add an estimator `fn(group, config) -> EstimatorOutput` under `name`;
    ``needs_values`` declares that it reads the trajectories' stored values."""

    def decorate(fn: Estimator) -> Estimator:
        ADVANTAGE_ESTIMATORS.add(name, EstimatorEntry(fn, needs_values))
        return fn

    return decorate


# ---------------------------------------------------------------------------------------------
# Building blocks


def gae(
    rewards: np.ndarray,
    values: np.ndarray,
    dones: np.ndarray,
    bootstrap_value: float,
    gamma: float,
    lam: float,
) -> np.ndarray:
    """GAE(gamma, lambda): delta_t = r_t + gamma V_{t+1} (1 - d_t) - V_t,
    A_t = delta_t + gamma lam (1 - d_t) A_{t+1}.

    V_T (after the last step) is `bootstrap_value`; it is multiplied by (1 - d_{T-1}), so it is
    ignored for an episode that ended.
    """
    T = len(rewards)
    adv = np.zeros(T, dtype=np.float64)
    next_value, next_adv = float(bootstrap_value), 0.0
    for t in reversed(range(T)):
        not_done = 0.0 if dones[t] else 1.0
        delta = rewards[t] + gamma * next_value * not_done - values[t]
        next_adv = delta + gamma * lam * not_done * next_adv
        adv[t] = next_adv
        next_value = values[t]
    return adv


def reward_to_go(rewards: np.ndarray, gamma: float) -> np.ndarray:
    """G_t = sum_{s >= t} gamma^(s - t) r_s: value targets for estimators without a critic."""
    out = np.zeros(len(rewards), dtype=np.float64)
    running = 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def is_zero_variance(group_returns: np.ndarray) -> bool:
    """A group with a single member or with all returns equal carries no GRPO learning signal."""
    return len(group_returns) < 2 or float(np.ptp(group_returns)) <= 1e-12


def grpo_group_advantages(group_returns: np.ndarray, eps: float) -> np.ndarray:
    """(R_i - mean R) / (std_ddof1(R) + eps); all zeros for a zero-variance group."""
    if is_zero_variance(group_returns):
        return np.zeros_like(group_returns, dtype=np.float64)
    return (group_returns - group_returns.mean()) / (group_returns.std(ddof=1) + eps)


def _broadcast(values: np.ndarray, group: list[Trajectory]) -> list[np.ndarray]:
    return [np.full(len(traj), float(v), dtype=np.float64) for v, traj in zip(values, group)]


def _gae_of(traj: Trajectory, config: AdvantageConfig) -> np.ndarray:
    return gae(traj.rewards, traj.values, traj.dones, traj.bootstrap_value, config.gamma, config.gae_lambda)


# ---------------------------------------------------------------------------------------------
# Estimators


@register_estimator("gae", needs_values=True)
def gae_estimator(group: list[Trajectory], config: AdvantageConfig) -> EstimatorOutput:
    """Per-step GAE(gamma, lambda) from the stored values; returns = advantages + values."""
    advs = [_gae_of(traj, config) for traj in group]
    return EstimatorOutput(advs, [a + traj.values for a, traj in zip(advs, group)])


@register_estimator("grpo")
def grpo_estimator(group: list[Trajectory], config: AdvantageConfig) -> EstimatorOutput:
    """A_i = (R_i - mean(R)) / (std(R, ddof=1) + eps), the same for every step of trajectory i."""
    group_adv = grpo_group_advantages(np.array([t.final_return for t in group]), config.eps)
    return EstimatorOutput(
        _broadcast(group_adv, group), [reward_to_go(t.rewards, config.gamma) for t in group]
    )


@register_estimator("dr_grpo")
def dr_grpo_estimator(group: list[Trajectory], config: AdvantageConfig) -> EstimatorOutput:
    """A_i = R_i - mean(R) (Dr.GRPO: no std division; pair it with "seq-mean-token-sum-norm")."""
    returns = np.array([t.final_return for t in group])
    return EstimatorOutput(
        _broadcast(returns - returns.mean(), group), [reward_to_go(t.rewards, config.gamma) for t in group]
    )


def value_contribution(step_advantages: np.ndarray) -> float:
    """phi = (#{t: A_t > 0} / T) * mean(A_t | A_t > 0) = sum(max(A_t, 0)) / T; 0 if no step is positive."""
    positive = step_advantages[step_advantages > 0]
    if positive.size == 0:
        return 0.0
    return (positive.size / step_advantages.size) * float(positive.mean())


@register_estimator("cw_value", needs_values=True)
def cw_value_estimator(group: list[Trajectory], config: AdvantageConfig) -> EstimatorOutput:
    """CW-GRPO, value contribution (seed article).

    A_t = GAE from the value head; phi_i = value_contribution(A_t of trajectory i);
    optionally phi_i <- phi_i / mean_group(phi) (skipped when that mean is <= 0, i.e. all phi = 0);
    A_i = clip(phi_i, lo, hi) * (R_i - mean(R)), broadcast over steps. Value targets: GAE returns.
    Note clip(0, lo, hi) = lo: a trajectory with no positive step keeps lo times its group term.
    """
    step_advs = [_gae_of(traj, config) for traj in group]
    phi = np.array([value_contribution(a) for a in step_advs])
    if config.cw_group_normalize:
        mean_phi = float(phi.mean())
        if mean_phi > 0:
            phi = phi / mean_phi
    weight = np.clip(phi, config.cw_clip_lo, config.cw_clip_hi)
    returns = np.array([t.final_return for t in group])
    group_adv = weight * (returns - returns.mean())
    return EstimatorOutput(
        _broadcast(group_adv, group),
        [a + traj.values for a, traj in zip(step_advs, group)],
        {"phi": phi.tolist(), "phi_weight": weight.tolist()},
    )


def round_weights(contributions: np.ndarray, gamma: float, zero_sum: str = "uniform") -> np.ndarray:
    """Round weights w_k: softmax(gamma * c); gamma = inf: c / sum(c), and when sum(c) is 0
    uniform (``zero_sum="uniform"``) or all zeros (``"zero"``, what the paper's code gives)."""
    if contributions.size == 0:
        return contributions.astype(np.float64)
    if math.isinf(gamma):
        total = float(contributions.sum())
        if total <= 0:
            fill = 1.0 / contributions.size if zero_sum == "uniform" else 0.0
            return np.full(contributions.size, fill)
        return contributions / total
    logits = gamma * contributions
    exp = np.exp(logits - logits.max())
    return exp / exp.sum()


# ---------------------------------------------------------------------------------------------
# Entry point


def _mean_std(x: np.ndarray, prefix: str) -> dict[str, float]:
    if x.size == 0:
        return {f"{prefix}_mean": 0.0, f"{prefix}_std": 0.0}
    return {f"{prefix}_mean": float(x.mean()), f"{prefix}_std": float(x.std())}


def advantage_stats(
    groups: list[list[Trajectory]], advantages: np.ndarray, diagnostics: dict[str, list[float]]
) -> dict[str, float]:
    """What is logged for every batch: group variance, advantage sign split, contributions."""
    n_groups = len(groups)
    zero_var = sum(is_zero_variance(np.array([t.final_return for t in g])) for g in groups)
    trajs = [t for g in groups for t in g]
    contrib = np.concatenate([t.contributions for t in trajs]) if trajs else np.zeros(0)
    stats: dict[str, float] = {
        "groups/count": float(n_groups),
        "groups/zero_variance": float(zero_var),
        "groups/zero_variance_fraction": zero_var / n_groups if n_groups else 0.0,
        "adv/mean": float(advantages.mean()) if advantages.size else 0.0,
        "adv/std": float(advantages.std()) if advantages.size else 0.0,
        "adv/pos_fraction": float((advantages > 0).mean()) if advantages.size else 0.0,
        "adv/neg_fraction": float((advantages < 0).mean()) if advantages.size else 0.0,
        "contribution/step_rate": float((contrib > 0).mean()) if contrib.size else 0.0,
        "contribution/per_traj_mean": float(np.mean([t.contributions.sum() for t in trajs]))
        if trajs
        else 0.0,
        "contribution/traj_any_fraction": float(np.mean([t.contributions.max() > 0 for t in trajs]))
        if trajs
        else 0.0,
    }
    stats.update(_mean_std(advantages[advantages > 0], "adv/pos"))
    stats.update(_mean_std(advantages[advantages < 0], "adv/neg"))
    for key, values in diagnostics.items():
        if len(values):  # a diagnostic with no member this batch (no positive trajectory) is not logged
            stats.update(_mean_std(np.asarray(values, dtype=np.float64), f"estimator/{key}"))
    return stats


def check_groups(groups: object) -> None:
    """A list (or tuple) of non-empty lists of Trajectory. Before: a flat list of trajectories failed
    with "'Trajectory' object is not iterable". One isinstance per group and per trajectory."""
    if not isinstance(groups, (list, tuple)):
        raise TypeError(f"groups must be a list of groups (lists of Trajectory); got {type(groups).__name__}")
    for i, group in enumerate(groups):
        if isinstance(group, Trajectory):
            raise TypeError("groups must be a list of groups (lists of Trajectory), got a list of Trajectory: "
                            "wrap each group (the trajectories that attempted one task) in a list: [[t1, t2], ...]")
        if not isinstance(group, (list, tuple)):
            raise TypeError(f"groups[{i}] must be a list of Trajectory; got {type(group).__name__}")
        if len(group) == 0:
            raise ValueError(f"every group needs at least one trajectory; groups[{i}] is empty")
        if not all(isinstance(t, Trajectory) for t in group):
            bad = next(t for t in group if not isinstance(t, Trajectory))
            raise TypeError(f"groups[{i}] must hold only Trajectory objects; got a {type(bad).__name__}")


def check_finite_rewards(groups: list[list[Trajectory]]) -> None:
    """ValueError naming the first non-finite reward. Before: a NaN reward made every advantage of its
    group NaN, silently. Called only when the advantages or returns are not all finite."""
    for i, group in enumerate(groups):
        for j, traj in enumerate(group):
            bad = np.flatnonzero(~np.isfinite(traj.rewards))
            if bad.size:
                t = int(bad[0])
                raise ValueError(f"groups[{i}][{j}] (agent {traj.agent_id!r}, task {traj.task_id!r}) has reward "
                                 f"{traj.steps[t].reward!r} at step {t}; rewards must be finite numbers")


def compute_advantages(
    name: str, groups: list[list[Trajectory]], config: AdvantageConfig | None = None
) -> AdvantageResult:
    """Run estimator `name` on every group and gather per-step advantages, returns and stats.

    `groups`: a list of groups, each a list of the Trajectory objects that attempted one task;
    `config`: an AdvantageConfig (None: the defaults). A non-finite reward is a ValueError."""
    estimator = ADVANTAGE_ESTIMATORS.get(name).estimate  # an unknown name: an error listing the accepted ones
    check_groups(groups)
    if config is None:
        config = AdvantageConfig()
    elif not isinstance(config, AdvantageConfig):  # before: a dict failed with "'dict' object has no attribute 'eps'"
        raise TypeError(f"config must be an AdvantageConfig (or None for the defaults); got {type(config).__name__}")
    trajectories: list[Trajectory] = []
    advantages: list[np.ndarray] = []
    returns: list[np.ndarray] = []
    group_index: list[int] = []
    diagnostics: dict[str, list[float]] = {}
    for g_idx, group in enumerate(groups):
        out = estimator(group, config)
        trajectories.extend(group)
        advantages.extend(out.advantages)
        returns.extend(out.returns)
        group_index.extend([g_idx] * len(group))
        for key, values in out.diagnostics.items():
            diagnostics.setdefault(key, []).extend(values)
    flat = np.concatenate(advantages) if advantages else np.zeros(0)
    if not (np.isfinite(flat).all() and np.isfinite(np.concatenate(returns) if returns else flat).all()):
        check_finite_rewards(groups)  # only on this (rare) path: which reward was not finite
    stats = advantage_stats(groups, flat, diagnostics)
    return AdvantageResult(trajectories, advantages, returns, group_index, stats)
