"""PPO-style losses for candidate policies: a registry of policy losses (the clipped surrogate,
asymmetric + dual clip, by default), entropy bonus and clipped value loss, each reduced with one
of the aggregations of :mod:`.aggregation`.

All per-step tensors are flat, shape [S] (every step of every trajectory in the batch), with
`seq_ids` [S] (long) naming the trajectory of each step (`AdvantageResult.seq_ids()`).

A policy loss is a function ``fn(ratio, advantages, config) -> (per_step, stats)`` registered with
:func:`register_policy_loss` (after verl's ``core_algos``) and chosen by ``LossConfig.policy_loss``;
:func:`policy_loss` aggregates its per-step losses, subtracts the entropy bonus, adds the KL
penalty to a reference policy (``kl_coef``, GRPO's beta) and logs the rest.

The KL term is exact: KL(pi || pi_ref) = sum_a pi(a) (log pi(a) - log pi_ref(a)) over the
admissible candidates of each step (:func:`categorical_kl`). GRPO's per-token k3 estimator
(pi_ref / pi - log(pi_ref / pi) - 1 at the sampled token) exists because an LLM's vocabulary is
too large to sum over; a candidate policy's action set is a few dozen entries whose logits the
update already computes, so the sum costs one softmax more. It has no sampling noise, it is
measured under the current policy rather than at actions drawn from the old one, and its gradient
is the gradient of KL(pi || pi_ref), whereas k3 used as a loss has in expectation the gradient of
the reverse KL(pi_ref || pi) (grad k3 = (1 - pi_ref / pi) grad log pi, whose mean under pi is
-sum_a pi_ref(a) grad log pi(a)).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from searchgym.named_registry import NamedRegistry

from .aggregation import AGGREGATIONS, aggregate, check_norm_length, get_aggregation
from .config_checks import MAX_COEF

__all__ = ["AGGREGATIONS", "POLICY_LOSSES", "LossConfig", "aggregate", "categorical_kl", "fit_value",
           "get_policy_loss", "policy_loss", "register_policy_loss", "value_loss"]

#: (ratio [S], advantages [S], config) -> (per-step losses [S] with gradient, logged numbers)
PolicyLoss = Callable[[Tensor, Tensor, "LossConfig"], tuple[Tensor, dict[str, float]]]
POLICY_LOSSES: NamedRegistry[PolicyLoss] = NamedRegistry("policy loss")


def register_policy_loss(name: str) -> Callable[[PolicyLoss], PolicyLoss]:
    """Decorator: add a policy loss ``fn(ratio, advantages, config) -> (per_step, stats)`` under ``name``."""

    def decorate(fn: PolicyLoss) -> PolicyLoss:
        POLICY_LOSSES.add(name, fn)
        return fn

    return decorate


def get_policy_loss(name: str) -> PolicyLoss:
    """The registered policy loss ``name``; an unknown name is an error that lists the accepted ones."""
    return POLICY_LOSSES.get(name)


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
    policy_loss: str = "ppo_clip"  # a name in POLICY_LOSSES
    kl_coef: float = 0.0  # beta of + beta * agg(KL(pi || pi_ref)), pi_ref = the weights training started from

    def __post_init__(self) -> None:
        get_aggregation(self.aggregation)
        check_norm_length(self.aggregation, self.norm_length, "LossConfig.norm_length")
        get_policy_loss(self.policy_loss)
        if self.eps_low < 0 or self.eps_high < 0 or self.eps_low >= 1:
            raise ValueError(f"need 0 <= eps_low < 1 and eps_high >= 0; got {self.eps_low}, {self.eps_high}")
        if self.dual_clip is not None and self.dual_clip <= 1:
            raise ValueError(f"dual_clip must be > 1 (Dual-Clip PPO uses 3) or None; got {self.dual_clip}")
        if self.value_epochs < 1:
            raise ValueError(f"value_epochs must be >= 1; got {self.value_epochs}")
        if not 0 <= self.kl_coef <= MAX_COEF:  # also refuses nan; 1e308 made the loss inf, then NaN
            raise ValueError(f"kl_coef must be in [0, {MAX_COEF:g}] (0: no KL term; GRPO uses 0.04, its code 0.001); "
                             f"got {self.kl_coef}")


@register_policy_loss("ppo_clip")
def ppo_clip_loss(ratio: Tensor, advantages: Tensor, config: LossConfig) -> tuple[Tensor, dict[str, float]]:
    """l = -min(r A, clip(r, 1 - eps_low, 1 + eps_high) A); dual clip, where A < 0:
    l = min(l, c |A|)  (i.e. -max(min(...), c A), Dual-Clip PPO)."""
    surr_unclipped = ratio * advantages
    surr_clipped = ratio.clamp(1.0 - config.eps_low, 1.0 + config.eps_high) * advantages
    per_step = -torch.min(surr_unclipped, surr_clipped)
    negative = advantages < 0
    dual_active = torch.zeros_like(negative)
    if config.dual_clip is not None:
        cap = config.dual_clip * advantages.abs()
        dual_active = negative & (per_step > cap)
        per_step = torch.where(negative, torch.min(per_step, cap), per_step)
    with torch.no_grad():
        clipped = (ratio < 1.0 - config.eps_low) | (ratio > 1.0 + config.eps_high)
        stats = {"loss/clip_fraction": float(clipped.float().mean()),
                 "loss/dual_clip_fraction": float(dual_active.float().mean())}
    return per_step, stats


@register_policy_loss("pg")
def importance_weighted_pg_loss(ratio: Tensor, advantages: Tensor, config: LossConfig
                                ) -> tuple[Tensor, dict[str, float]]:
    """l = -r A: the importance-weighted policy gradient, no trust region (its gradient at r = 1 is
    REINFORCE's -A grad log pi); for ablations of the clip."""
    return -ratio * advantages, {}


def categorical_kl(logits: Tensor, ref_logits: Tensor) -> Tensor:
    """KL(pi || pi_ref) per row [B] of two masked logit tensors [B, N] (masked entries hold
    finfo.min, as ``CandidatePolicy.score`` writes them): sum over admissible a of
    pi(a) (log pi(a) - log pi_ref(a)); masked entries add exactly 0 and get no gradient.
    Differentiable in ``logits``; pass ``ref_logits`` without gradient."""
    if logits.shape != ref_logits.shape:
        raise ValueError(f"categorical_kl needs logits of one shape; got {tuple(logits.shape)} and "
                         f"{tuple(ref_logits.shape)}")
    admissible = logits > torch.finfo(logits.dtype).min
    log_p = torch.log_softmax(logits, dim=-1)
    log_q = torch.log_softmax(ref_logits.to(logits.dtype), dim=-1)
    diff = torch.where(admissible, log_p - log_q, torch.zeros_like(log_p))
    return (log_p.exp() * diff).sum(-1)


def policy_loss(
    new_log_probs: Tensor,
    old_log_probs: Tensor,
    advantages: Tensor,
    entropy: Tensor,
    seq_ids: Tensor,
    config: LossConfig,
    kl: Tensor | None = None,
) -> tuple[Tensor, dict[str, float]]:
    """The configured policy loss minus the entropy bonus, plus the KL penalty.

    per step: r = exp(new - old), l = POLICY_LOSSES[config.policy_loss](r, A);
    loss = agg(l) - entropy_coef * agg(entropy) (+ kl_coef * agg(kl) when ``kl`` [S], the
    per-step KL to the reference, is given; it is then logged as ``loss/kl``).
    """
    log_ratio = new_log_probs - old_log_probs
    ratio = log_ratio.exp()
    per_step, loss_stats = get_policy_loss(config.policy_loss)(ratio, advantages, config)
    pg = aggregate(per_step, seq_ids, config.aggregation, config.norm_length)
    ent = aggregate(entropy, seq_ids, config.aggregation, config.norm_length)
    loss = pg - config.entropy_coef * ent
    kl_stats = {}
    if kl is not None:
        loss = loss + config.kl_coef * aggregate(kl, seq_ids, config.aggregation, config.norm_length)
        kl_stats = {"loss/kl": float(kl.detach().mean())}
    with torch.no_grad():
        stats = {
            "loss/policy": pg.item(),
            "loss/entropy": float(entropy.mean()),
            "loss/approx_kl": float(((ratio - 1.0) - log_ratio).mean()),  # k3 estimator, as CleanRL
            **loss_stats,
            "loss/ratio_mean": float(ratio.mean()),
            **kl_stats,
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
    returns: Tensor | np.ndarray,
    old_values: Tensor | np.ndarray,
    seq_ids: Tensor | np.ndarray,
    config: LossConfig,
) -> dict[str, float]:
    """Train the value head for `config.value_epochs` full-batch passes; returns first/last loss.

    `policy(obs_batch)` must return (logits, values) like `CandidatePolicy.forward`. ``returns``,
    ``old_values`` and ``seq_ids`` may be tensors or arrays (``AdvantageResult.flat_returns()`` is
    one). Before: an array failed in torch ("Can't call numpy() on Tensor that requires grad").
    """
    device = next(policy.parameters()).device
    returns, old_values = (x if isinstance(x, Tensor) else torch.as_tensor(np.asarray(x), dtype=torch.float32,
                                                                          device=device) for x in (returns, old_values))
    seq_ids = seq_ids if isinstance(seq_ids, Tensor) else torch.as_tensor(np.asarray(seq_ids), device=device)
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
