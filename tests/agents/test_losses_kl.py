"""The KL penalty to a reference policy: its exact categorical value, its gradient, and how
policy_loss adds it."""

from __future__ import annotations

import math

import pytest
import torch
from searchgym.agents.losses import LossConfig, categorical_kl, policy_loss

MASKED = torch.finfo(torch.float32).min
KL_HALF_QUARTER = 0.5 * math.log(4 / 3)  # KL([.5, .5] || [.75, .25]) = .5 ln(.5/.75) + .5 ln(.5/.25)


def test_categorical_kl_value_over_admissible_candidates():
    # pi = softmax([0, 0]) = [.5, .5]; pi_ref = softmax([ln 3, 0]) = [.75, .25]; a third, masked candidate
    logits = torch.tensor([[0.0, 0.0, MASKED]])
    ref = torch.tensor([[math.log(3.0), 0.0, MASKED]])
    assert categorical_kl(logits, ref).item() == pytest.approx(KL_HALF_QUARTER, abs=1e-7)  # 0.1438410
    assert categorical_kl(ref, ref).item() == pytest.approx(0.0, abs=1e-7)
    # a row padded wider with more masked entries has the same KL
    wide = categorical_kl(torch.tensor([[0.0, MASKED, 0.0, MASKED]]), torch.tensor([[math.log(3.0), MASKED, 0.0, MASKED]]))
    assert wide.item() == pytest.approx(KL_HALF_QUARTER, abs=1e-7)


def test_categorical_kl_gradient_by_hand():
    # d KL / d z_j = pi_j (ln(pi_j / ref_j) - KL): j=0: .5 (ln(2/3) - 0.1438410) = -0.2746531, j=1: +0.2746531
    logits = torch.tensor([[0.0, 0.0, MASKED]], requires_grad=True)
    ref = torch.tensor([[math.log(3.0), 0.0, MASKED]])
    categorical_kl(logits, ref).sum().backward()
    expected = 0.5 * (math.log(2 / 3) - KL_HALF_QUARTER)
    torch.testing.assert_close(logits.grad, torch.tensor([[expected, -expected, 0.0]]), atol=1e-6, rtol=0)


def test_categorical_kl_refuses_shapes_that_differ():
    with pytest.raises(ValueError, match=r"categorical_kl needs logits of one shape; got \(1, 2\) and \(1, 3\)"):
        categorical_kl(torch.zeros(1, 2), torch.zeros(1, 3))


def test_policy_loss_adds_beta_times_aggregated_kl_and_logs_it():
    # ratio 1 (new = old), A = [1, -1], no entropy bonus: pg = token-mean(-A) = 0
    # kl = [0.2, 0.4], beta = 0.5: loss = 0.5 * 0.3 = 0.15
    new = torch.zeros(2, requires_grad=True)
    args = (new, torch.zeros(2), torch.tensor([1.0, -1.0]), torch.zeros(2), torch.tensor([0, 1]))
    config = LossConfig(kl_coef=0.5, entropy_coef=0.0)
    loss, stats = policy_loss(*args, config, kl=torch.tensor([0.2, 0.4]))
    assert loss.item() == pytest.approx(0.15)
    assert stats["loss/kl"] == pytest.approx(0.3)
    plain, plain_stats = policy_loss(*args, config)
    assert plain.item() == pytest.approx(0.0) and "loss/kl" not in plain_stats


def test_kl_coef_is_checked():
    said = r"kl_coef must be in \[0, 1e\+06\] \(0: no KL term; GRPO uses 0.04, its code 0.001\); got "
    with pytest.raises(ValueError, match=said + "-0.1"):
        LossConfig(kl_coef=-0.1)
    with pytest.raises(ValueError, match=said + "nan"):
        LossConfig(kl_coef=float("nan"))
    with pytest.raises(ValueError, match=said + "1e"):  # before: accepted, and the loss was inf, then NaN
        LossConfig(kl_coef=1e308)
