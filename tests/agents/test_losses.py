"""PPO surrogate (eps_low/eps_high, dual clip), entropy bonus, value clip and aggregations on hand cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from searchgym.agents import LossConfig, aggregate, fit_value, make_policy, policy_loss, value_loss


def _one_step(ratio: float, adv: float, cfg: LossConfig, entropy: float = 0.0):
    new = torch.tensor([math.log(ratio)], requires_grad=True)
    loss, stats = policy_loss(
        new,
        torch.zeros(1),
        torch.tensor([adv]),
        torch.tensor([entropy]),
        torch.zeros(1, dtype=torch.long),
        cfg,
    )
    return loss, stats, new


@pytest.mark.parametrize(
    ("ratio", "adv", "eps_low", "eps_high", "expected"),
    [
        (1.5, 1.0, 0.2, 0.2, -1.2),  # A>0: min(1.5*1, 1.2*1) = 1.2 -> loss -1.2
        (1.5, 1.0, 0.2, 0.28, -1.28),  # clip-higher: min(1.5, 1.28) = 1.28
        (0.5, -1.0, 0.2, 0.28, 0.8),  # A<0: min(-0.5, 0.8*-1 = -0.8) = -0.8 -> loss 0.8
        (0.5, -1.0, 0.1, 0.28, 0.9),  # eps_low=0.1: clipped ratio 0.9 -> loss 0.9
        (1.1, 1.0, 0.2, 0.2, -1.1),  # inside the trust region: unclipped
    ],
)
def test_asymmetric_clip(ratio, adv, eps_low, eps_high, expected):
    loss, _, _ = _one_step(ratio, adv, LossConfig(eps_low=eps_low, eps_high=eps_high, entropy_coef=0.0))
    assert loss.item() == pytest.approx(expected)


def test_dual_clip_caps_negative_advantage_loss():
    # A=-1, ratio 5: min(-5, 1.2*-1) = -5 -> loss 5; dual clip c=3 caps it at 3*|A| = 3, with zero gradient
    loss, stats, new = _one_step(5.0, -1.0, LossConfig(entropy_coef=0.0, dual_clip=3.0))
    assert loss.item() == pytest.approx(3.0)
    assert stats["loss/dual_clip_fraction"] == 1.0
    loss.backward()
    assert float(new.grad) == 0.0
    loss, _, _ = _one_step(5.0, -1.0, LossConfig(entropy_coef=0.0, dual_clip=None))
    assert loss.item() == pytest.approx(5.0)
    # below the cap (ratio 2 -> loss 2 < 3) and for A>0, dual clip changes nothing
    assert _one_step(2.0, -1.0, LossConfig(entropy_coef=0.0))[0].item() == pytest.approx(2.0)
    assert _one_step(5.0, 1.0, LossConfig(entropy_coef=0.0))[0].item() == pytest.approx(-1.2)
    with pytest.raises(ValueError, match="dual_clip"):
        LossConfig(dual_clip=1.0)


def test_entropy_bonus_and_logged_stats():
    # ratio 1.5, A=1 -> -1.2; entropy 2 with coef 0.01 -> -1.2 - 0.02
    loss, stats, _ = _one_step(1.5, 1.0, LossConfig(entropy_coef=0.01), entropy=2.0)
    assert loss.item() == pytest.approx(-1.22)
    assert stats["loss/entropy"] == pytest.approx(2.0)
    assert stats["loss/clip_fraction"] == 1.0
    assert stats["loss/approx_kl"] == pytest.approx(0.5 - math.log(1.5))  # (r - 1) - log r


def test_aggregation_modes_hand_case():
    # trajectory 0: [1, 3] ; trajectory 1: [2, 4, 6]
    x = torch.tensor([1.0, 3.0, 2.0, 4.0, 6.0])
    ids = torch.tensor([0, 0, 1, 1, 1])
    assert float(aggregate(x, ids, "token-mean")) == pytest.approx(16 / 5)  # 3.2
    assert float(aggregate(x, ids, "seq-mean-token-mean")) == pytest.approx(3.0)  # (2 + 4) / 2
    assert float(aggregate(x, ids, "seq-mean-token-sum-norm", 4)) == pytest.approx(2.0)  # (4/4 + 12/4) / 2
    # ids absent from a minibatch do not count as empty trajectories
    gap = torch.tensor([0, 0, 2, 2, 2])
    assert float(aggregate(x, gap, "seq-mean-token-mean")) == pytest.approx(3.0)
    with pytest.raises(ValueError, match="accepted"):
        aggregate(x, ids, "sum")
    with pytest.raises(ValueError, match="norm_length"):
        LossConfig(aggregation="seq-mean-token-sum-norm")


def test_policy_loss_uses_configured_aggregation():
    # ratios 1 everywhere, A = [1, 1, -2]: per-step losses [-1, -1, 2]; traj ids [0, 0, 1]
    new = torch.zeros(3)
    args = (new, torch.zeros(3), torch.tensor([1.0, 1.0, -2.0]), torch.zeros(3), torch.tensor([0, 0, 1]))
    tok, _ = policy_loss(*args, LossConfig(entropy_coef=0.0))
    seq, _ = policy_loss(*args, LossConfig(entropy_coef=0.0, aggregation="seq-mean-token-mean"))
    drg, _ = policy_loss(
        *args, LossConfig(entropy_coef=0.0, aggregation="seq-mean-token-sum-norm", norm_length=4)
    )
    assert tok.item() == pytest.approx(0.0)  # (-1 - 1 + 2) / 3
    assert seq.item() == pytest.approx(0.5)  # (-1 + 2) / 2
    assert drg.item() == pytest.approx(0.0)  # (-2/4 + 2/4) / 2


def test_clipped_value_loss_hand_case():
    # V_old=0, V=1, clip 0.2 -> V_clip=0.2.
    # G=2: max(1, 3.24) -> 0.5*3.24 = 1.62 ; G=0.1: max(0.81, 0.01) -> 0.405
    ids = torch.zeros(1, dtype=torch.long)
    cfg = LossConfig(value_clip=0.2)
    assert value_loss(torch.ones(1), torch.zeros(1), torch.tensor([2.0]), ids, cfg)[
        0
    ].item() == pytest.approx(1.62)
    assert value_loss(torch.ones(1), torch.zeros(1), torch.tensor([0.1]), ids, cfg)[
        0
    ].item() == pytest.approx(0.405)
    loss, stats = value_loss(
        torch.ones(1), torch.zeros(1), torch.tensor([2.0]), ids, LossConfig(value_clip=None)
    )
    assert loss.item() == pytest.approx(0.5)  # plain 0.5 * (1 - 2)^2
    assert stats["loss/value_clip_fraction"] == 0.0


def test_fit_value_runs_value_epochs_and_reduces_loss(make_task):
    rng = np.random.default_rng(0)
    obs = [make_task(rng)[0] for _ in range(16)]
    policy = make_policy("hash", seed=0, dim=16, hidden=32)
    with torch.no_grad():
        old_values = policy(obs)[1]
    # targets well away from the initial values (the hash encoder drops the invented names, so
    # these observations embed alike: what must be learnt is the shift, not a per-task value)
    returns = (old_values + torch.tensor(rng.uniform(0.5, 1.0, 16))).float()
    cfg = LossConfig(value_epochs=20, value_clip=None)
    stats = fit_value(
        policy,
        torch.optim.Adam(policy.parameters(), lr=1e-2),
        obs,
        returns,
        old_values,
        torch.arange(16),
        cfg,
    )
    assert stats["loss/value_last_epoch"] < 0.5 * stats["loss/value_first_epoch"]
    with pytest.raises(ValueError, match="value_epochs"):
        LossConfig(value_epochs=0)
