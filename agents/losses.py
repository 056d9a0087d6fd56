"""PPO-style losses for candidate policies: clipped surrogate (asymmetric + dual clip), entropy
bonus, clipped value loss, and the three loss aggregations.

All per-step tensors are flat, shape [S] (every step of every trajectory in the batch), with
`seq_ids` [S] (long) naming the trajectory of each step (`AdvantageResult.seq_ids()`).

Aggregations (`LossConfig.aggregation`), for per-step losses l_{i,t} of trajectory i with T_i steps:
- "token-mean":              sum_{i,t} l_{i,t} / sum_i T_i            (every step weighs the same)
- "seq-mean-token-mean":     mean_i ( sum_t l_{i,t} / T_i )           (every trajectory weighs the same; GRPO)
- "seq-mean-token-sum-norm": mean_i ( sum_t l_{i,t} / L )             (L = norm_length, a constant; Dr.GRPO)
Trajectory ids absent from `seq_ids` (e.g. in a minibatch) are ignored, not counted as empty.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

AGGREGATIONS = ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum-norm")


@dataclass
class LossConfig:
    eps_low: float = 0.2  # ratio clipped to [1 - eps_low, 1 + eps_high]; eps_low < eps_high
    eps_high: float = 0.2  # ("clip-higher") lets rare good actions grow faster than they shrink
    dual_clip: float | None = 3.0  # c > 1: for A < 0 the loss is capped at c * |A| (None disables)
    entropy_coef: float = 0.01
    value_coef: float = 0.5  # weight of the value loss when a trainer sums both
    value_clip: float | None = 0.2  # PPO2 clipped value loss range (None: plain squared error)
    value_epochs: int = 4  # passes of `fit_value` over a batch
    aggregation: str = "token-mean"
    norm_length: int | None = None  # the constant L of "seq-mean-token-sum-norm" (e.g. env max steps)

    def __post_init__(self) -> None:
        if self.aggregation not in AGGREGATIONS:
            raise ValueError(f"unknown loss aggregation {self.aggregation!r}; accepted: {list(AGGREGATIONS)}")
        if self.aggregation == "seq-mean-token-sum-norm" and (
            self.norm_length is None or self.norm_length <= 0
        ):
            raise ValueError(
                "aggregation 'seq-mean-token-sum-norm' needs LossConfig.norm_length > 0 "
                "(a constant such as the env's max steps per episode)"
            )
        if self.eps_low < 0 or self.eps_high < 0 or self.eps_low >= 1:
            raise ValueError(f"need 0 <= eps_low < 1 and eps_high >= 0; got {self.eps_low}, {self.eps_high}")
        if self.dual_clip is not None and self.dual_clip <= 1:
            raise ValueError(f"dual_clip must be > 1 (Dual-Clip PPO uses 3) or None; got {self.dual_clip}")
        if self.value_epochs < 1:
            raise ValueError(f"value_epochs must be >= 1; got {self.value_epochs}")


def aggregate(per_step: Tensor, seq_ids: Tensor, mode: str, norm_length: int | None = None) -> Tensor:
    """Reduce per-step losses [S] to a scalar with one of AGGREGATIONS (see the module docstring)."""
    if mode == "token-mean":
        return per_step.mean()
    if mode not in AGGREGATIONS:
        raise ValueError(f"unknown loss aggregation {mode!r}; accepted: {list(AGGREGATIONS)}")
    seq_ids = seq_ids.to(per_step.device).long()
    n = int(seq_ids.max()) + 1
    sums = torch.zeros(n, dtype=per_step.dtype, device=per_step.device).index_add(0, seq_ids, per_step)
    counts = torch.bincount(seq_ids, minlength=n)
    present = counts > 0
    if mode == "seq-mean-token-mean":
        return (sums[present] / counts[present].to(per_step.dtype)).mean()
    if norm_length is None or norm_length <= 0:
        raise ValueError("aggregation 'seq-mean-token-sum-norm' needs norm_length > 0")
    return (sums[present] / float(norm_length)).mean()


def policy_loss(
    new_log_probs: Tensor,
    old_log_probs: Tensor,
    advantages: Tensor,
    entropy: Tensor,
    seq_ids: Tensor,
    config: LossConfig,
) -> tuple[Tensor, dict[str, float]]:
    """Clipped surrogate minus entropy bonus.

    per step: r = exp(new - old); l = -min(r A, clip(r, 1 - eps_low, 1 + eps_high) A);
    dual clip, where A < 0: l = min(l, c |A|)  (i.e. -max(min(...), c A), Dual-Clip PPO);
    loss = agg(l) - entropy_coef * agg(entropy).
    """
    log_ratio = new_log_probs - old_log_probs
    ratio = log_ratio.exp()
    surr_unclipped = ratio * advantages
    surr_clipped = ratio.clamp(1.0 - config.eps_low, 1.0 + config.eps_high) * advantages
    per_step = -torch.min(surr_unclipped, surr_clipped)
    negative = advantages < 0
    dual_active = torch.zeros_like(negative)
    if config.dual_clip is not None:
        cap = config.dual_clip * advantages.abs()
        dual_active = negative & (per_step > cap)
        per_step = torch.where(negative, torch.min(per_step, cap), per_step)
    pg = aggregate(per_step, seq_ids, config.aggregation, config.norm_length)
    ent = aggregate(entropy, seq_ids, config.aggregation, config.norm_length)
    loss = pg - config.entropy_coef * ent
    with torch.no_grad():
        clipped = (ratio < 1.0 - config.eps_low) | (ratio > 1.0 + config.eps_high)
        stats = {
            "loss/policy": pg.item(),
            "loss/entropy": float(entropy.mean()),
            "loss/approx_kl": float(((ratio - 1.0) - log_ratio).mean()),  # k3 estimator, as CleanRL
            "loss/clip_fraction": float(clipped.float().mean()),
            "loss/dual_clip_fraction": float(dual_active.float().mean()),
            "loss/ratio_mean": float(ratio.mean()),
        }
    return loss, stats


def value_loss(
    new_values: Tensor, old_values: Tensor, returns: Tensor, seq_ids: Tensor, config: LossConfig
) -> tuple[Tensor, dict[str, float]]:
    """0.5 * agg(max((V - G)^2, (V_clip - G)^2)), V_clip = V_old + clip(V - V_old, -e, e) (PPO2).

    With `value_clip=None`: 0.5 * agg((V - G)^2).
    """
    unclipped = (new_values - returns) ** 2
    if config.value_clip is None:
        per_step = unclipped
        clip_frac = 0.0
    else:
        delta = new_values - old_values
        v_clipped = old_values + delta.clamp(-config.value_clip, config.value_clip)
        per_step = torch.max(unclipped, (v_clipped - returns) ** 2)
        clip_frac = float((delta.abs() > config.value_clip).float().mean())
    loss = 0.5 * aggregate(per_step, seq_ids, config.aggregation, config.norm_length)
    with torch.no_grad():
        var_g = returns.var(unbiased=False) if returns.numel() > 1 else torch.zeros(())
        explained = (
            1.0 - (returns - new_values).var(unbiased=False) / var_g if var_g > 0 else torch.tensor(0.0)
        )
    return loss, {
        "loss/value": loss.item(),
        "loss/value_clip_fraction": clip_frac,
        "loss/explained_variance": float(explained),
    }


def fit_value(
    policy: nn.Module,
    optimizer: torch.optim.Optimizer,
    obs_batch: list[dict],
    returns: Tensor,
    old_values: Tensor,
    seq_ids: Tensor,
    config: LossConfig,
) -> dict[str, float]:
    """Train the value head for `config.value_epochs` full-batch passes; returns first/last loss.

    `policy(obs_batch)` must return (logits, values) like `CandidatePolicy.forward`.
    """
    first = last = 0.0
    stats: dict[str, float] = {}
    for epoch in range(config.value_epochs):
        _, values = policy(obs_batch)
        loss, stats = value_loss(values, old_values, returns, seq_ids, config)
        optimizer.zero_grad()
        (config.value_coef * loss).backward()
        optimizer.step()
        if epoch == 0:
            first = loss.item()
        last = loss.item()
    return {**stats, "loss/value_first_epoch": first, "loss/value_last_epoch": last}
